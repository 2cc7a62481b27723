// @vitest-environment happy-dom
import { cleanup, fireEvent, render, renderHook, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WindeckClient } from '../../../../../renderer/api/client';
import { ClientProvider } from '../../../../../renderer/api/client-context';
import { App } from '../../../../../renderer/app/app';
import { useOperation } from '../../../../../renderer/features/operations/use-operation';
import { mergeProgress } from '../../../../../renderer/features/operations/operation-view';
import { testServices } from '../../../../helpers/services';
import { waitFor } from '../../../../helpers/temp-dir';
import { inProcessTransport } from '../../in-process-transport';
import { nodeModel, seedCluster } from '../../seed';

let env: ReturnType<typeof testServices>;
beforeEach(() => {
  env = testServices();
  window.location.hash = '#/activity';
  window.localStorage.clear();
});
afterEach(async () => {
  cleanup();
  await env.cleanup();
});

/** Real long work: waits until released or aborted, reporting progress on the way. */
function startWork(title: string, node: string | null = null) {
  let release: (v: string) => void = () => undefined;
  const gate = new Promise<string>((r) => (release = r));
  const started = env.services.core.ops.start({ kind: 'probe', title, node, steps: 3 }, async (ctx) => {
    ctx.progress({ step: { index: 1, count: 3, title: 'reading services' }, fraction: 0.4, message: 'kubelet: Running' });
    const aborted = new Promise<never>((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    return Promise.race([gate, aborted]);
  });
  return { ...started, release };
}

describe('activity list', () => {
  it('shows live progress, cancels a running operation and shows the outcome', async () => {
    seedCluster(env.services, { nodes: [nodeModel('win-1')] });
    const client = new WindeckClient(inProcessTransport(env.services));
    render(<App client={client} />);
    await screen.findByRole('heading', { name: 'Activity' });
    const op = startWork('Probe win-1', 'win-1');
    const item = await screen.findByRole('listitem', { name: 'Probe win-1: running' });
    const bar = within(item).getByRole('progressbar', { name: 'Progress of Probe win-1' });
    await waitFor(() => bar.getAttribute('aria-valuenow') === '40');
    expect(within(item).getByText('kubelet: Running')).toBeTruthy();
    fireEvent.click(within(item).getByRole('button', { name: 'Cancel Probe win-1' }));
    await screen.findByRole('listitem', { name: 'Probe win-1: cancelled' });
    await expect(op.done).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('lists operations run before the window opened (from the store)', async () => {
    const op = startWork('Earlier sync');
    op.release('done');
    await op.done;
    render(<App client={new WindeckClient(inProcessTransport(env.services))} />);
    await screen.findByRole('listitem', { name: 'Earlier sync: succeeded' });
  });
});

describe('useOperation', () => {
  it('follows one operation from events and reads its outcome when it ends', async () => {
    const client = new WindeckClient(inProcessTransport(env.services));
    const wrapper = ({ children }: { children: ReactNode }) => <ClientProvider client={client}>{children}</ClientProvider>;
    const op = startWork('Diagnose win-2', 'win-2');
    const { result } = renderHook(() => useOperation(op.operationId), { wrapper });
    await waitFor(() => result.current.op?.fraction === 0.4);
    op.release('42 findings');
    await waitFor(() => result.current.op?.state === 'succeeded' && result.current.op.result === '42 findings');
    expect(result.current.op?.fraction).toBe(1);
  });

  it('never lets a late event overwrite a terminal state', () => {
    const base = {
      operationId: 'op-abcdef',
      kind: 'probe' as const,
      title: 't',
      step: { index: 0, count: 1, title: 't' },
      fraction: 1,
      node: null,
      cluster: null,
      startedAt: 1,
    };
    const done = mergeProgress(undefined, { ...base, state: 'succeeded', at: 10 });
    expect(mergeProgress(done, { ...base, state: 'running', at: 11 }).state).toBe('succeeded');
    const running = mergeProgress(undefined, { ...base, state: 'running', at: 10 });
    expect(mergeProgress(running, { ...base, state: 'running', fraction: 0.1, at: 5 }).fraction).toBe(1);
  });
});
