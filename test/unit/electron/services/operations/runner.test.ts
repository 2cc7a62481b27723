import { afterEach, describe, expect, it } from 'vitest';
import { OperationRunner } from '../../../../../electron/services/operations/runner';
import { OperationsRepo } from '../../../../../electron/services/store/repos/operations';
import { EventBus } from '../../../../../electron/services/lib/event-bus';
import { createLogger, nullSink } from '../../../../../electron/services/lib/log';
import { openStore } from '../../../../../electron/services/store/database';
import type { OperationProgress } from '../../../../../shared/domain/operation';
import { WindeckError } from '../../../../../shared/contract/errors';
import { tempDir } from '../../../../helpers/temp-dir';
import path from 'node:path';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function setup() {
  const t = tempDir();
  const store = openStore(path.join(t.dir, 'windeck.db'));
  cleanups.push(() => {
    store.close();
    t.cleanup();
  });
  const repo = new OperationsRepo(store.db);
  const events = new EventBus();
  const seen: OperationProgress[] = [];
  events.subscribe((event, payload) => {
    if (event === 'ops:progress') seen.push(payload as OperationProgress);
  });
  return { repo, events, seen, runner: new OperationRunner(repo, events, createLogger(nullSink)), store };
}

describe('OperationRunner', () => {
  it('runs work, stores progress and the result, and emits a terminal event', async () => {
    const { runner, seen } = setup();
    const op = runner.start({ kind: 'probe', title: 'Probe win-1', node: 'win-1', steps: 2 }, async (ctx) => {
      ctx.progress({ step: { index: 1, count: 2, title: 'services' }, fraction: 0.5 });
      return { ok: 42 };
    });
    await expect(op.done).resolves.toEqual({ ok: 42 });
    const record = runner.get(op.operationId);
    expect(record).toMatchObject({ state: 'succeeded', fraction: 1, result: { ok: 42 }, node: 'win-1' });
    expect(seen.map((p) => p.state)).toEqual(['running', 'running', 'succeeded']);
    expect(op.operationId).toMatch(/^op-[a-z0-9-]{6,64}$/);
  });

  it('cancels for real: the signal fires, the state is cancelled and never changes again', async () => {
    const { runner } = setup();
    let sawAbort = false;
    let started: () => void = () => undefined;
    const isStarted = new Promise<void>((r) => (started = r));
    const op = runner.start({ kind: 'collect', title: 'Collect' }, (ctx) => {
      started();
      return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => ((sawAbort = true), reject(new Error('aborted')))));
    });
    await isStarted;
    expect(runner.cancel(op.operationId)).toBe(true);
    await expect(op.done).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(sawAbort).toBe(true);
    expect(runner.get(op.operationId)).toMatchObject({ state: 'cancelled', error: { code: 'CANCELLED' } });
    expect(runner.cancel(op.operationId)).toBe(false);
  });

  it('times out work that ignores its signal and says which step expired', async () => {
    const { runner } = setup();
    const op = runner.start({ kind: 'probe', title: 'Slow probe', timeoutMs: 50 }, async (ctx) => {
      ctx.progress({ step: { index: 1, count: 1, title: 'waiting for HNS' } });
      await new Promise(() => undefined);
    });
    const error = (await op.done.catch((e: unknown) => e)) as WindeckError;
    expect(error.code).toBe('TIMEOUT');
    expect(error.context?.step).toBe('waiting for HNS');
    expect(runner.get(op.operationId)?.state).toBe('timed-out');
  });

  it('records a WindeckError as failed with its code, and other throws as INTERNAL', async () => {
    const { runner } = setup();
    const a = runner.start({ kind: 'probe', title: 'A' }, async () => {
      throw new WindeckError('UNREACHABLE', 'win-1 did not answer on 127.0.10.11:22.');
    });
    await expect(a.done).rejects.toMatchObject({ code: 'UNREACHABLE' });
    expect(runner.get(a.operationId)).toMatchObject({ state: 'failed', error: { code: 'UNREACHABLE' } });
    const b = runner.start({ kind: 'probe', title: 'B' }, async () => {
      throw new TypeError('x is undefined');
    });
    await expect(b.done).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('marks rows of a dead process as interrupted and leaves a live one alone', () => {
    const { repo } = setup();
    const base = { kind: 'probe' as const, title: 't', state: 'running' as const, step: { index: 0, count: 1, title: 't' }, fraction: null, node: null, cluster: null, at: 1, startedAt: 1 };
    repo.insert({ ...base, operationId: 'op-dead-000001' });
    repo.insert({ ...base, operationId: 'op-live-000001' });
    // Both rows carry this pid; pretend only the second belongs to a live process.
    const count = repo.markInterrupted(2, () => false);
    expect(count).toBe(2);
    expect(repo.get('op-dead-000001')).toMatchObject({ state: 'failed', error: { code: 'CANCELLED' } });
    repo.insert({ ...base, operationId: 'op-live-000002' });
    expect(repo.markInterrupted(3, () => true)).toBe(0);
    expect(repo.get('op-live-000002')?.state).toBe('running');
  });
});
