import { parentPort } from 'node:worker_threads';
import { WindeckError } from '../../../shared/contract/windeck-error';
import { redactLogEntry, type LogEntryTask } from './entry-pipeline';

/**
 * Worker thread of the bundle's redaction pool (worker-pool.ts): runs `redactLogEntry` for one entry at a time
 * with standard redaction (strict redaction shares a pseudonym table and stays in the main thread). Messages:
 * `{ type: 'run', id, task }` and `{ type: 'cancel', id }` in; `{ id, ok: true, result }` or
 * `{ id, ok: false, error: { code, message } }` out.
 */

const running = new Map<number, AbortController>();

parentPort?.on('message', (message: { type: 'run'; id: number; task: LogEntryTask } | { type: 'cancel'; id: number }) => {
  if (message.type === 'cancel') {
    running.get(message.id)?.abort();
    return;
  }
  const controller = new AbortController();
  running.set(message.id, controller);
  redactLogEntry(message.task, { level: 'standard', pseudonyms: null }, { signal: controller.signal })
    .then((result) => parentPort?.postMessage({ id: message.id, ok: true, result }))
    .catch((error: unknown) => {
      const code = error instanceof WindeckError ? error.code : 'INTERNAL';
      parentPort?.postMessage({ id: message.id, ok: false, error: { code, message: error instanceof Error ? error.message : String(error) } });
    })
    .finally(() => running.delete(message.id));
});
