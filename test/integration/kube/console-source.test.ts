import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { consoleSources, startConsoleSource } from '../../../electron/services/console-source';
import { createServices } from '../../../electron/services/create-services';
import { nullSink } from '../../../electron/services/lib/log';
import { kubeInventory } from '../../../electron/services/kube/inventory';
import { KubeApiSimulator } from '../../../electron/sim/kube-api/server';
import { testServices } from '../../helpers/services';
import { tempDir, waitFor } from '../../helpers/temp-dir';

// The desktop window's source (electron/main uses startConsoleSource): the demo when there is no kubeconfig; switching
// to an added kubeconfig context stops the demo; the next start reopens on the context switched to.

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

describe('console source of the desktop window', () => {
  it('starts the demo without a kubeconfig, stops it when switching away, and reopens on the switched-to context', async () => {
    const noHome = tempDir('windeck-nohome-');
    cleanups.push(() => noHome.cleanup());
    const envVars = { KUBECONFIG: '', HOME: noHome.dir };
    const env = testServices({ env: envVars });
    cleanups.push(() => env.cleanup());
    const demoSource = await startConsoleSource(env.services, { env: envVars });
    expect(demoSource.kind).toBe('demo');
    const sources = consoleSources(env.services.core);
    const demoId = sources.source().clusterId!;
    expect(sources.source().kind).toBe('demo');
    expect(env.services.core.repos.clusters.get(demoId)?.simulated).toBe(true);
    expect(env.services.core.repos.settings.get('demo')).not.toBeNull();

    const sim = await new KubeApiSimulator({ cluster: { nodes: 2, windows: 1 } }).start();
    cleanups.push(() => sim.stop());
    const kube = sim.writeKubeconfig(path.join(noHome.dir, 'prod.yaml'), { context: 'prod' });
    const added = await env.services.dispatch('clusters:add-kubeconfig', { path: kube });
    if (!added.ok) throw new Error(added.error.message);
    const prodId = (added.value as { contexts: Array<{ clusterId: string }> }).contexts[0]!.clusterId;
    const selected = await env.services.dispatch('clusters:select', { cluster: prodId });
    expect(selected.ok).toBe(true);
    // The demo is gone (its simulators stopped, its registration removed), its stored data stays, marked stale.
    expect(env.services.core.repos.settings.get('demo')).toBeNull();
    expect(fs.existsSync(path.join(env.home, 'demo.lock'))).toBe(false);
    expect(env.services.core.repos.clusters.get(demoId)).toMatchObject({ simulated: true, syncState: 'stale' });
    expect(env.services.core.repos.clusters.get(demoId)!.nodeCount).toBeGreaterThan(0);
    await waitFor(() => env.services.core.repos.clusters.get(prodId)?.syncState === 'live', 20_000);
    expect(kubeInventory(env.services.core).liveClusterIds()).toEqual([prodId]);
    expect(sources.source()).toMatchObject({ kind: 'live', clusterId: prodId });
    await env.services.dispose();

    // Started again with the same data directory and still no KUBECONFIG: no demo, the switched-to context live.
    const reopened = createServices({ home: env.home, host: 'test', version: '0.0.0-test', logSink: nullSink, env: envVars });
    cleanups.push(() => reopened.dispose());
    const source = await startConsoleSource(reopened, { env: envVars });
    expect(source).toMatchObject({ kind: 'live', message: expect.stringMatching(/"prod"/) });
    expect(reopened.core.repos.settings.get('demo')).toBeNull();
    await waitFor(() => reopened.core.repos.clusters.get(prodId)?.syncState === 'live', 20_000);
  });
});
