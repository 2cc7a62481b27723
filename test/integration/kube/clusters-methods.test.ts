import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Result } from '../../../shared/contract/result';
import type { ClusterContexts } from '../../../shared/contract/methods/clusters';
import type { ClusterSummary } from '../../../shared/domain/cluster';
import { consoleSources } from '../../../electron/services/console-source';
import { kubeInventory } from '../../../electron/services/kube/inventory';
import { KubeApiSimulator } from '../../../electron/sim/kube-api/server';
import { testServices } from '../../helpers/services';
import { tempDir, waitFor } from '../../helpers/temp-dir';

// The clusters:* contract methods over the real store (SQLite file in a temp home) and real loopback API simulators.

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function sim(nodes = 3, windows = 2, options: ConstructorParameters<typeof KubeApiSimulator>[0] = {}) {
  const s = await new KubeApiSimulator({ cluster: { nodes, windows }, bookmarkIntervalMs: 500, ...options }).start();
  cleanups.push(() => s.stop());
  return s;
}

async function setup() {
  const a = await sim(3, 2);
  const kdir = tempDir('windeck-kube-');
  cleanups.push(() => kdir.cleanup());
  const kubeA = a.writeKubeconfig(path.join(kdir.dir, 'a.yaml'), { context: 'ctx-a', namespace: 'team-a' });
  // Services whose environment points KUBECONFIG at simulator A (as a user's shell would).
  const env = testServices({ env: { KUBECONFIG: kubeA, HOME: kdir.dir } });
  cleanups.push(() => env.cleanup());
  return { env, a, kubeA };
}

function call<T>(env: ReturnType<typeof testServices>, method: string, input: unknown): Promise<Result<T>> {
  return env.services.dispatch(method, input) as Promise<Result<T>>;
}

async function ok<T>(env: ReturnType<typeof testServices>, method: string, input: unknown): Promise<T> {
  const r = await call<T>(env, method, input);
  if (!r.ok) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
  return r.value;
}

const cluster = (env: ReturnType<typeof testServices>, id: string): ClusterSummary | null => env.services.core.repos.clusters.get(id);

describe('clusters:* methods', () => {
  it('lists contexts of KUBECONFIG and added files without credentials, and validates added paths', async () => {
    const { env: env2, a, kubeA } = await setup();
    const b = await sim(2, 1);
    const env = { home: env2.home };
    const first = await ok<ClusterContexts>(env2, 'clusters:contexts', {});
    expect(first.files).toEqual([{ path: kubeA, origin: 'env', exists: true, error: null }]);
    expect(first.contexts).toHaveLength(1);
    expect(first.contexts[0]).toMatchObject({
      name: 'ctx-a',
      server: a.url,
      user: 'ctx-a-admin',
      namespace: 'team-a',
      kubeconfigPath: kubeA,
      origin: 'env',
      current: true,
      exec: null,
      problem: null,
    });
    const text = JSON.stringify(first);
    expect(text).not.toMatch(/BEGIN|PRIVATE|client-key|certificate-data/);

    // Bad paths are explained.
    const rel = await call(env2, 'clusters:add-kubeconfig', { path: 'kube/b.yaml' });
    expect(rel).toMatchObject({ ok: false, error: { code: 'VALIDATION', message: expect.stringMatching(/not an absolute path/) } });
    const missing = await call(env2, 'clusters:add-kubeconfig', { path: path.join(env.home, 'nope.yaml') });
    expect(missing).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: expect.stringMatching(/There is no file/) } });
    const broken = path.join(env.home, 'broken.yaml');
    fs.writeFileSync(broken, 'apiVersion: v1\nclusters:\n  - name: x\n   cluster: {server: https://127.0.0.1:1}\n');
    const bad = await call(env2, 'clusters:add-kubeconfig', { path: broken });
    expect(bad).toMatchObject({ ok: false, error: { code: 'VALIDATION', message: expect.stringMatching(/broken\.yaml: is not valid YAML at line \d+/) } });
    const empty = path.join(env.home, 'empty.yaml');
    fs.writeFileSync(empty, 'apiVersion: v1\nkind: Config\nclusters: []\n');
    expect(await call(env2, 'clusters:add-kubeconfig', { path: empty })).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION', message: expect.stringMatching(/defines no contexts/) },
    });
    expect(await call(env2, 'clusters:add-kubeconfig', { path: env.home })).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION', message: expect.stringMatching(/is a directory/) },
    });

    // A good file: remembered by path (not copied), its contexts listed.
    const kubeB = b.writeKubeconfig(path.join(env.home, 'kube', 'b.yaml'), { context: 'ctx-b' });
    const added = await ok<{ path: string; contexts: Array<{ name: string; server: string }> }>(env2, 'clusters:add-kubeconfig', { path: kubeB });
    expect(added.path).toBe(kubeB);
    expect(added.contexts.map((c) => [c.name, c.server])).toEqual([['ctx-b', b.url]]);
    expect(env2.services.core.repos.settings.get('kubeconfigFiles')).toEqual([kubeB]);
    await ok(env2, 'clusters:add-kubeconfig', { path: kubeB }); // twice: still once
    expect(env2.services.core.repos.settings.get('kubeconfigFiles')).toEqual([kubeB]);
    const second = await ok<ClusterContexts>(env2, 'clusters:contexts', {});
    expect(second.contexts.map((c) => `${c.name}:${c.origin}`)).toEqual(['ctx-a:env', 'ctx-b:added']);
    // A file that broke after it was added says why, and the rest still lists.
    fs.writeFileSync(kubeB, ': : :\n');
    const third = await ok<ClusterContexts>(env2, 'clusters:contexts', {});
    expect(third.contexts.map((c) => c.name)).toEqual(['ctx-a']);
    expect(third.files.find((f) => f.path === kubeB)?.error).toMatch(/not valid YAML/);
    expect(await ok(env2, 'clusters:remove-kubeconfig', { path: kubeB })).toEqual({ removed: true });
    expect(env2.services.core.repos.settings.get('kubeconfigFiles')).toEqual([]);
  });

  it('switches the live source between contexts, keeps every cluster stored, syncs now, and reports unreachable', async () => {
    const { env, a } = await setup();
    const b = await sim(4, 3);
    const kubeB = b.writeKubeconfig(path.join(env.home, 'kube', 'b.yaml'), { context: 'ctx-b' });
    const inventory = kubeInventory(env.services.core);
    const listed = await ok<ClusterContexts>(env, 'clusters:contexts', {});
    const idA = listed.contexts[0]!.clusterId;
    const events: string[][] = [];
    const off = env.services.events.subscribe((name, payload) => {
      if (name === 'store:changed') events.push((payload as { scopes: string[] }).scopes);
    });
    cleanups.push(off);

    const selA = await ok<{ cluster: ClusterSummary; source: { kind: string; clusterId: string } }>(env, 'clusters:select', { cluster: idA });
    expect(selA.cluster).toMatchObject({ id: idA, context: 'ctx-a', server: a.url });
    expect(selA.source).toMatchObject({ kind: 'live', clusterId: idA });
    await waitFor(() => cluster(env, idA)?.syncState === 'live' && cluster(env, idA)?.nodeCount === 3);
    expect(events.some((s) => s.includes('clusters'))).toBe(true);

    const added = await ok<{ contexts: Array<{ clusterId: string }> }>(env, 'clusters:add-kubeconfig', { path: kubeB });
    const idB = added.contexts[0]!.clusterId;
    await ok(env, 'clusters:select', { cluster: idB });
    await waitFor(() => cluster(env, idB)?.syncState === 'live' && cluster(env, idB)?.nodeCount === 4);
    expect(inventory.liveClusterIds()).toEqual([idB]);
    // A is no longer synced, but its data stays, marked stale with its last sync time.
    const storedA = cluster(env, idA)!;
    expect(storedA).toMatchObject({ syncState: 'stale', nodeCount: 3, windowsNodeCount: 2 });
    expect(storedA.syncedAt).toBeGreaterThan(0);
    expect(env.services.core.repos.settings.get('activeCluster')).toBe(idB);
    // A host that starts again without naming a context reopens on the one switched to last.
    expect(consoleSources(env.services.core).rememberedTarget()).toEqual({ kubeconfig: kubeB, context: 'ctx-b' });
    const list = await ok<ClusterSummary[]>(env, 'clusters:list', {});
    expect(list.map((c) => c.id).sort()).toEqual([idA, idB].sort());

    // Sync now of the non-live cluster: an operation that lists it again.
    const { operationId } = await ok<{ operationId: string }>(env, 'clusters:sync', { cluster: idA });
    const staleAt = storedA.syncedAt!;
    await waitFor(() => env.services.core.ops.get(operationId)?.state === 'succeeded');
    // Listed again (newer sync time) but not watched: stale, not live.
    await waitFor(() => cluster(env, idA)?.syncState === 'stale' && cluster(env, idA)!.syncedAt! > staleAt);
    expect(inventory.liveClusterIds()).toEqual([idB]);

    // B's API goes away: the live sync says unreachable (offline) with the error, the last sync time and the nodes stay.
    const before = cluster(env, idB)!.syncedAt!;
    await b.down();
    await waitFor(() => cluster(env, idB)?.syncState === 'offline' && /refused/i.test(cluster(env, idB)?.syncError ?? ''), 20_000);
    const offline = cluster(env, idB)!;
    expect(offline.syncedAt).toBeGreaterThanOrEqual(before);
    expect(offline.nodeCount).toBe(4);
    const failedSync = await ok<{ operationId: string }>(env, 'clusters:sync', { cluster: idB });
    await waitFor(() => env.services.core.ops.get(failedSync.operationId)?.state === 'failed');
    expect(env.services.core.ops.get(failedSync.operationId)?.error?.code).toBe('UNREACHABLE');
    expect(cluster(env, idB)?.syncState).toBe('offline');
  });

  it('says auth-failed when the API server refuses the credentials, and asks for exec plugin approval', async () => {
    const { env } = await setup();
    const c = await sim(2, 1, { tokens: ['right-token'] });
    const wrong = c.writeKubeconfig(path.join(env.home, 'kube', 'wrong.yaml'), { context: 'ctx-wrong', token: 'wrong-token' });
    const { contexts } = await ok<{ contexts: Array<{ clusterId: string }> }>(env, 'clusters:add-kubeconfig', { path: wrong });
    const id = contexts[0]!.clusterId;
    await ok(env, 'clusters:select', { cluster: id });
    await waitFor(() => cluster(env, id)?.syncState === 'auth-failed', 20_000);
    expect(cluster(env, id)?.syncError).toMatch(/401|rejected the credentials/);

    // An exec credential plugin that was never approved: a clear PERMISSION_DENIED, nothing runs.
    const marker = path.join(env.home, 'plugin-ran');
    const plugin = path.join(env.home, 'bin', 'cred-plugin');
    fs.mkdirSync(path.dirname(plugin), { recursive: true });
    fs.writeFileSync(
      plugin,
      `#!/bin/sh\ntouch ${marker}\necho '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"right-token"}}'\n`,
      { mode: 0o755 },
    );
    const execFile = path.join(env.home, 'kube', 'exec.yaml');
    const base = fs.readFileSync(wrong, 'utf8').replace(/ctx-wrong/g, 'ctx-exec');
    fs.writeFileSync(
      execFile,
      base.replace(
        / {4}token: wrong-token/,
        `    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: ${plugin}\n      args: ["--cluster", "c"]`,
      ),
    );
    const execAdded = await ok<{ contexts: Array<{ clusterId: string; exec: { command: string; approved: boolean } | null }> }>(
      env,
      'clusters:add-kubeconfig',
      { path: execFile },
    );
    expect(execAdded.contexts[0]!.exec).toEqual({ command: plugin, approved: false });
    const denied = await call(env, 'clusters:select', { cluster: execAdded.contexts[0]!.clusterId });
    expect(denied).toMatchObject({
      ok: false,
      error: {
        code: 'PERMISSION_DENIED',
        message: expect.stringMatching(/approve.*windeck nodes --approve-exec --kubeconfig .*exec\.yaml --context ctx-exec/),
        context: { step: 'exec-approval' },
      },
    });
    expect(fs.existsSync(marker)).toBe(false);
    // Approved the way the CLI does it: the switch works and the plugin's token is accepted.
    kubeInventory(env.services.core).approveExec({ kubeconfig: execFile, context: 'ctx-exec' });
    await ok(env, 'clusters:select', { cluster: execAdded.contexts[0]!.clusterId });
    await waitFor(() => cluster(env, execAdded.contexts[0]!.clusterId)?.syncState === 'live', 20_000);
    expect(fs.existsSync(marker)).toBe(true);
  });

  it('forgets a cluster only with its exact name, and only its stored data', async () => {
    const { env } = await setup();
    const listed = await ok<ClusterContexts>(env, 'clusters:contexts', {});
    const id = listed.contexts[0]!.clusterId;
    const { operationId } = await ok<{ operationId: string }>(env, 'clusters:sync', { cluster: id });
    await waitFor(() => env.services.core.ops.get(operationId)?.state === 'succeeded');
    expect(cluster(env, id)?.nodeCount).toBe(3);
    expect(await call(env, 'clusters:remove', { cluster: id, confirm: 'ctx' })).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    expect(cluster(env, id)).not.toBeNull();
    expect(await ok(env, 'clusters:remove', { cluster: id, confirm: 'ctx-a' })).toEqual({ removed: id });
    expect(cluster(env, id)).toBeNull();
    expect(env.services.core.repos.nodes.listSummaries(id)).toEqual([]);
    expect(env.services.core.ops.get(operationId)).not.toBeNull(); // history stays
    expect(await call(env, 'clusters:remove', { cluster: id, confirm: 'ctx-a' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    // The context is still in the kubeconfig: it can be synced again.
    expect((await ok<ClusterContexts>(env, 'clusters:contexts', {})).contexts.map((c) => c.clusterId)).toEqual([id]);
  });
});
