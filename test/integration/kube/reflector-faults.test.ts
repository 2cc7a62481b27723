import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../../../electron/services/kube/client';
import { resolveKubeconfig } from '../../../electron/services/kube/kubeconfig';
import { podKey, projectNode, projectPod, nodeKey, type PodProjection } from '../../../electron/services/kube/projections';
import { Reflector } from '../../../electron/services/kube/reflector';
import { ManualClock } from '../../helpers/manual-clock';
import { simWithClient } from '../../helpers/kube-sim';
import { waitFor } from '../../helpers/temp-dir';

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function setup(simOptions: Parameters<typeof simWithClient>[0] = {}) {
  const env = await simWithClient({ bookmarkIntervalMs: 60_000, ...simOptions });
  const clock = new ManualClock();
  const reflectors: Array<Reflector<unknown>> = [];
  cleanups.push(async () => {
    for (const r of reflectors) await r.stop();
    await env.close();
  });
  const pods = (pageSize = 20) => {
    const r = new Reflector<PodProjection>({ client: env.client, path: '/api/v1/pods', resource: 'pods', project: projectPod, keyOf: podKey, clock, random: () => 0.5, pageSize });
    reflectors.push(r as Reflector<unknown>);
    return r;
  };
  return { ...env, clock, pods };
}

function simPodKeys(sim: Awaited<ReturnType<typeof setup>>['sim']): string[] {
  const page = sim.store.list('pods', {});
  return page.items.map((i) => i.key).sort();
}

const newPod = (name: string, node = 'win-1') => ({ metadata: { name, namespace: 'default', labels: { app: 'x' } }, spec: { nodeName: node, containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Pending' } });

describe('reflector against the simulator', () => {
  it('lists in pages, then follows the watch', async () => {
    const env = await setup();
    const r = env.pods(20).start();
    await r.synced;
    expect(r.stats.pages).toBe(Math.ceil(env.sim.store.count('pods') / 20));
    expect([...r.cache.keys()].sort()).toEqual(simPodKeys(env.sim));
    await waitFor(() => r.state === 'watching' && env.sim.store.watcherCount('pods') === 1);
    env.sim.store.create('pods', newPod('added-1'));
    env.sim.store.update('pods', 'default', 'added-1', (o) => {
      o.status.phase = 'Running';
    });
    const victim = [...r.cache.keys()][3]!;
    const [ns, name] = victim.split('/') as [string, string];
    env.sim.store.remove('pods', ns, name);
    await waitFor(() => r.cache.get('default/added-1')?.phase === 'Running' && !r.cache.has(victim));
    expect([...r.cache.keys()].sort()).toEqual(simPodKeys(env.sim));
  });

  it('410 Gone in the stream (history compacted) -> exactly one relist and a correct cache', async () => {
    const env = await setup();
    const r = env.pods(25).start();
    await r.synced;
    await waitFor(() => r.state === 'watching' && env.sim.store.watcherCount('pods') === 1);
    env.sim.store.create('pods', newPod('before-gap'));
    await waitFor(() => r.cache.has('default/before-gap'));
    // The watch ends (server-side timeout); while the reflector reconnects, history is compacted and objects change.
    env.sim.store.create('pods', newPod('in-gap-1'));
    await waitFor(() => r.cache.has('default/in-gap-1'));
    env.sim.endWatches();
    // While the reflector reconnects: more changes, then history is compacted past its resourceVersion.
    env.sim.store.create('pods', newPod('in-gap-2'));
    env.sim.store.remove('pods', 'default', 'before-gap');
    env.sim.store.compact();
    await waitFor(() => r.stats.gone === 1 && r.state === 'watching');
    expect(r.stats.relists).toBe(1);
    expect(env.sim.stats.listStarts.pods).toBe(2);
    await waitFor(() => r.cache.has('default/in-gap-2'));
    expect([...r.cache.keys()].sort()).toEqual(simPodKeys(env.sim));
    expect(r.cache.has('default/before-gap')).toBe(false);
    expect(r.cache.has('default/in-gap-1')).toBe(true);
    // The relist happened because of the 410, once; the watch goes on from the new list.
    env.sim.store.create('pods', newPod('after'));
    await waitFor(() => r.cache.has('default/after'));
    expect(env.sim.stats.listStarts.pods).toBe(2);
  });

  it('HTTP 410 on the watch request -> exactly one relist', async () => {
    const env = await setup();
    const r = env.pods().start();
    await r.synced;
    await waitFor(() => r.state === 'watching' && env.sim.store.watcherCount('pods') === 1);
    env.sim.store.create('pods', newPod('p1'));
    await waitFor(() => r.cache.has('default/p1'));
    env.sim.fault({ resource: 'pods', verb: 'watch' }, { kind: 'gone', mode: 'http' }, 1);
    env.sim.endWatches();
    await waitFor(() => r.stats.gone === 1 && r.state === 'watching' && env.sim.store.watcherCount('pods') === 1);
    expect(r.stats.relists).toBe(1);
    expect(env.sim.stats.listStarts.pods).toBe(2);
    expect([...r.cache.keys()].sort()).toEqual(simPodKeys(env.sim));
  });

  it('a continue token that expires mid-list restarts the list from scratch', async () => {
    const env = await setup();
    let pagesSeen = 0;
    const r = new Reflector<PodProjection>({
      client: {
        listPage: async (p, q, project, o) => {
          pagesSeen++;
          // Compact history right after the second page: the third request's token is too old.
          if (pagesSeen === 3) {
            env.sim.store.update('nodes', '', 'win-2', (o) => {
              o.metadata.labels.bump = '2';
            });
            env.sim.store.compact();
          }
          return env.client.listPage(p, q, project, o);
        },
        watch: (p, q, o) => env.client.watch(p, q, o),
      },
      path: '/api/v1/pods',
      resource: 'pods',
      project: projectPod,
      keyOf: podKey,
      clock: env.clock,
      pageSize: 10,
    });
    cleanups.push(() => r.stop());
    env.sim.store.update('nodes', '', 'win-1', (o) => {
      o.metadata.labels.bump = '1';
    });
    await r.listOnce();
    expect(r.stats.listRestarts).toBe(1);
    expect([...r.cache.keys()].sort()).toEqual(simPodKeys(env.sim));
  });

  it('API down for 5 minutes: bounded, capped, jittered retries (no hot loop), then recovery', async () => {
    const env = await setup();
    const r = new Reflector({ client: env.client, path: '/api/v1/nodes', resource: 'nodes', project: projectNode, keyOf: nodeKey, clock: env.clock, random: Math.random });
    cleanups.push(() => r.stop());
    r.start();
    await r.synced;
    await waitFor(() => r.state === 'watching');
    const attemptsAt: number[] = [];
    const failedBefore = r.stats.failedAttempts;
    await env.sim.down();
    await waitFor(() => r.state === 'backoff');
    attemptsAt.push(env.clock.now());
    const start = env.clock.now();
    let lastFailed = r.stats.failedAttempts;
    while (env.clock.now() - start < 5 * 60_000) {
      env.clock.advance(1_000);
      if (env.clock.pending() === 0) {
        // The backoff timer fired: an attempt is on its way; wait (real time) until it failed and slept again.
        await waitFor(() => r.state === 'backoff' && r.stats.failedAttempts > lastFailed && env.clock.pending() > 0);
        lastFailed = r.stats.failedAttempts;
        attemptsAt.push(env.clock.now());
      }
    }
    const attempts = r.stats.failedAttempts - failedBefore;
    if (process.env.WINDECK_TEST_VERBOSE) console.info(`API down 5 min: ${attempts} attempts, gaps ms ${JSON.stringify(attemptsAt.slice(1).map((t, i) => t - attemptsAt[i]!))}`);
    // initial 1 s doubling to a 30 s cap with "equal jitter" (15-30 s at the cap): ~12-22 attempts in 5 minutes.
    expect(attempts).toBeGreaterThanOrEqual(8);
    expect(attempts).toBeLessThanOrEqual(25);
    const gaps = attemptsAt.slice(1).map((t, i) => t - attemptsAt[i]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(31_000);
    for (const g of gaps.slice(6)) expect(g).toBeGreaterThanOrEqual(15_000);
    expect(r.stats.lastError).toMatch(/connection refused|watch connection broke|ended immediately/);
    // The server comes back on the same port: the next attempt succeeds and watching resumes without a relist.
    await env.sim.start();
    for (let i = 0; i < 40 && r.state !== 'watching'; i++) {
      env.clock.advance(1_000);
      await new Promise((res) => setTimeout(res, 20));
    }
    await waitFor(() => r.state === 'watching' && env.sim.store.watcherCount('nodes') === 1);
    env.sim.store.update('nodes', '', 'win-3', (o) => {
      o.spec.unschedulable = true;
    });
    await waitFor(() => r.cache.get('win-3')?.spec?.unschedulable === true);
    expect(r.stats.failures).toBe(0);
  });

  it('a stalled watch is detected and recovered within 60 s (clock-driven watchdog)', async () => {
    const env = await setup();
    const r = env.pods().start();
    await r.synced;
    await waitFor(() => r.state === 'watching' && env.sim.store.watcherCount('pods') === 1);
    env.sim.store.create('pods', newPod('seen-before'));
    await waitFor(() => r.cache.has('default/seen-before'));
    // The next watch stalls: headers, then silence (no events, no bookmarks).
    env.sim.fault({ resource: 'pods', verb: 'watch' }, { kind: 'stall' }, 1);
    env.sim.endWatches();
    await waitFor(() => env.sim.stats.watches.pods === 2);
    const stallStart = env.clock.now();
    env.sim.store.create('pods', newPod('during-stall'));
    let detectedAfter = -1;
    while (env.clock.now() - stallStart < 90_000) {
      env.clock.advance(5_000);
      await new Promise((res) => setTimeout(res, 10));
      if (r.stats.stalls > 0) {
        detectedAfter = env.clock.now() - stallStart;
        break;
      }
    }
    expect(detectedAfter).toBeGreaterThan(0);
    expect(detectedAfter).toBeLessThanOrEqual(60_000);
    // Recovery: a new watch from the last resourceVersion replays what the stalled stream missed.
    await waitFor(() => r.cache.has('default/during-stall') && env.sim.stats.watches.pods === 3);
    expect(env.clock.now() - stallStart).toBeLessThanOrEqual(60_000);
    expect(r.stats.relists).toBe(0);
    expect([...r.cache.keys()].sort()).toEqual(simPodKeys(env.sim));
  });

  it('two stalls in a row lead to a relist', async () => {
    const env = await setup();
    const r = env.pods().start();
    await r.synced;
    await waitFor(() => r.state === 'watching');
    env.sim.store.create('pods', newPod('x1'));
    await waitFor(() => r.cache.has('default/x1'));
    env.sim.fault({ resource: 'pods', verb: 'watch' }, { kind: 'stall' }, 2);
    env.sim.endWatches();
    for (let i = 0; i < 40 && r.stats.relists === 0; i++) {
      env.clock.advance(5_000);
      await new Promise((res) => setTimeout(res, 15));
    }
    expect(r.stats.stalls).toBe(2);
    expect(r.stats.relists).toBe(1);
    await waitFor(() => r.state === 'watching');
  });

  it('garbage lines are counted, and the event they hid is not lost', async () => {
    const env = await setup();
    const r = env.pods().start();
    await r.synced;
    await waitFor(() => r.state === 'watching');
    env.sim.store.create('pods', newPod('g0'));
    await waitFor(() => r.cache.has('default/g0'));
    env.sim.fault({ resource: 'pods', verb: 'watch' }, { kind: 'garbage', lines: ['{"type":"ADDED","object":{"metadata":{"name":"bro', 'not json at all', '{"type":"NOPE","object":{}}', '{"type":"ADDED"}'] }, 1);
    env.sim.endWatches();
    env.sim.store.create('pods', newPod('g1'));
    await waitFor(() => r.stats.garbageLines === 4);
    await waitFor(() => r.cache.has('default/g1') && r.state === 'watching' && env.sim.stats.watches.pods === 3);
    expect([...r.cache.keys()].sort()).toEqual(simPodKeys(env.sim));
    expect(r.stats.failedAttempts).toBe(0);
  });

  it('401 and 403 stop the reflector and report, with no retries', async () => {
    const env = await setup();
    env.sim.fault({ resource: 'pods' }, { kind: 'status', code: 403 });
    const r = env.pods().start();
    await expect(r.synced).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(r.state).toBe('failed');
    env.clock.advance(5 * 60_000);
    await new Promise((res) => setTimeout(res, 50));
    expect(env.sim.stats.lists.pods).toBe(1);

    const anon = resolveKubeconfig({ explicitPath: env.kubeconfig, env: {} });
    const badClient = new KubeClient({ ...anon, clientCert: null, token: 'wrong' }, { env: {} });
    cleanups.push(async () => badClient.close());
    const r2 = new Reflector({ client: badClient, path: '/api/v1/nodes', resource: 'nodes', project: projectNode, keyOf: nodeKey, clock: env.clock });
    cleanups.push(() => r2.stop());
    r2.start();
    await expect(r2.synced).rejects.toMatchObject({ code: 'AUTH_FAILED' });
    expect(r2.state).toBe('failed');
    expect(r2.error?.message).toMatch(/rejected the credentials/);
  });

  it('500s back off and then succeed', async () => {
    const env = await setup();
    env.sim.fault({ resource: 'pods', verb: 'list' }, { kind: 'status', code: 500 }, 2);
    const r = env.pods().start();
    await waitFor(() => r.state === 'backoff');
    for (let i = 0; i < 20 && r.state !== 'watching'; i++) {
      env.clock.advance(1_000);
      await new Promise((res) => setTimeout(res, 20));
    }
    await r.synced;
    expect(r.stats.failedAttempts).toBe(2);
    expect(r.stats.failures).toBe(0);
  });
});
