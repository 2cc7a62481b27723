import type { EventName } from '../../shared/contract/events';
import type { Result } from '../../shared/contract/result';
import type { CallContext } from '../services/rpc/handler';
import { IPC_CHANNELS } from '../preload/channels';
import { isTrustedSender } from './policies';

/**
 * The one IPC entry of the desktop app (DESIGN.md section 1). Every message is checked against its sender frame
 * (top frame of our `windeck://app/` page, in one of our windows) before anything else; then the arguments go to
 * the services' `dispatch`, which parses them with the contract's zod schemas. Events are forwarded to a window
 * only after its page said it listens (`windeck:ready`).
 *
 * Electron's ipcMain is behind the small port below, so the checks are tested under Node with fakes.
 */

/** The frame an IPC message came from (Electron's WebFrameMain, reduced). Null once the frame is gone. */
export interface SenderFrame {
  readonly url: string;
  readonly parent: unknown;
}

/** The webContents an IPC message came from (reduced). */
export interface SenderContents {
  readonly id: number;
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
  getURL(): string;
  once(event: 'destroyed', listener: () => void): unknown;
}

export interface IpcSenderEvent {
  readonly senderFrame: SenderFrame | null;
  readonly sender: SenderContents;
}

/** The part of Electron's ipcMain the bridge uses. */
export interface IpcMainPort {
  handle(channel: string, listener: (event: IpcSenderEvent, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
  on(channel: string, listener: (event: IpcSenderEvent, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: IpcSenderEvent, ...args: unknown[]) => void): unknown;
}

/** What the bridge needs of the services (a subset of `createServices`' answer). */
export interface BridgeServices {
  dispatch(method: string, input: unknown, ctx?: CallContext): Promise<Result<unknown>>;
  events: { subscribe(listener: (event: EventName, payload: unknown) => void): () => void };
}

export interface BridgeLog {
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface IpcBridgeOptions {
  ipcMain: IpcMainPort;
  services: BridgeServices;
  /** True for the webContents of our own windows (the window registry in main.ts). */
  isOwnContents(contents: SenderContents): boolean;
  /** Files dropped on a trusted window (already sender-checked; the paths still need validating). */
  onDrop?(paths: unknown, contents: SenderContents): void;
  log: BridgeLog;
}

export interface IpcBridge {
  /** Webcontents ids that currently receive events. */
  readonly forwarding: ReadonlySet<number>;
  dispose(): void;
}

/** Why a message was refused, for the log; null when the sender is trusted. */
export function refusalReason(event: IpcSenderEvent, isOwnContents: (contents: SenderContents) => boolean): string | null {
  const frame = event.senderFrame;
  if (!frame) return 'the sending frame is gone';
  if (frame.parent !== null && frame.parent !== undefined) return 'the message came from a subframe';
  if (!isTrustedSender(frame.url)) return 'the sending frame is not a windeck://app page';
  if (!isOwnContents(event.sender)) return 'the message came from a webContents that is not a Windeck window';
  return null;
}

/** What the renderer receives: the same JSON a WebSocket frame would carry (Dates become strings, etc.). */
function toWire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value ?? null)) as T;
}

function short(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, 200) : typeof value;
}

export function createIpcBridge(options: IpcBridgeOptions): IpcBridge {
  const { ipcMain, services, isOwnContents, log } = options;
  const controller = new AbortController();
  const forwarding = new Map<number, () => void>();

  const refuse = (channel: string, event: IpcSenderEvent, reason: string, detail?: unknown): void => {
    log.warn('refused IPC message', { channel, reason, frameUrl: short(event.senderFrame?.url ?? null), detail: short(detail) });
  };

  const onCall = async (event: IpcSenderEvent, method: unknown, input: unknown): Promise<Result<unknown>> => {
    const reason = refusalReason(event, isOwnContents);
    if (reason) {
      refuse(IPC_CHANNELS.call, event, reason, method);
      return { ok: false, error: { code: 'PERMISSION_DENIED', message: 'This frame may not call the Windeck backend.', retryable: false } };
    }
    if (typeof method !== 'string') return { ok: false, error: { code: 'VALIDATION', message: 'A contract call needs a method name.', retryable: false } };
    const result = await services.dispatch(method, input, { host: 'electron', signal: controller.signal });
    try {
      return toWire(result);
    } catch {
      return { ok: false, error: { code: 'INTERNAL', message: `The answer to ${method} could not be serialised.`, retryable: false } };
    }
  };

  const stopForwarding = (id: number): void => {
    const unsubscribe = forwarding.get(id);
    if (!unsubscribe) return;
    forwarding.delete(id);
    unsubscribe();
  };

  const onReady = (event: IpcSenderEvent): void => {
    const reason = refusalReason(event, isOwnContents);
    if (reason) return refuse(IPC_CHANNELS.ready, event, reason);
    const contents = event.sender;
    if (forwarding.has(contents.id)) return; // a reload says ready again; one subscription per window
    const unsubscribe = services.events.subscribe((name, payload) => {
      if (contents.isDestroyed()) return stopForwarding(contents.id);
      // Never push to a page that is not ours any more (navigation is denied, but check at the edge anyway).
      if (!isTrustedSender(contents.getURL())) return;
      contents.send(IPC_CHANNELS.event, name, toWire(payload));
    });
    forwarding.set(contents.id, unsubscribe);
    contents.once('destroyed', () => stopForwarding(contents.id));
  };

  const onDrop = (event: IpcSenderEvent, paths: unknown): void => {
    const reason = refusalReason(event, isOwnContents);
    if (reason) return refuse(IPC_CHANNELS.drop, event, reason);
    options.onDrop?.(paths, event.sender);
  };

  ipcMain.handle(IPC_CHANNELS.call, (event, method, input) => onCall(event, method, input));
  ipcMain.on(IPC_CHANNELS.ready, onReady);
  ipcMain.on(IPC_CHANNELS.drop, onDrop);

  return {
    get forwarding() {
      return new Set(forwarding.keys());
    },
    dispose() {
      controller.abort();
      ipcMain.removeHandler(IPC_CHANNELS.call);
      ipcMain.removeListener(IPC_CHANNELS.ready, onReady);
      ipcMain.removeListener(IPC_CHANNELS.drop, onDrop);
      for (const id of [...forwarding.keys()]) stopForwarding(id);
    },
  };
}
