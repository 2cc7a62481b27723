import { EVENTS, type EventName, type EventPayload } from '../../shared/contract/events';
import type { WireError } from '../../shared/contract/errors';
import { METHODS, isMethodName, type MethodInput, type MethodName, type MethodOutput } from '../../shared/contract/methods';
import type { Result } from '../../shared/contract/result';
import { createIpcTransport, webSocketUrlFor, type ConnectionState, type Transport } from './transport';
import { createWebSocketTransport } from './websocket-transport';

/** A failed contract call raised as an exception (for query hooks); carries the wire error unchanged. */
export class ContractError extends Error {
  readonly error: WireError;
  constructor(error: WireError) {
    super(error.message);
    this.name = 'ContractError';
    this.error = error;
  }
}

/**
 * The renderer's one way to the backend: typed calls checked against the contract's output schemas, and typed,
 * validated events. Screens never see the transport.
 */
export class WindeckClient {
  constructor(readonly transport: Transport) {}

  /** True when the running contract declares `method` (screens use it to say "not available yet"). */
  has(method: string): method is MethodName {
    return isMethodName(method);
  }

  async call<M extends MethodName>(method: M, input: MethodInput<M>): Promise<Result<MethodOutput<M>>> {
    const result = await this.transport.call(method, input);
    if (!result.ok) return result;
    const parsed = METHODS[method].output.safeParse(result.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue ? `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}` : 'unknown shape';
      return {
        ok: false,
        error: { code: 'PARSE_FAILED', message: `The backend's answer to ${method} does not match the contract (${where}).`, retryable: false },
      };
    }
    return { ok: true, value: parsed.data as MethodOutput<M> };
  }

  /** Like `call`, but throws a ContractError on failure. */
  async get<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>> {
    const result = await this.call(method, input);
    if (!result.ok) throw new ContractError(result.error);
    return result.value;
  }

  /** Listen to one event; payloads that do not match the contract are dropped. */
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
    const schema = EVENTS[event];
    return this.transport.subscribe((name, payload) => {
      if (name !== event) return;
      const parsed = schema.safeParse(payload);
      if (parsed.success) listener(parsed.data as EventPayload<E>);
    });
  }

  connection(): ConnectionState {
    return this.transport.connection();
  }

  onConnection(listener: (state: ConnectionState) => void): () => void {
    return this.transport.onConnection(listener);
  }

  /** Reconnect now instead of waiting for the backoff timer. */
  reconnectNow(): void {
    this.transport.reconnectNow();
  }

  dispose(): void {
    this.transport.dispose();
  }
}

/** IPC when the Electron preload exposed `window.windeck`, else the web host's WebSocket on the same host. */
export function createDefaultClient(win: Window): WindeckClient {
  if (win.windeck) return new WindeckClient(createIpcTransport(win.windeck));
  return new WindeckClient(createWebSocketTransport({ url: webSocketUrlFor(win.location) }));
}
