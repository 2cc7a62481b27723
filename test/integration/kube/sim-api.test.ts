import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWindeckError, type WindeckError } from '../../../shared/contract/errors';
import { KubeClient, readBody, watchLines, type ListPage } from '../../../electron/services/kube/client';
import { resolveKubeconfig } from '../../../electron/services/kube/kubeconfig';
import { projectPod, type PodProjection } from '../../../electron/services/kube/projections';
import { simWithClient } from '../../helpers/kube-sim';
import { waitFor } from '../../helpers/temp-dir';

let env: Awaited<ReturnType<typeof simWithClient>>;
beforeAll(async () => {
  env = await simWithClient({ tokens: ['good-token'], bookmarkIntervalMs: 200 });
});
afterAll(async () => env.close());

async function error(p: Promise<unknown>): Promise<WindeckError> {
  try {
    await p;
  } catch (e) {
    expect(isWindeckError(e)).toBe(true);
    return e as WindeckError;
  }
  throw new Error('expected an error');
}

const raw = (x: unknown) => x as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('API simulator over HTTPS with client certificates', () => {
  it('serves /version v1.32 and discovery', async () => {
    const v = await env.client.version();
    expect(v).toMatchObject({ major: '1', minor: '32', gitVersion: 'v1.32.4' });
    const api = await env.client.getJson<{ versions: string[] }>('/api');
    expect(api.versions).toEqual(['v1']);
    const groups = await env.client.getJson<{ groups: Array<{ name: string }> }>('/apis');
    expect(groups.groups.map((g) => g.name).sort()).toEqual(['apps', 'batch', 'discovery.k8s.io']);
    const core = await env.client.getJson<{ resources: Array<{ name: string; namespaced: boolean; verbs: string[] }> }>('/api/v1');
    expect(core.resources.map((r) => r.name)).toEqual(expect.arrayContaining(['nodes', 'pods', 'events', 'namespaces', 'services']));
    expect(core.resources.find((r) => r.name === 'pods')?.verbs).toContain('watch');
  });

  it('pages lists with limit/continue, without gaps or duplicates, at one resourceVersion', async () => {
    const all: string[] = [];
    let cont: string | null = null;
    const rvs = new Set<string>();
    let pages = 0;
    do {
      const page: ListPage<PodProjection> = await env.client.listPage('/api/v1/pods', { limit: 7, continue: cont }, projectPod);
      all.push(...page.items.map((p) => `${p.namespace}/${p.name}`));
      rvs.add(page.resourceVersion);
      if (page.continue) expect(page.remainingItemCount).toBeGreaterThan(0);
      cont = page.continue;
      pages++;
    } while (cont);
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(env.sim.store.count('pods'));
    expect(pages).toBe(Math.ceil(all.length / 7));
    expect(rvs.size).toBe(1);
  });

  it('filters by label and field selectors, and refuses unknown fields like kube-apiserver', async () => {
    const win = await env.client.listPage('/api/v1/nodes', { labelSelector: 'kubernetes.io/os=windows' }, (r) => raw(r).metadata.name as string);
    expect(win.items).toEqual(['win-1', 'win-2', 'win-3', 'win-4', 'win-5']);
    const notWin = await env.client.listPage('/api/v1/nodes', { labelSelector: 'kubernetes.io/os!=windows,!node-role.kubernetes.io/control-plane' }, (r) => raw(r).metadata.name as string);
    expect(notWin.items).toEqual(['linux-1', 'linux-2']);
    const inSet = await env.client.listPage('/api/v1/nodes', { labelSelector: 'kubernetes.io/hostname in (win-2, linux-1)' }, (r) => raw(r).metadata.name as string);
    expect(inSet.items).toEqual(['linux-1', 'win-2']);
    const onWin3 = await env.client.listPage('/api/v1/pods', { fieldSelector: 'spec.nodeName=win-3' }, projectPod);
    expect(onWin3.items.length).toBeGreaterThan(0);
    expect(onWin3.items.every((p) => p.node === 'win-3')).toBe(true);
    const running = await env.client.listPage('/api/v1/pods', { fieldSelector: 'status.phase=Running,spec.nodeName!=win-3' }, projectPod);
    expect(running.items.every((p) => p.phase === 'Running' && p.node !== 'win-3')).toBe(true);
    const nsPods = await env.client.listPage('/api/v1/namespaces/kube-system/pods', {}, projectPod);
    expect(nsPods.items.every((p) => p.namespace === 'kube-system')).toBe(true);
    const e = await error(env.client.listPage('/api/v1/pods', { fieldSelector: 'spec.bogus=1' }, projectPod));
    expect(e.code).toBe('VALIDATION');
    expect(e.message).toMatch(/field label not supported: spec.bogus/);
    const bad = await error(env.client.listPage('/api/v1/pods', { labelSelector: 'a b c' }, projectPod));
    expect(bad.message).toMatch(/unable to parse requirement/);
  });

  it('answers Table requests the way kubectl asks for them', async () => {
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const t = await env.client.getJson<{ kind: string; columnDefinitions: Array<{ name: string; priority: number }>; rows: Array<{ cells: unknown[]; object: { kind: string; metadata: { name: string } } }> }>('/api/v1/nodes?limit=500', { accept });
    expect(t.kind).toBe('Table');
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Status', 'Roles', 'Age', 'Version', 'Internal-IP', 'External-IP', 'OS-Image', 'Kernel-Version', 'Container-Runtime']);
    const win1 = t.rows.find((r) => r.cells[0] === 'win-1')!;
    expect(win1.object.kind).toBe('PartialObjectMetadata');
    expect(win1.cells.slice(4, 10)).toEqual(['v1.32.4', '127.0.10.11', '<none>', 'Windows Server 2022 Datacenter', '10.0.20348.2461', 'containerd://1.7.20']);
    const one = await env.client.getJson<{ rows: unknown[] }>('/api/v1/nodes/win-4', { accept });
    expect(one.rows).toHaveLength(1);
  });

  it('maps errors: 404, missing credentials 401, wrong CA', async () => {
    expect((await error(env.client.getJson('/api/v1/nodes/nope'))).code).toBe('NOT_FOUND');
    const anon = resolveKubeconfig({ explicitPath: env.kubeconfig, env: {} });
    const noCert = new KubeClient({ ...anon, clientCert: null }, { env: {} });
    const e401 = await error(noCert.version());
    expect(e401.code).toBe('AUTH_FAILED');
    noCert.close();
    const tokenClient = new KubeClient({ ...anon, clientCert: null, token: 'good-token' }, { env: {} });
    expect((await tokenClient.version()).gitVersion).toBe('v1.32.4');
    tokenClient.close();
    const wrongCa = new KubeClient({ ...anon, tls: { ...anon.tls, ca: Buffer.from(env.sim.pki.clientCert) } }, { env: {} });
    const tlsErr = await error(wrongCa.version());
    expect(tlsErr.code).toBe('UNREACHABLE');
    expect(tlsErr.message).toMatch(/TLS verification/);
    wrongCa.close();
  });

  it('watches from a resourceVersion with bookmarks, replays history, and expires old versions (410 in stream)', async () => {
    const list = await env.client.listPage('/api/v1/nodes', {}, (r) => r);
    const res = await env.client.watch('/api/v1/nodes', { resourceVersion: list.resourceVersion, allowWatchBookmarks: true });
    env.sim.store.update('nodes', '', 'win-2', (o) => {
      o.spec.unschedulable = true;
    });
    const seen: Array<{ type: string; name?: string; rv: string }> = [];
    for await (const line of watchLines(res)) {
      const ev = JSON.parse(line!);
      seen.push({ type: ev.type, name: ev.object.metadata.name, rv: ev.object.metadata.resourceVersion });
      if (ev.type === 'BOOKMARK') break;
    }
    res.destroy();
    expect(seen[0]).toMatchObject({ type: 'MODIFIED', name: 'win-2' });
    expect(seen[seen.length - 1]!.type).toBe('BOOKMARK');
    // Replay from the list's version gives the same change again.
    const replay = await env.client.watch('/api/v1/nodes', { resourceVersion: list.resourceVersion });
    const first = JSON.parse((await watchLines(replay).next()).value!);
    replay.destroy();
    expect(first.object.metadata.name).toBe('win-2');
    env.sim.store.compact();
    const old = await env.client.watch('/api/v1/nodes', { resourceVersion: list.resourceVersion });
    const gone = JSON.parse(await readBody(old));
    expect(gone).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
  });

  it('expires a continue token after compaction (410)', async () => {
    const page = await env.client.listPage('/api/v1/pods', { limit: 5 }, projectPod);
    env.sim.store.compact();
    env.sim.store.update('nodes', '', 'win-1', (o) => {
      o.metadata.labels.touched = 'yes';
    });
    env.sim.store.compact();
    const e = await error(env.client.listPage('/api/v1/pods', { limit: 5, continue: page.continue }, projectPod));
    expect((e as unknown as { status: number }).status).toBe(410);
  });

  it('scripts faults: 500s, slowness, stalls and broken lines', async () => {
    env.sim.fault({ resource: 'nodes', verb: 'list' }, { kind: 'status', code: 500 }, 1);
    const e = await error(env.client.listPage('/api/v1/nodes', {}, (r) => r));
    expect(e.code).toBe('REMOTE_FAILED');
    expect(e.retryable).toBe(true);
    env.sim.fault({ resource: 'nodes', verb: 'list' }, { kind: 'slow', delayMs: 300 }, 1);
    const t0 = Date.now();
    await env.client.listPage('/api/v1/nodes', {}, (r) => r);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    env.sim.fault({ resource: 'pods', verb: 'watch' }, { kind: 'garbage' }, 1);
    const w = await env.client.watch('/api/v1/pods', { resourceVersion: String(env.sim.store.resourceVersion) });
    const lines: string[] = [];
    for await (const l of watchLines(w)) {
      lines.push(l!);
      if (lines.length === 3) break;
    }
    w.destroy();
    expect(lines.filter((l) => l.startsWith('{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"trunc'))).toHaveLength(1);
    env.sim.fault({ resource: 'pods', verb: 'watch' }, { kind: 'stall' }, 1);
    const stalled = await env.client.watch('/api/v1/pods', { resourceVersion: String(env.sim.store.resourceVersion) });
    let got = 0;
    stalled.on('data', () => got++);
    await new Promise((r) => setTimeout(r, 300));
    expect(got).toBe(0);
    stalled.destroy();
    await waitFor(() => env.sim.store.watcherCount('pods') === 0);
  });
});
