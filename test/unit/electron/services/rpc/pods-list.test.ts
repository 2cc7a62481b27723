import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PodListResult } from '../../../../../shared/contract/methods/pods';
import { PodsRepo } from '../../../../../electron/services/store/repos/pods';
import type { PodProjection } from '../../../../../electron/services/kube/projections';
import { testServices } from '../../../../helpers/services';
import { nodeModel } from '../../../renderer/seed';

// `pods:list` over a real SQLite file with 50,000 pods: a window, the matching total, filters and sorts in SQL.
const POD_COUNT = 50_000;
const NAMESPACES = ['default', 'kube-system', 'shop', 'web'];
const PHASES = ['Running', 'Running', 'Running', 'Pending', 'Failed', 'Succeeded'];

let env: ReturnType<typeof testServices>;

function pod(i: number): PodProjection {
  return {
    namespace: NAMESPACES[i % NAMESPACES.length]!,
    name: `pod-${String(i).padStart(5, '0')}`,
    uid: null,
    node: i % 10 === 9 ? null : `node-${i % 9}`,
    phase: PHASES[i % PHASES.length]!,
    status: PHASES[i % PHASES.length]!,
    readyCount: 1,
    containerCount: 1,
    restarts: i % 13,
    podIP: null,
    ownerKind: 'ReplicaSet',
    ownerName: 'rs',
    createdAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
  };
}

async function list(input: Record<string, unknown>): Promise<PodListResult> {
  const r = await env.services.dispatch('pods:list', input);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value as PodListResult;
}

beforeAll(() => {
  env = testServices();
  const { clusters, nodes, settings } = env.services.core.repos;
  clusters.upsert({ id: 'c1', name: 'c1', context: 'c1', server: 'https://127.0.0.1:6443', kubeconfigPath: null, simulated: true }, 1);
  // node-0..node-5 Windows, node-6..node-8 Linux.
  nodes.upsertMany(
    'c1',
    Array.from({ length: 9 }, (_, i) => nodeModel(`node-${i}`, { os: i < 6 ? 'windows' : 'linux' })),
  );
  settings.set('activeCluster', 'c1');
  new PodsRepo(env.services.core.store.db).replaceAll(
    'c1',
    Array.from({ length: POD_COUNT }, (_, i) => pod(i)),
  );
});
afterAll(async () => {
  await env.cleanup();
});

describe('pods:list', () => {
  it('answers a window and the total, sorted by namespace and name by default, with each pod’s node OS', async () => {
    const r = await list({ offset: 0, limit: 3 });
    expect(r.total).toBe(POD_COUNT);
    expect(r.offset).toBe(0);
    expect(r.namespaces).toEqual(NAMESPACES);
    expect(r.pods.map((p) => `${p.namespace}/${p.name}`)).toEqual(['default/pod-00000', 'default/pod-00004', 'default/pod-00008']);
    expect(r.pods[0]).toMatchObject({ node: 'node-0', os: 'windows', phase: 'Running', restarts: 0 });
    const late = await list({ offset: POD_COUNT - 2, limit: 10 });
    expect(late.pods.map((p) => `${p.namespace}/${p.name}`)).toEqual(['web/pod-49995', 'web/pod-49999']);
    expect(late.pods[1]).toMatchObject({ node: null, os: null });
  });

  it('filters in SQL: search, namespace, node, phase, problems, OS', async () => {
    const search = await list({ search: 'POD-0001', limit: 100 });
    expect(search.total).toBe(10);
    expect((await list({ search: '%', limit: 1 })).total).toBe(0);
    expect((await list({ namespace: 'shop', limit: 1 })).total).toBe(POD_COUNT / 4);
    const onNode = await list({ node: 'node-3', limit: 1000 });
    expect(onNode.pods.every((p) => p.node === 'node-3')).toBe(true);
    expect(onNode.total).toBe(Array.from({ length: POD_COUNT }, (_, i) => pod(i)).filter((p) => p.node === 'node-3').length);
    const failed = await list({ phase: 'Failed', limit: 5 });
    expect(failed.total).toBe(Array.from({ length: POD_COUNT }, (_, i) => pod(i)).filter((p) => p.phase === 'Failed').length);
    expect(failed.pods.every((p) => p.phase === 'Failed')).toBe(true);
    const problems = await list({ phase: 'problems', limit: 1 });
    expect(problems.total).toBe(Array.from({ length: POD_COUNT }, (_, i) => pod(i)).filter((p) => p.phase === 'Pending' || p.phase === 'Failed').length);
    const windows = await list({ os: 'windows', limit: 1000 });
    expect(windows.pods.every((p) => p.os === 'windows')).toBe(true);
    expect(windows.total).toBe(Array.from({ length: POD_COUNT }, (_, i) => pod(i)).filter((p) => p.node !== null && Number(p.node.slice(5)) < 6).length);
    expect((await list({ os: 'unknown', limit: 1 })).total).toBe(POD_COUNT / 10);
  });

  it('sorts by restarts, node and age with a stable tie order', async () => {
    const most = await list({ sort: 'restarts', dir: 'desc', limit: 2 });
    expect(most.pods.map((p) => p.restarts)).toEqual([12, 12]);
    expect(most.pods[0]!.namespace <= most.pods[1]!.namespace).toBe(true);
    const youngest = await list({ sort: 'age', dir: 'asc', limit: 1 });
    expect(youngest.pods[0]!.name).toBe('pod-49999');
    const a = await list({ sort: 'node', offset: 100, limit: 50 });
    const b = await list({ sort: 'node', offset: 125, limit: 50 });
    expect(a.pods.slice(25).map((p) => p.name)).toEqual(b.pods.slice(0, 25).map((p) => p.name));
  });

  it('rejects a window larger than the cap', async () => {
    const r = await env.services.dispatch('pods:list', { limit: 5_000 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('VALIDATION');
  });

  it('stays fast at 50,000 pods: a deep window with a filter and a sort', async () => {
    await list({ offset: 0, limit: 10 });
    const started = performance.now();
    const r = await list({ offset: 40_000, limit: 200, sort: 'restarts', dir: 'desc', search: 'pod-' });
    const ms = performance.now() - started;
    expect(r.pods).toHaveLength(200);
    expect(ms).toBeLessThan(2_000);
  });
});
