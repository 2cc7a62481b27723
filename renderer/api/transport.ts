import type { EventName } from '../../shared/contract/events';
import type { Result } from '../../shared/contract/result';

/** A pushed backend event as it arrives, before the client validates the payload. */
export type RawEventListener = (event: EventName, payload: unknown) => void;

/**
 * What the Electron preload exposes as `window.windeck` (contextBridge). The preload owns the IPC; the renderer
 * only sees these two functions, so the same frames travel over IPC and over the web host's WebSocket.
 */
export interface WindeckBridge {
  /** Call one contract method. Resolves with its Result envelope; it does not reject for expected failures. */
  call(method: string, input: unknown): Promise<Result<unknown>>;
  /** Listen to pushed events (`store:changed`, `ops:progress`). Returns the function that stops listening. */
  subscribe(listener: RawEventListener): () => void;
  /** Contract version the main process speaks (CONTRACT_VERSION), when the preload knows it. */
  readonly contractVersion?: number;
}

declare global {
  interface Window {
    windeck?: WindeckBridge;
  }
}

/** How the renderer is connected to the backend right now. */
export interface ConnectionState {
  /** `connecting` before the first hello, `open` while connected, `lost` after a drop (retrying). */
  status: 'connecting' | 'open' | 'lost';
  /** Reconnect attempts since the last successful connection. */
  attempt: number;
  /** Epoch ms of the next reconnect attempt, null when none is scheduled. */
  nextRetryAt: number | null;
  /** Contract version announced by the backend, null until known. */
  contractVersion: number | null;
  /** Epoch ms since when the connection has been down, null while open. */
  downSince: number | null;
  /** Times the connection was (re)opened; a change means events may have been missed. */
  generation: number;
}

/** One way of reaching the backend: IPC (Electron), WebSocket (web host), or in-process (tests). */
export interface Transport {
  readonly kind: 'ipc' | 'websocket' | 'in-process';
  call(method: string, input: unknown): Promise<Result<unknown>>;
  subscribe(listener: RawEventListener): () => void;
  connection(): ConnectionState;
  onConnection(listener: (state: ConnectionState) => void): () => void;
  /** Try to reconnect now instead of waiting for the backoff (no-op where there is nothing to reconnect). */
  reconnectNow(): void;
  dispose(): void;
}

const OPEN_STATE: ConnectionState = { status: 'open', attempt: 0, nextRetryAt: null, contractVersion: null, downSince: null, generation: 1 };

/** Transport over the Electron preload bridge: IPC does not drop, so it is always open. */
export function createIpcTransport(bridge: WindeckBridge): Transport {
  const state: ConnectionState = { ...OPEN_STATE, contractVersion: bridge.contractVersion ?? null };
  return {
    kind: 'ipc',
    call: (method, input) => bridge.call(method, input),
    subscribe: (listener) => bridge.subscribe(listener),
    connection: () => state,
    onConnection: () => () => undefined,
    reconnectNow: () => undefined,
    dispose: () => undefined,
  };
}

/** `ws(s)://<same host>/api/ws` for a page served by the web host. */
export function webSocketUrlFor(location: Pick<Location, 'protocol' | 'host'>): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/api/ws`;
}
