import type { ClientFrame, EventName } from '../../shared/contract/events';
import { EVENTS } from '../../shared/contract/events';
import type { WireError } from '../../shared/contract/errors';
import type { Result } from '../../shared/contract/result';
import { UI_CALL_QUEUE_TIMEOUT_MS, UI_RECONNECT_MAX_MS, UI_RECONNECT_MIN_MS } from '../../shared/domain/limits';
import type { ConnectionState, RawEventListener, Transport } from './transport';

/** The part of the browser WebSocket this transport uses (so tests can hand in the `ws` package's client). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export interface WebSocketTransportOptions {
  url: string;
  createSocket?: (url: string) => WebSocketLike;
  minDelayMs?: number;
  maxDelayMs?: number;
  queueTimeoutMs?: number;
  /** 0..1, for the reconnect jitter. */
  random?: () => number;
  now?: () => number;
}

interface Pending {
  resolve: (result: Result<unknown>) => void;
}

interface Queued extends Pending {
  method: string;
  input: unknown;
  timer: ReturnType<typeof setTimeout>;
}

const WS_OPEN = 1;

function unreachable(message: string): Result<unknown> {
  const error: WireError = { code: 'UNREACHABLE', message, retryable: true, context: { transport: 'local' } };
  return { ok: false, error };
}

function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(EVENTS, value);
}

/** Reconnect delay for attempt n (1-based): exponential from min to max, with up to 50 % jitter taken off. */
export function backoffDelayMs(attempt: number, minMs: number, maxMs: number, random: number): number {
  const base = Math.min(maxMs, minMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.5 + 0.5 * random));
}

/**
 * The web host transport: one WebSocket to `/api/ws` (the HttpOnly cookie authenticates it), calls matched to
 * results by id, events fanned out, reconnect with backoff. Calls made while the socket is down wait in a queue
 * for a bounded time; calls in flight when it drops answer UNREACHABLE (we cannot know whether they ran).
 */
export function createWebSocketTransport(options: WebSocketTransportOptions): Transport {
  const createSocket = options.createSocket ?? ((url: string) => new WebSocket(url) as unknown as WebSocketLike);
  const minDelayMs = options.minDelayMs ?? UI_RECONNECT_MIN_MS;
  const maxDelayMs = options.maxDelayMs ?? UI_RECONNECT_MAX_MS;
  const queueTimeoutMs = options.queueTimeoutMs ?? UI_CALL_QUEUE_TIMEOUT_MS;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;

  const listeners = new Set<RawEventListener>();
  const connectionListeners = new Set<(state: ConnectionState) => void>();
  const pending = new Map<number, Pending>();
  const queue: Queued[] = [];
  let nextId = 1;
  let socket: WebSocketLike | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let disposed = false;
  let state: ConnectionState = { status: 'connecting', attempt: 0, nextRetryAt: null, contractVersion: null, downSince: null, generation: 0 };

  function setState(patch: Partial<ConnectionState>): void {
    state = { ...state, ...patch };
    for (const listener of [...connectionListeners]) listener(state);
  }

  function send(id: number, method: string, input: unknown, entry: Pending): void {
    const frame: ClientFrame = { kind: 'call', id, method, input };
    pending.set(id, entry);
    try {
      socket?.send(JSON.stringify(frame));
    } catch {
      pending.delete(id);
      entry.resolve(unreachable('The connection to the Windeck backend failed while sending; try again.'));
    }
  }

  function flushQueue(): void {
    while (queue.length > 0 && socket?.readyState === WS_OPEN) {
      const item = queue.shift();
      if (!item) break;
      clearTimeout(item.timer);
      send(nextId++, item.method, item.input, item);
    }
  }

  function failInFlight(message: string): void {
    const entries = [...pending.values()];
    pending.clear();
    for (const entry of entries) entry.resolve(unreachable(message));
  }

  function handleMessage(data: unknown): void {
    if (typeof data !== 'string') return;
    let frame: unknown;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof frame !== 'object' || frame === null) return;
    const f = frame as { kind?: unknown; id?: unknown; result?: unknown; event?: unknown; payload?: unknown; contractVersion?: unknown };
    if (f.kind === 'hello') {
      if (typeof f.contractVersion === 'number') setState({ contractVersion: f.contractVersion });
      return;
    }
    if (f.kind === 'result' && typeof f.id === 'number') {
      const entry = pending.get(f.id);
      if (!entry) return;
      pending.delete(f.id);
      const result = f.result as { ok?: unknown } | null;
      if (result && typeof result === 'object' && typeof result.ok === 'boolean') entry.resolve(result as Result<unknown>);
      else entry.resolve({ ok: false, error: { code: 'INTERNAL', message: 'The backend sent a malformed answer.', retryable: false } });
      return;
    }
    if (f.kind === 'event' && isEventName(f.event)) {
      for (const listener of [...listeners]) {
        try {
          listener(f.event, f.payload);
        } catch {
          // One broken screen must not stop the others from hearing about changes.
        }
      }
    }
  }

  function scheduleReconnect(): void {
    if (disposed || retryTimer) return;
    const attempt = state.attempt + 1;
    const delay = backoffDelayMs(attempt, minDelayMs, maxDelayMs, random());
    setState({ attempt, nextRetryAt: now() + delay });
    retryTimer = setTimeout(() => {
      retryTimer = null;
      connect();
    }, delay);
  }

  function connect(): void {
    if (disposed) return;
    let s: WebSocketLike;
    try {
      s = createSocket(options.url);
    } catch {
      setState({ status: state.generation === 0 && state.attempt === 0 ? 'connecting' : 'lost', downSince: state.downSince ?? now() });
      scheduleReconnect();
      return;
    }
    socket = s;
    s.onopen = () => {
      if (socket !== s) return;
      setState({ status: 'open', attempt: 0, nextRetryAt: null, downSince: null, generation: state.generation + 1 });
      flushQueue();
    };
    s.onmessage = (ev) => {
      if (socket === s) handleMessage(ev.data);
    };
    s.onerror = () => undefined;
    s.onclose = () => {
      if (socket !== s) return;
      socket = null;
      failInFlight('The connection to the Windeck backend dropped before it answered; try again.');
      if (disposed) return;
      setState({ status: 'lost', downSince: state.downSince ?? now() });
      scheduleReconnect();
    };
  }

  connect();

  return {
    kind: 'websocket',
    call(method, input) {
      if (disposed) return Promise.resolve(unreachable('This window is closing.'));
      return new Promise<Result<unknown>>((resolve) => {
        if (socket?.readyState === WS_OPEN && queue.length === 0) {
          send(nextId++, method, input, { resolve });
          return;
        }
        const item: Queued = {
          method,
          input,
          resolve,
          timer: setTimeout(() => {
            const index = queue.indexOf(item);
            if (index >= 0) queue.splice(index, 1);
            resolve(
              unreachable(
                `Windeck's backend has not answered for ${Math.round(queueTimeoutMs / 1000)} s; it may have stopped. Check the terminal running \`windeck serve\`.`,
              ),
            );
          }, queueTimeoutMs),
        };
        queue.push(item);
      });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    connection: () => state,
    onConnection(listener) {
      connectionListeners.add(listener);
      return () => {
        connectionListeners.delete(listener);
      };
    },
    reconnectNow() {
      if (disposed || state.status === 'open') return;
      if (retryTimer) {
        clearTimeout(retryTimer);
        retryTimer = null;
      }
      if (socket) return; // an attempt is already under way
      setState({ nextRetryAt: null });
      connect();
    },
    dispose() {
      disposed = true;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
      for (const item of queue.splice(0)) {
        clearTimeout(item.timer);
        item.resolve(unreachable('This window is closing.'));
      }
      failInFlight('This window is closing.');
      const s = socket;
      socket = null;
      s?.close(1000, 'closing');
      listeners.clear();
      connectionListeners.clear();
    },
  };
}
