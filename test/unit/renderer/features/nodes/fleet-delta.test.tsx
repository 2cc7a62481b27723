// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NodeListResult } from '../../../../../shared/contract/methods/nodes';
import { WindeckClient } from '../../../../../renderer/api/client';
import type { Transport } from '../../../../../renderer/api/transport';
import { App } from '../../../../../renderer/app/app';
import { applyNodeList } from '../../../../../renderer/features/nodes/use-node-list';
import { ProbeResultsRepo } from '../../../../../electron/services/store/repos/probe-results';
import { probeRun } from '../../../../helpers/probe-run';
import { testServices } from '../../../../helpers/services';
import { inProcessTransport } from '../../in-process-transport';
import { nodeModel, seedCluster } from '../../seed';
import { nodeListAnswer as answer, nodeSummary as summary } from '../../node-list-fixtures';

const NODE_COUNT = 2_000;
const pad = (i: number) => `node-${String(i).padStart(4, '0')}`;
let env: ReturnType<typeof testServices>;

beforeEach(() => {
  env = testServices();
  window.localStorage.clear();
  window.location.hash = '';
});
afterEach(async () => {
  cleanup();
  await env.cleanup();
});

/** The in-process transport, noting each `nodes:list` call and its answer. */
function recording(): { transport: Transport; calls: Array<{ input: Record<string, unknown>; answer: NodeListResult | null }> } {
  const inner = inProcessTransport(env.services);
  const calls: Array<{ input: Record<string, unknown>; answer: NodeListResult | null }> = [];
  return {
    calls,
    transport: {
      ...inner,
      call: async (method, input) => {
        const result = await inner.call(method, input);
        if (method === 'nodes:list')
          calls.push({ input: (input ?? {}) as Record<string, unknown>, answer: result.ok ? (result.value as NodeListResult) : null });
        return result;
      },
    },
  };
}

function row(grid: HTMLElement, name: string): HTMLElement | null {
  return (within(grid).queryByText(name)?.closest('tr') as HTMLElement | null) ?? null;
}

describe('fleet view: node deltas through the real backend', () => {
  it('applies changed and removed nodes from small deltas, keeping count, sort and summary right', async () => {
    const id = seedCluster(env.services, { nodes: Array.from({ length: NODE_COUNT }, (_, i) => nodeModel(pad(i))) });
    const { transport, calls } = recording();
    render(<App client={new WindeckClient(transport)} />);
    const grid = await screen.findByRole('grid', { name: 'Nodes' });
    await screen.findByText(`${NODE_COUNT} nodes`, {}, { timeout: 10_000 });
    expect(calls.filter((c) => c.input.since === undefined)).toHaveLength(1);

    const repo = env.services.core.repos.nodes;
    repo.upsertMany(id, [nodeModel(pad(1), { containerRuntime: 'containerd://9.9.9' }), nodeModel(pad(3), { health: 'error', reasons: ['hns is gone'] })]);
    repo.remove(id, pad(0));
    repo.upsertMany(id, [nodeModel('node-aaaa-new')]);
    env.services.core.changed(['nodes', 'clusters'], id, null);

    await waitFor(() => expect(row(grid, pad(1))?.textContent).toContain('containerd://9.9.9'), { timeout: 5_000 });
    await waitFor(() => expect(row(grid, pad(0))).toBeNull());
    expect(screen.getByText(`${NODE_COUNT} nodes`)).toBeTruthy(); // one gone, one new
    expect(row(grid, pad(3))?.textContent).toContain('hns is gone');
    // Sorted by name: the new node sorts after the numbered ones, not appended in arrival order at the top.
    const names = within(grid)
      .getAllByRole('row')
      .slice(1, 4)
      .map((r) => r.querySelector('.cell-name')?.textContent);
    expect(names).toEqual([pad(1), pad(2), pad(3)]);

    // The update came as a delta of just the changed rows, not a re-read of all 2,000.
    const deltas = calls.filter((c) => c.input.since !== undefined);
    expect(deltas.length).toBeGreaterThanOrEqual(1);
    const applied = deltas.find((c) => c.answer && c.answer.nodes.length > 0)!.answer!;
    expect(applied.full).toBe(false);
    expect(applied.nodes.map((n) => n.name).sort()).toEqual([pad(1), pad(3), 'node-aaaa-new']);
    expect(applied.removed).toEqual([pad(0)]);
    expect(calls.filter((c) => c.input.since === undefined)).toHaveLength(1);

    // Summary strip follows the delta (one node now in error).
    expect(screen.getByLabelText('Fleet summary').textContent).toContain('1 unhealthy');
  });

  it('reads everything again when probes change, and shows the new probe brief', async () => {
    const id = seedCluster(env.services, { nodes: [nodeModel('win-1'), nodeModel('win-2')] });
    const { transport, calls } = recording();
    render(<App client={new WindeckClient(transport)} />);
    const grid = await screen.findByRole('grid', { name: 'Nodes' });
    await waitFor(() => expect(row(grid, 'win-2')?.textContent).toContain('not probed yet'));
    new ProbeResultsRepo(env.services.core.store.db).insert(
      probeRun({
        clusterId: id,
        node: 'win-2',
        probeId: 'services',
        parsed: { services: [{ name: 'kube-proxy', displayName: 'kube-proxy', status: 'Stopped', startType: 'Automatic' }], missing: [] },
        startedAt: Date.now(),
      }),
    );
    env.services.core.changed(['probes'], id, 'win-2');
    await waitFor(() => expect(row(grid, 'win-2')?.textContent).not.toContain('not probed yet'), { timeout: 5_000 });
    expect(calls.filter((c) => c.input.since === undefined).length).toBeGreaterThanOrEqual(2);
  });

  it('reads everything again after a reconnect (events may have been missed)', async () => {
    const id = seedCluster(env.services, { nodes: [nodeModel('win-1')] });
    const { transport, calls } = recording();
    let state = transport.connection();
    const listeners = new Set<(s: typeof state) => void>();
    const reconnecting: Transport = { ...transport, connection: () => state, onConnection: (l) => (listeners.add(l), () => listeners.delete(l)) };
    render(<App client={new WindeckClient(reconnecting)} />);
    await screen.findByText('win-1');
    const fullsBefore = calls.filter((c) => c.input.since === undefined).length;
    // Written while the socket was down: no event reaches the screen.
    env.services.core.repos.nodes.upsertMany(id, [nodeModel('win-missed')]);
    state = { ...state, status: 'lost' };
    for (const l of listeners) l(state);
    state = { ...state, status: 'open', generation: state.generation + 1 };
    for (const l of listeners) l(state);
    await screen.findByText('win-missed', {}, { timeout: 5_000 });
    expect(calls.filter((c) => c.input.since === undefined).length).toBeGreaterThan(fullsBefore);
  });

  it('reads the other cluster in full after a switch, and deltas it from there', async () => {
    seedCluster(env.services, { id: 'one', name: 'one', nodes: [nodeModel('one-a'), nodeModel('one-b')] });
    seedCluster(env.services, { id: 'two', name: 'two', nodes: [nodeModel('two-x')] });
    env.services.core.repos.settings.set('activeCluster', 'one');
    const { transport, calls } = recording();
    render(<App client={new WindeckClient(transport)} />);
    await within(await screen.findByRole('grid', { name: 'Nodes' })).findByText('one-a');
    fireEvent.change(screen.getByLabelText('Cluster'), { target: { value: 'two' } });
    // The list for another cluster starts over (the table is mounted anew).
    await waitFor(() => expect(within(screen.getByRole('grid', { name: 'Nodes' })).getByText('two-x')).toBeTruthy(), { timeout: 5_000 });
    const grid = screen.getByRole('grid', { name: 'Nodes' });
    expect(within(grid).queryByText('one-a')).toBeNull();
    const fullTwo = calls.filter((c) => c.input.cluster === 'two' && c.input.since === undefined);
    expect(fullTwo).toHaveLength(1);

    env.services.core.repos.nodes.upsertMany('two', [nodeModel('two-y')]);
    env.services.core.changed(['nodes'], 'two', null);
    await within(grid).findByText('two-y', {}, { timeout: 5_000 });
    expect(within(grid).getByText('two-x')).toBeTruthy();
    const delta = calls.find((c) => c.input.cluster === 'two' && c.input.since !== undefined && (c.answer?.nodes.length ?? 0) > 0);
    expect(delta?.answer?.nodes.map((n) => n.name)).toEqual(['two-y']);
  });
});

describe('applyNodeList', () => {
  it('keeps unchanged row objects, replaces changed ones, drops removed ones with their probes', () => {
    const full = applyNodeList(
      null,
      answer({
        full: true,
        nodes: [summary('a'), summary('b'), summary('c')],
        probes: { c: { probedAt: 1, servicesAt: 1, servicesOk: true, services: {} } },
        cursor: 'c1',
      }),
    );
    const a = full.rows.get('a');
    const next = applyNodeList(full, answer({ nodes: [summary('b', 'containerd://2')], removed: ['c'], cursor: 'c2' }));
    expect(next.cursor).toBe('c2');
    expect(next.rows.get('a')).toBe(a);
    expect(next.rows.get('b')?.containerRuntime).toBe('containerd://2');
    expect(next.rows.has('c')).toBe(false);
    expect(next.probes.has('c')).toBe(false);
    // An empty delta keeps the maps (nothing re-renders).
    const idle = applyNodeList(next, answer({ cursor: 'c3' }));
    expect(idle.rows).toBe(next.rows);
    expect(idle.cursor).toBe('c3');
    // A full answer with equal content keeps the row objects too.
    const again = applyNodeList(next, answer({ full: true, nodes: [summary('a'), summary('b', 'containerd://2')], cursor: 'c4' }));
    expect(again.rows.get('a')).toBe(a);
    expect(again.rows.get('b')).toBe(next.rows.get('b'));
  });
});
