import type { ErrorCode } from '../../shared/contract/errors';
import type { EventName } from '../../shared/contract/events';
import type { Result } from '../../shared/contract/result';
import { IPC_CHANNELS } from './channels';

/**
 * The `window.windeck` object, built from a minimal IPC port so it is testable without Electron. Its shape matches
 * `WindeckBridge` in renderer/api/transport.ts: `call`, `subscribe`, `contractVersion`. No raw ipcRenderer, no
 * IPC event object and no channel choice ever reach the page.
 */

/** The part of Electron's ipcRenderer the bridge uses. */
export interface IpcRendererPort {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  send(channel: string, ...args: unknown[]): void;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/** Same shape as `WindeckBridge` (renderer/api/transport.ts); only types are imported, so no zod is bundled. */
export interface WindeckBridgeApi {
  call(method: string, input: unknown): Promise<Result<unknown>>;
  subscribe(listener: (event: EventName, payload: unknown) => void): () => void;
  readonly contractVersion: number;
}

/** Method names look like `domain:verb`; anything else never leaves the renderer. */
const METHOD_NAME = /^[a-z][a-z0-9-]{0,40}:[a-z][a-z0-9-]{0,40}$/;

function failure(code: ErrorCode, message: string): Result<unknown> {
  return { ok: false, error: { code, message, retryable: false } };
}

/** Main always answers an envelope; check the outline (the renderer's client validates values by schema). */
function isResult(value: unknown): value is Result<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { ok?: unknown; error?: unknown };
  // `value` may be absent: main sends the same JSON a WebSocket frame carries, where undefined disappears.
  if (v.ok === true) return true;
  return v.ok === false && typeof v.error === 'object' && v.error !== null && typeof (v.error as { code?: unknown }).code === 'string';
}

export function createBridge(ipc: IpcRendererPort, contractVersion: number): WindeckBridgeApi {
  const listeners = new Set<(event: EventName, payload: unknown) => void>();
  let wired = false;

  const wire = (): void => {
    if (wired) return;
    wired = true;
    // One IPC listener for the page; the IPC event object stops here.
    ipc.on(IPC_CHANNELS.event, (_ipcEvent, name, payload) => {
      if (typeof name !== 'string') return;
      for (const listener of [...listeners]) {
        try {
          listener(name as EventName, payload);
        } catch {
          // A throwing page listener must not stop the others.
        }
      }
    });
    ipc.send(IPC_CHANNELS.ready);
  };

  return {
    contractVersion,
    async call(method, input) {
      if (typeof method !== 'string' || !METHOD_NAME.test(method)) return failure('VALIDATION', 'A contract method name looks like "domain:verb".');
      try {
        const answer = await ipc.invoke(IPC_CHANNELS.call, method, input === undefined ? {} : input);
        return isResult(answer) ? answer : failure('INTERNAL', `The main process answered ${method} with something that is not a Result.`);
      } catch (error) {
        // Structured-clone failures (a function in the input) and a main process that went away land here.
        return failure('INTERNAL', `The call ${method} did not reach the Windeck backend: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
    subscribe(listener) {
      if (typeof listener !== 'function') throw new TypeError('subscribe(listener) needs a function');
      listeners.add(listener);
      wire();
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/** What can be dropped: files only, their absolute paths resolved by the preload (`webUtils.getPathForFile`). */
export function droppedPaths(files: ArrayLike<unknown> | null | undefined, pathForFile: (file: unknown) => string): string[] {
  if (!files) return [];
  const paths: string[] = [];
  for (let i = 0; i < files.length; i += 1) {
    try {
      const p = pathForFile(files[i]);
      if (typeof p === 'string' && p !== '') paths.push(p);
    } catch {
      // Not a file from disk (a dragged string or blob): ignore.
    }
  }
  return paths;
}
