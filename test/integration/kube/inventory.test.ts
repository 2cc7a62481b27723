import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeSummary } from '../../../shared/domain/node';
import { kubeInventory } from '../../../electron/services/kube/inventory';
import { PodsRepo } from '../../../electron/services/store/repos/pods';
import { KubeApiSimulator } from '../../../electron/sim/kube-api/server';
import { testServices } from '../../helpers/services';
import { waitFor } from '../../helpers/temp-dir';

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function setup(cluster: ConstructorParameters<typeof KubeApiSimulator>[0] = {}) {
  const t = testServices();
  const sim = await new KubeApiSimulator({ cluster: { nodes: 8, windows: 5, windowsNodes: [{ scenario: 'healthy' }, { scenario: 'kube-proxy-stopped' }, { scenario: 'hns-network-missing' }, { scenario: 'flannel-waiting' }, { scenario: 'pause-mismatch' }] }, bookmarkIntervalMs: 500, ...cluster }).start();
  const kubeconfig = sim.writeKubeconfig(path.join(t.home, 'kc', 'config'));
  cleanups.push(() => t.cleanup(), () => sim.stop());
  return { ...t, sim, kubeconfig, inventory: kubeInventory(t.services.core) };
}

describe('inventory sync into the store', () => {
  it('syncs nodes, pods, events and DaemonSets once, as an operation, with Windows builds and health', async () => {
    const env = await setup();
    const op = env.inventory.syncOperation({ kubeconfig: env.kubeconfig });
    const result = await op.done;
    expect(result).toMatchObject({ context: 'windeck-demo', kubernetesVersion: 'v1.32.4', nodes: 8, windowsNodes: 5, pods: env.sim.store.count('pods'), events: env.sim.store.count('events'), daemonSets: env.sim.store.count('daemonsets') });
    expect(env.services.core.ops.get(op.operationId)?.state).toBe('succeeded');
    const cluster = env.services.core.repos.clusters.get(result.clusterId)!;
    expect(cluster).toMatchObject({ syncState: 'live', kubernetesVersion: 'v1.32.4', nodeCount: 8, windowsNodeCount: 5 });
    expect(cluster.syncedAt).toBe(result.syncedAt);
    const rows = env.services.core.repos.nodes.listSummaries(result.clusterId);
    for (const r of rows) expect(NodeSummary.safeParse(r).success).toBe(true);
    const win1 = rows.find((r) => r.name === 'win-1')!;
    expect(win1).toMatchObject({ os: 'windows', ready: true, windowsBuild: 20348, windowsRelease: 'Windows Server 2022', internalIP: '127.0.10.11', health: 'healthy', containerRuntime: 'containerd://1.7.20' });
    expect(rows.find((r) => r.name === 'win-4')).toMatchObject({ ready: false, health: 'error' });
    const pods = new PodsRepo(env.services.core.store.db);
    expect(pods.count(result.clusterId)).toBe(result.pods);
    const counts = pods.countsByNode(result.clusterId);
    for (const r of rows) expect(r.podCount).toBe(counts.get(r.name) ?? 0);
    expect(env.inventory.events.forObject(result.clusterId, 'Node', 'win-4').map((e) => e.reason)).toContain('NodeNotReady');
    expect(env.inventory.events.forPodsOnNode(result.clusterId, 'win-5').some((e) => /does not match the host operating system/.test(e.message ?? ''))).toBe(true);
    expect(env.inventory.daemonSets.list(result.clusterId).find((d) => d.name === 'kube-proxy-windows')).toMatchObject({ hostProcess: true, desired: 5 });
    const findings = env.services.core.repos.findings.list({ clusterId: result.clusterId });
    expect(findings.map((f) => `${f.ruleId}:${f.node}`)).toContain('node-not-ready:win-4');
    expect(env.inventory.status.list(result.clusterId).map((s) => s.resource)).toEqual(['daemonsets', 'events', 'nodes', 'pods']);
  });

  it('marks the cluster offline and keeps the stored rows when the API is down', async () => {
    const env = await setup();
    const first = await env.inventory.sync({ kubeconfig: env.kubeconfig });
    await env.sim.down();
    await expect(env.inventory.sync({ kubeconfig: env.kubeconfig })).rejects.toMatchObject({ code: 'UNREACHABLE' });
    const cluster = env.services.core.repos.clusters.get(first.clusterId)!;
    expect(cluster.syncState).toBe('offline');
    expect(cluster.syncError).toMatch(/connection refused/);
    expect(cluster.syncedAt).toBe(first.syncedAt);
    expect(env.services.core.repos.nodes.listSummaries(first.clusterId)).toHaveLength(8);
  });

  it('live sync: watches write changes to the store, node rows follow pods and conditions', async () => {
    const env = await setup();
    const live = env.inventory.startLive({ kubeconfig: env.kubeconfig }, { flushIntervalMs: 50 });
    await live.synced();
    const id = live.clusterId;
    await waitFor(() => env.services.core.repos.clusters.get(id)?.syncState === 'live');
    const before = env.services.core.repos.nodes.get(id, 'win-1')!.podCount;
    env.sim.store.create('pods', { metadata: { name: 'extra', namespace: 'default' }, spec: { nodeName: 'win-1', containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Running' } });
    env.sim.store.update('nodes', '', 'win-2', (o) => {
      o.status.conditions.find((c: { type: string }) => c.type === 'Ready').status = 'False';
    });
    await waitFor(() => env.services.core.repos.nodes.get(id, 'win-1')?.podCount === before + 1 && env.services.core.repos.nodes.get(id, 'win-2')?.health === 'error');
    env.sim.store.remove('pods', 'default', 'extra');
    await waitFor(() => env.services.core.repos.nodes.get(id, 'win-1')?.podCount === before);
    // Broken watch lines are counted and reported in the store's inventory status.
    env.sim.fault({ resource: 'pods', verb: 'watch' }, { kind: 'garbage' }, 1);
    env.sim.endWatches();
    await waitFor(() => (env.inventory.status.list(id).find((s) => s.resource === 'pods')?.stats.garbageLines as number) === 3);
    expect(new PodsRepo(env.services.core.store.db).count(id)).toBe(env.sim.store.count('pods'));
    // A second live sync of the same cluster from another process is refused.
    const lockDir = path.join(env.home, 'locks');
    const lock = fs.readdirSync(lockDir)[0]!;
    expect(fs.readFileSync(path.join(lockDir, lock), 'utf8')).toBe(String(process.pid));
    await live.dispose();
    expect(fs.readdirSync(lockDir)).toEqual([]);
    expect(env.services.core.repos.clusters.get(id)?.syncState).toBe('stale');
  });

  it('refuses a live sync that another live process already holds (lock file with its pid)', async () => {
    const env = await setup();
    const first = env.inventory.startLive({ kubeconfig: env.kubeconfig }, { flushIntervalMs: 50 });
    await first.synced();
    const lockDir = path.join(env.home, 'locks');
    const lock = path.join(lockDir, fs.readdirSync(lockDir)[0]!);
    await first.dispose();
    // Pretend another, living process (our parent) holds it.
    fs.writeFileSync(lock, String(process.ppid));
    expect(() => env.inventory.startLive({ kubeconfig: env.kubeconfig })).toThrow(/Another Windeck process \(pid \d+\) already runs the live sync/);
    // A lock left by a process that is gone is taken over.
    fs.writeFileSync(lock, '999999999');
    const again = env.inventory.startLive({ kubeconfig: env.kubeconfig }, { flushIntervalMs: 50 });
    await again.synced();
    expect(fs.readFileSync(lock, 'utf8')).toBe(String(process.pid));
    await again.dispose();
  });

  it('keeps memory small by storing projections, not objects (pods table has no spec)', async () => {
    const env = await setup();
    const r = await env.inventory.sync({ kubeconfig: env.kubeconfig });
    const db = new Database(path.join(env.home, 'windeck.db'), { readonly: true });
    const cols = (db.prepare('PRAGMA table_info(pods)').all() as Array<{ name: string }>).map((c) => c.name);
    db.close();
    expect(cols).not.toContain('data');
    expect(r.pods).toBeGreaterThan(50);
  });
});

describe('exec credential plugins end to end', () => {
  it('an unapproved plugin never runs (marker file); after approval the sync works with its token', async () => {
    const env = await setup({ tokens: ['plugin-token-42'] });
    const dir = path.join(env.home, 'plugin');
    fs.mkdirSync(dir, { recursive: true });
    const marker = path.join(dir, 'ran');
    fs.writeFileSync(
      path.join(dir, 'get-token.sh'),
      `#!/bin/sh\necho ran >> "${marker}"\nprintf '%s' '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"plugin-token-42"}}'\n`,
      { mode: 0o755 },
    );
    const ca = Buffer.from(env.sim.pki.caCert).toString('base64');
    const kubeconfig = path.join(dir, 'config');
    fs.writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: exec',
        'clusters:',
        '- name: sim',
        '  cluster:',
        `    server: ${env.sim.url}`,
        `    certificate-authority-data: ${ca}`,
        'users:',
        '- name: plugin-user',
        '  user:',
        '    exec:',
        '      apiVersion: client.authentication.k8s.io/v1beta1',
        '      command: ./get-token.sh',
        '      args: ["--cluster", "sim"]',
        'contexts:',
        '- name: exec',
        '  context: {cluster: sim, user: plugin-user}',
        '',
      ].join('\n'),
    );
    await expect(env.inventory.sync({ kubeconfig })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(fs.existsSync(marker)).toBe(false);
    expect(env.sim.stats.requests).toBe(0);
    const fp = env.inventory.approveExec({ kubeconfig })!;
    expect(fp.path).toBe(fs.realpathSync(path.join(dir, 'get-token.sh')));
    expect(env.inventory.approvals.list()[0]).toMatchObject({ commandPath: fp.path, args: ['--cluster', 'sim'], kubeconfigPath: kubeconfig, userName: 'plugin-user' });
    const result = await env.inventory.sync({ kubeconfig });
    expect(result.nodes).toBe(8);
    // One run, cached for the whole sync (no expiry given).
    expect(fs.readFileSync(marker, 'utf8')).toBe('ran\n');
    // Changing the arguments in the kubeconfig needs a new approval.
    fs.writeFileSync(kubeconfig, fs.readFileSync(kubeconfig, 'utf8').replace('"sim"]', '"other"]'));
    await expect(env.inventory.sync({ kubeconfig })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(fs.readFileSync(marker, 'utf8')).toBe('ran\n');
  });
});
