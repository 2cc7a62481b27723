import { setMaxListeners } from 'node:events';
import { WindeckError, isWindeckError, type WireError } from '../../../shared/contract/errors';

export type FanOutResult<T, R> = { item: T; ok: true; value: R; durationMs: number } | { item: T; ok: false; error: WireError; durationMs: number };

export interface FanOutOptions<T> {
  signal?: AbortSignal;
  /** Called as each item finishes (progress). */
  onSettled?: (done: number, total: number, item: T) => void;
}

/**
 * Run `fn` over `items` with at most `limit` in flight. One item's failure never stops the others; each result
 * says ok or the error (as it would cross the contract). Results keep the order of `items`. When `signal`
 * aborts, items not yet started end CANCELLED and running ones get the signal.
 */
export async function fanOut<T, R>(items: readonly T[], limit: number, fn: (item: T, signal: AbortSignal) => Promise<R>, options: FanOutOptions<T> = {}): Promise<Array<FanOutResult<T, R>>> {
  const bound = Math.max(1, Math.floor(limit));
  const results = new Array<FanOutResult<T, R>>(items.length);
  const signal = options.signal ?? new AbortController().signal;
  // Every item in flight listens on the shared signal (transport stages add their own listeners).
  setMaxListeners(Math.max(10, bound * 8), signal);
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (;;) {
      const i = next;
      next += 1;
      if (i >= items.length) return;
      const item = items[i]!;
      const started = Date.now();
      if (signal.aborted) {
        results[i] = { item, ok: false, error: new WindeckError('CANCELLED', 'Cancelled before it started.').toWire(), durationMs: 0 };
      } else {
        try {
          results[i] = { item, ok: true, value: await fn(item, signal), durationMs: Date.now() - started };
        } catch (error) {
          const wire = isWindeckError(error) ? (error as WindeckError).toWire() : new WindeckError('INTERNAL', (error as Error)?.message ?? String(error)).toWire();
          results[i] = { item, ok: false, error: wire, durationMs: Date.now() - started };
        }
      }
      done += 1;
      options.onSettled?.(done, items.length, item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(bound, items.length) }, worker));
  return results;
}
