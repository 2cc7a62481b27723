import crypto from 'node:crypto';
import { WindeckError, isWindeckError, type WireError } from '../../../shared/contract/errors';
import { OPERATION_DEFAULT_TIMEOUT_MS, OPERATION_PROGRESS_MIN_INTERVAL_MS } from '../../../shared/domain/limits';
import { TERMINAL_STATES, type OperationKind, type OperationProgress, type OperationRecord, type OperationState } from '../../../shared/domain/operation';
import type { EventBus } from '../lib/event-bus';
import type { Logger } from '../lib/log';
import type { OperationsRepo } from '../store/repos/operations';

/** What a piece of long work gets: a signal (cancel + timeout joined) and a way to report progress. */
export interface OperationContext {
  operationId: string;
  signal: AbortSignal;
  /** Report progress; throttled to ~10/s for events, always kept for the final state. */
  progress(update: { step?: { index: number; count: number; title: string }; fraction?: number | null; message?: string }): void;
  /** Throws CANCELLED/TIMEOUT when the signal fired; call between steps. */
  throwIfAborted(): void;
}

export interface OperationSpec {
  kind: OperationKind;
  title: string;
  cluster?: string | null;
  node?: string | null;
  timeoutMs?: number;
  steps?: number;
  /** Abort together with this signal too (e.g. the CLI's Ctrl-C). */
  signal?: AbortSignal;
}

export interface StartedOperation<T> {
  operationId: string;
  /** Settles with the value, or rejects with a WindeckError (CANCELLED, TIMEOUT, ...). Never left hanging. */
  done: Promise<T>;
}

interface Running {
  controller: AbortController;
  done: Promise<unknown>;
}

function newId(): string {
  return `op-${Date.now().toString(36)}-${crypto.randomBytes(5).toString('hex')}`;
}

function toWire(error: unknown, logRef: string): WireError {
  if (isWindeckError(error)) return (error as WindeckError).toWire();
  return { code: 'INTERNAL', message: `Something went wrong inside Windeck (log reference ${logRef}).`, retryable: false, context: { logRef } };
}

/**
 * Runs long work as operations (STYLE.md section 5): ids, stored progress, cancel, timeout, a terminal state that
 * never changes, events for every connected host.
 */
export class OperationRunner {
  private readonly running = new Map<string, Running>();
  private disposed = false;

  constructor(
    private readonly repo: OperationsRepo,
    private readonly events: EventBus,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start<T>(spec: OperationSpec, work: (ctx: OperationContext) => Promise<T>): StartedOperation<T> {
    if (this.disposed) throw new WindeckError('CANCELLED', 'Windeck is shutting down; the operation was not started.');
    const operationId = newId();
    const controller = new AbortController();
    const timeoutMs = spec.timeoutMs ?? OPERATION_DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signals = [controller.signal, timeout, ...(spec.signal ? [spec.signal] : [])];
    const signal = AbortSignal.any(signals);
    const startedAt = this.now();
    let current: OperationProgress = {
      operationId,
      kind: spec.kind,
      title: spec.title,
      state: 'running',
      step: { index: 0, count: spec.steps ?? 1, title: spec.title },
      fraction: null,
      node: spec.node ?? null,
      cluster: spec.cluster ?? null,
      at: startedAt,
      startedAt,
    };
    this.repo.insert(current);
    this.publish(current);
    let lastEmit = startedAt;

    const abortError = (): WindeckError => {
      if (timeout.aborted && !controller.signal.aborted) {
        return new WindeckError('TIMEOUT', `${spec.title} did not finish within ${Math.round(timeoutMs / 1000)} s.`, {
          operationId,
          step: current.step.title,
          ...(spec.node ? { node: spec.node } : {}),
        });
      }
      return new WindeckError('CANCELLED', `${spec.title} was cancelled.`, { operationId, ...(spec.node ? { node: spec.node } : {}) });
    };

    const ctx: OperationContext = {
      operationId,
      signal,
      progress: (update) => {
        if (TERMINAL_STATES.has(current.state)) return;
        current = {
          ...current,
          ...(update.step ? { step: update.step } : {}),
          ...(update.fraction !== undefined ? { fraction: update.fraction } : {}),
          ...(update.message !== undefined ? { message: update.message } : {}),
          at: this.now(),
        };
        if (current.at - lastEmit >= OPERATION_PROGRESS_MIN_INTERVAL_MS || update.step) {
          lastEmit = current.at;
          this.repo.update(current);
          this.publish(current);
        }
      },
      throwIfAborted: () => {
        if (signal.aborted) throw abortError();
      },
    };

    const finish = (state: OperationState, outcome: { result?: unknown; error?: WireError }) => {
      current = { ...current, state, at: this.now(), ...(state === 'succeeded' ? { fraction: 1 } : {}) };
      if (outcome.error) current.message = outcome.error.message;
      this.repo.finish(current, outcome);
      this.publish(current);
      this.running.delete(operationId);
    };

    // Abort must settle the operation even when the work ignores its signal.
    let rejectOnAbort: (e: unknown) => void = () => undefined;
    const aborted = new Promise<never>((_, reject) => {
      rejectOnAbort = reject;
    });
    const onAbort = () => rejectOnAbort(abortError());
    signal.addEventListener('abort', onAbort, { once: true });

    const done = (async () => {
      try {
        const value = await Promise.race([
          Promise.resolve().then(() => {
            // Cancelled before it began: the work never starts.
            if (signal.aborted) throw abortError();
            return work(ctx);
          }),
          aborted,
        ]);
        finish('succeeded', { result: value });
        return value;
      } catch (error) {
        const wire = signal.aborted ? abortError().toWire() : toWire(error, operationId);
        if (!isWindeckError(error) && !signal.aborted) this.log.error('operation failed', { operationId, kind: spec.kind, error: String((error as Error)?.stack ?? error) });
        const state: OperationState = wire.code === 'CANCELLED' ? 'cancelled' : wire.code === 'TIMEOUT' ? 'timed-out' : 'failed';
        finish(state, { error: wire });
        throw signal.aborted ? abortError() : isWindeckError(error) ? error : new WindeckError(wire.code, wire.message, wire.context, { cause: error });
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    })();
    // Callers may ignore `done`; an unobserved rejection must not crash the process.
    done.catch(() => undefined);
    this.running.set(operationId, { controller, done });
    return { operationId, done };
  }

  cancel(operationId: string): boolean {
    const entry = this.running.get(operationId);
    if (!entry) return false;
    entry.controller.abort();
    return true;
  }

  isRunning(operationId: string): boolean {
    return this.running.has(operationId);
  }

  get(operationId: string): OperationRecord | null {
    return this.repo.get(operationId);
  }

  list(limit: number): OperationRecord[] {
    return this.repo.list(limit);
  }

  /** Cancel everything and wait (bounded) for the work to settle. */
  async dispose(graceMs: number): Promise<void> {
    this.disposed = true;
    const all = [...this.running.values()];
    for (const entry of all) entry.controller.abort();
    await Promise.race([Promise.allSettled(all.map((e) => e.done)), new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
  }

  private publish(progress: OperationProgress): void {
    this.events.emit('ops:progress', progress);
  }
}
