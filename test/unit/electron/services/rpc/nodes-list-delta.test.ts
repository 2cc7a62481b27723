import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NodeListResult } from '../../../../../shared/contract/methods/nodes';
import { ProbeResultsRepo } from '../../../../../electron/services/store/repos/probe-results';
import { NodesRepo } from '../../../../../electron/services/store/repos/nodes';
import { parseNodeCursor } from '../../../../../electron/services/rpc/handlers/nodes';
import { probeRun } from '../../../../helpers/probe-run';
import { testServices } from '../../../../helpers/services';
import { nodeModel, seedCluster } from '../../../renderer/seed';

let env: ReturnType<typeof testServices>;
beforeEach(() => {
  env = testServices();
});
afterEach(async () => {
  await env.cleanup();
});

async function list(input: Record<string, unknown>): Promise<NodeListResult> {
  const r = await env.services.dispatch('nodes:list', input);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value as NodeListResult;
}

const names = (r: NodeListResult) => r.nodes.map((n) => n.name);

function probe(clusterId: string, node: string, startedAt: number) {
  new ProbeResultsRepo(env.services.core.store.db).insert(
    probeRun({
      clusterId,
      node,
      probeId: 'services',
      parsed: { services: [{ name: 'kubelet', displayName: 'kubelet', status: 'Running', startType: 'Automatic' }], missing: [] },
      startedAt,
    }),
  );
}

describe('nodes:list since', () => {
  it('answers everything with a cursor, then only what changed after it', async () => {
    const id = seedCluster(env.services, { nodes: ['a', 'b', 'c'].map((n) => nodeModel(n)) });
    probe(id, 'b', 1_000);
    const first = await list({});
    expect(first.full).toBe(true);
    expect(names(first)).toEqual(['a', 'b', 'c']);
    expect(first.removed).toEqual([]);
    expect(Object.keys(first.probes)).toEqual(['b']);
    expect(parseNodeCursor(first.cursor)?.clusterId).toBe(id);

    // Nothing changed: an empty delta with the same cursor.
    const idle = await list({ since: first.cursor });
    expect(idle).toMatchObject({ full: false, nodes: [], removed: [], cursor: first.cursor });
    expect(idle.cluster?.id).toBe(id);

    const repo = env.services.core.repos.nodes;
    repo.upsertMany(id, [nodeModel('b', { containerRuntime: 'containerd://2.0.0' })]);
    repo.remove(id, 'c');
    repo.upsertMany(id, [nodeModel('d')]);
    const delta = await list({ since: first.cursor });
    expect(delta.full).toBe(false);
    expect(names(delta)).toEqual(['b', 'd']);
    expect(delta.nodes[0]!.containerRuntime).toBe('containerd://2.0.0');
    // Changed rows keep their probe brief.
    expect(Object.keys(delta.probes)).toEqual(['b']);
    expect(delta.probes.b!.services).toEqual({ kubelet: 'Running' });
    expect(delta.removed).toEqual(['c']);
    expect(delta.cursor).not.toBe(first.cursor);

    const next = await list({ since: delta.cursor });
    expect(next).toMatchObject({ full: false, nodes: [], removed: [] });
  });

  it('answers in full for a cursor of another cluster, another store, a garbled one, or one older than the prune point', async () => {
    const c1 = seedCluster(env.services, { id: 'one', name: 'one', nodes: [nodeModel('a'), nodeModel('b')] });
    const c2 = seedCluster(env.services, { id: 'two', name: 'two', nodes: [nodeModel('x')] });
    const one = await list({ cluster: c1 });
    const switched = await list({ cluster: c2, since: one.cursor });
    expect(switched.full).toBe(true);
    expect(names(switched)).toEqual(['x']);

    const cursor = parseNodeCursor(one.cursor)!;
    const foreign = await list({ cluster: c1, since: `n1.00000000deadbeef.${cursor.rev}.${c1}` });
    expect(foreign.full).toBe(true);
    expect(names(foreign)).toEqual(['a', 'b']);
    expect((await list({ cluster: c1, since: 'garbage' })).full).toBe(true);
    // A cursor from the future (a store that was reset) is not trusted either.
    expect((await list({ cluster: c1, since: `n1.${cursor.epoch}.${cursor.rev + 1000}.${c1}` })).full).toBe(true);

    // Prune: with a small cap, removals push the prune point past the old cursor.
    const small = new NodesRepo(env.services.core.store.db, { tombstonesMax: 2 });
    small.replaceAll(
      c1,
      ['a', 'b', 'c', 'd', 'e'].map((n) => nodeModel(n)),
    );
    for (const n of ['a', 'b', 'c']) small.remove(c1, n);
    const stale = await list({ cluster: c1, since: one.cursor });
    expect(stale.full).toBe(true);
    expect(stale.removed).toEqual([]);
    expect(names(stale)).toEqual(['d', 'e']);
    // The fresh cursor deltas again.
    small.remove(c1, 'd');
    const after = await list({ cluster: c1, since: stale.cursor });
    expect(after).toMatchObject({ full: false, nodes: [], removed: ['d'] });
  });

  it('follows the active cluster: a cursor of the old active cluster gets the new one in full', async () => {
    seedCluster(env.services, { id: 'one', name: 'one', nodes: [nodeModel('a')] });
    seedCluster(env.services, { id: 'two', name: 'two', nodes: [nodeModel('x'), nodeModel('y')] });
    env.services.core.repos.settings.set('activeCluster', 'one');
    const one = await list({});
    expect(one.cluster?.id).toBe('one');
    env.services.core.repos.settings.set('activeCluster', 'two');
    const two = await list({ since: one.cursor });
    expect(two.cluster?.id).toBe('two');
    expect(two.full).toBe(true);
    expect(names(two)).toEqual(['x', 'y']);
  });

  it('answers an empty store with a cursor, and rejects a bad since', async () => {
    const empty = await list({});
    expect(empty).toMatchObject({ cluster: null, nodes: [], full: true, removed: [] });
    const again = await list({ since: empty.cursor });
    expect(again.cluster).toBeNull();
    const bad = await env.services.dispatch('nodes:list', { since: '' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.code).toBe('VALIDATION');
  });
});
