import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeInventory } from '../../../electron/services/kube/inventory';
import { KubeApiSimulator } from '../../../electron/sim/kube-api/server';
import { testServices } from '../../helpers/services';
import { waitFor } from '../../helpers/temp-dir';

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

type Obj = { metadata: { name: string }; status: { nodeInfo: { containerRuntimeVersion: string } } };

describe('live inventory: coalesced node events (issue 10 item 2)', () => {
  it('a burst of modifies, a delete after a modify and an add+delete in one window: the store matches the cluster, the revision cursor reports every change', async () => {
    const t = testServices();
    const sim = await new KubeApiSimulator({ cluster: { nodes: 8, windows: 5 }, bookmarkIntervalMs: 60_000 }).start();
    const kubeconfig = sim.writeKubeconfig(path.join(t.home, 'kc', 'config'));
    cleanups.push(
      () => t.cleanup(),
      () => sim.stop(),
    );
    const inventory = kubeInventory(t.services.core);
    // A long flush window so the burst below lands in one or two of them.
    const live = inventory.startLive({ kubeconfig }, { flushIntervalMs: 300 });
    cleanups.push(() => live.dispose());
    await live.synced();
    const id = live.clusterId;
    const nodes = t.services.core.repos.nodes;
    await waitFor(() => nodes.listSummaries(id).length === 8 && sim.store.watcherCount('nodes') === 1);
    const names = nodes.listSummaries(id).map((n) => n.name);
    const [busy, once, gone] = [names[0]!, names[1]!, names[2]!];
    const cursor = nodes.revState().rev;

    for (let i = 1; i <= 40; i++)
      sim.store.update('nodes', '', busy, (o) => {
        o.status.nodeInfo.containerRuntimeVersion = `containerd://1.7.20+burst.${i}`;
      });
    sim.store.update('nodes', '', once, (o) => {
      o.status.nodeInfo.containerRuntimeVersion = 'containerd://1.7.20+once';
    });
    sim.store.update('nodes', '', gone, (o) => {
      o.status.nodeInfo.containerRuntimeVersion = 'containerd://1.7.20+before-delete';
    });
    sim.store.remove('nodes', '', gone);
    sim.store.create('nodes', { metadata: { name: 'short-lived', labels: { 'kubernetes.io/os': 'linux' } }, spec: {}, status: { conditions: [] } });
    sim.store.remove('nodes', '', 'short-lived');

    await waitFor(
      () =>
        nodes.get(id, busy)?.containerRuntime === 'containerd://1.7.20+burst.40' &&
        nodes.get(id, gone) === null &&
        nodes.get(id, once)?.containerRuntime === 'containerd://1.7.20+once',
    );
    const stats = live.reflectors.nodes.stats;
    // Superseded events were dropped unparsed (the burst arrives in a few socket reads, within one flush window).
    expect(stats.coalesced).toBeGreaterThan(0);
    expect(stats.events).toBe(45);
    expect(stats.garbageLines).toBe(0);
    expect(stats.relists).toBe(0);

    // Row check, as the bench does: every stored row is the cluster's current object, no more, no fewer.
    const cluster = new Map(sim.store.list('nodes', {}).items.map((i) => [i.name, sim.store.render(i) as Obj]));
    const stored = nodes.listModels(id);
    expect(stored.map((n) => n.name).sort()).toEqual([...cluster.keys()].sort());
    for (const n of stored) expect(n.containerRuntime, n.name).toBe(cluster.get(n.name)!.status.nodeInfo.containerRuntimeVersion);

    // The revision cursor of nodes:list: both changed rows, and the deleted one; the add+delete never existed here.
    const delta = nodes.changesSince(id, cursor);
    expect(delta.changed.map((n) => n.name).sort()).toEqual([busy, once].sort());
    expect(delta.removed).toEqual([gone]);
    // The watch resumes from the newest resourceVersion.
    expect(stats.resourceVersion).toBe(String(sim.store.resourceVersion));
  });
});
