#!/usr/bin/env node
// Inventory benchmark (not part of `npm test`): initial sync of a simulated cluster of 5,000 nodes and 150,000 pods
// into a real SQLite store, next to the real `kubectl get nodes -o json` and `kubectl get pods -A -o json` against the
// same simulator, plus the ways of parsing we measured before choosing (raw JSON.parse + projection, raw full objects,
// @kubernetes/client-node's typed list calls). Reports wall time, peak RSS and ratios; never fails on timing.
//
//   node bench/inventory.mjs            5,000 nodes / 150,000 pods
//   node bench/inventory.mjs --quick    1,000 nodes / 30,000 pods
//   node bench/inventory.mjs --nodes 2000 --pods 60000 --skip client-node,kubectl
//
// Every process (simulator, sync, kubectl, parse variants) is separate, so each peak RSS is its own.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { nodeExternals, withoutZodLocales } from '../build/node-externals.mjs';
import { helpAndExit } from './lib/usage.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
helpAndExit(import.meta.url, args);
const flag = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] ? args[at + 1] : fallback;
};
const quick = args.includes('--quick');
const NODES = Number(flag('--nodes', quick ? 1000 : 5000));
const PODS = Number(flag('--pods', quick ? 30000 : 150000));
const WINDOWS = Number(flag('--windows', Math.round(NODES * 0.3)));
const skip = new Set(flag('--skip', '').split(',').filter(Boolean));

// Bundled helper programs live under node_modules/.cache so that bare imports resolve from the repository.
const work = path.join(root, 'node_modules', '.cache', 'windeck-bench-inventory');
fs.mkdirSync(work, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-bench-'));

const programs = {
  sim: `
    import { KubeApiSimulator } from ${JSON.stringify(path.join(root, 'electron/sim/kube-api/server.ts'))};
    const [kubeconfig, nodes, windows, pods] = process.argv.slice(2);
    const t0 = Date.now();
    const sim = new KubeApiSimulator({ cluster: { nodes: Number(nodes), windows: Number(windows), pods: Number(pods), workloads: 'scale' }, bookmarkIntervalMs: 60000 });
    const genMs = Date.now() - t0;
    await sim.start();
    sim.writeKubeconfig(kubeconfig);
    console.log(JSON.stringify({ url: sim.url, genMs, counts: sim.cluster.counts, rssMB: Math.round(process.memoryUsage().rss / 1048576) }));
    process.stdin.resume();
    process.stdin.on('end', async () => { await sim.stop(); process.exit(0); });
  `,
  sync: `
    import { createServices } from ${JSON.stringify(path.join(root, 'electron/services/create-services.ts'))};
    import { nullSink } from ${JSON.stringify(path.join(root, 'electron/services/lib/log.ts'))};
    import { kubeInventory } from ${JSON.stringify(path.join(root, 'electron/services/kube/inventory.ts'))};
    import { PodsRepo } from ${JSON.stringify(path.join(root, 'electron/services/store/repos/pods.ts'))};
    const [kubeconfig, home] = process.argv.slice(2);
    const services = createServices({ home, host: 'cli', version: 'bench', logSink: nullSink });
    // The process's RSS with everything loaded and the store open, right before the sync: the target is the RSS the
    // sync adds on top of it (peak - this).
    const rssBeforeSyncKB = Math.round(process.memoryUsage().rss / 1024);
    const t0 = process.hrtime.bigint();
    const r = await kubeInventory(services.core).sync({ kubeconfig });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const stored = new PodsRepo(services.core.store.db).count(r.clusterId);
    const nodes = services.core.repos.nodes.listSummaries(r.clusterId).length;
    await services.dispose();
    console.log(JSON.stringify({ ms, nodes, pods: r.pods, storedPods: stored, storedNodes: nodes, timings: r.timings, rssBeforeSyncKB, maxRssKB: process.resourceUsage().maxRSS }));
  `,
  // Parse variants: the same paged list of all pods (limit 500), keeping different things per pod.
  parse: `
    import { KubeClient } from ${JSON.stringify(path.join(root, 'electron/services/kube/client.ts'))};
    import { resolveKubeconfig } from ${JSON.stringify(path.join(root, 'electron/services/kube/kubeconfig.ts'))};
    import { projectPod } from ${JSON.stringify(path.join(root, 'electron/services/kube/projections.ts'))};
    const [kubeconfig, variant] = process.argv.slice(2);
    const kept = [];
    const t0 = process.hrtime.bigint();
    if (variant === 'client-node') {
      const k8s = await import('@kubernetes/client-node');
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(kubeconfig);
      const api = kc.makeApiClient(k8s.CoreV1Api);
      let cont;
      do {
        const page = await api.listPodForAllNamespaces({ limit: 500, _continue: cont });
        for (const p of page.items) kept.push(p);
        cont = page.metadata?._continue || undefined;
      } while (cont);
    } else {
      const client = new KubeClient(resolveKubeconfig({ explicitPath: kubeconfig, env: {} }), { env: {} });
      const project = variant === 'projected' ? projectPod : (raw) => raw;
      let cont = null;
      do {
        const page = await client.listPage('/api/v1/pods', { limit: 500, continue: cont }, project);
        for (const p of page.items) kept.push(p);
        cont = page.continue;
      } while (cont);
      client.close();
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    global.gc?.();
    console.log(JSON.stringify({ ms, count: kept.length, heapMB: Math.round(process.memoryUsage().heapUsed / 1048576), maxRssKB: process.resourceUsage().maxRSS }));
  `,
};

async function bundle(name, source) {
  const entry = path.join(work, `${name}.entry.ts`);
  fs.writeFileSync(entry, source);
  const outfile = path.join(work, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    external: nodeExternals(),
    plugins: [withoutZodLocales],
    logLevel: 'warning',
    loader: { '.ps1': 'text' },
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  return outfile;
}

const hasTime = fs.existsSync('/usr/bin/time');

/** Run a command to completion; wall seconds and peak RSS (MB) measured from outside (/usr/bin/time -f). */
function measure(cmd, cmdArgs, options = {}) {
  const full = hasTime ? ['/usr/bin/time', ['-f', '__BENCH__ %e %M', cmd, ...cmdArgs]] : [cmd, cmdArgs];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(full[0], full[1], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', options.discardStdout ? 'ignore' : 'pipe', 'pipe'],
    env: options.env ?? process.env,
    timeout: 30 * 60_000,
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const line = (r.stderr ?? '')
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('__BENCH__'));
  const [, secs, kb] = line ? line.split(' ') : [];
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(' ')} failed (${r.status}): ${(r.stderr ?? '').slice(-2000)}`);
  return { seconds: secs ? Number(secs) : wall, rssMB: kb ? Number(kb) / 1024 : null, stdout: r.stdout ?? '' };
}

function lastJson(stdout) {
  const line = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  return JSON.parse(line);
}

const results = [];
let sim;
try {
  console.error(`Building helpers ...`);
  const files = {};
  for (const [name, source] of Object.entries(programs)) files[name] = await bundle(name, source);
  const kubeconfig = path.join(tmp, 'kubeconfig');

  console.error(`Starting the API simulator: ${NODES} nodes (${WINDOWS} Windows), ~${PODS} pods ...`);
  sim = spawn(process.execPath, [files.sim, kubeconfig, String(NODES), String(WINDOWS), String(PODS)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const simInfo = await new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: sim.stdout });
    rl.once('line', (l) => resolve(JSON.parse(l)));
    sim.once('exit', (code) => reject(new Error(`simulator exited (${code})`)));
  });
  console.error(`  generated in ${simInfo.genMs} ms: ${JSON.stringify(simInfo.counts)}, simulator RSS ${simInfo.rssMB} MB, ${simInfo.url}`);

  // Warm the simulator (first render of lazy objects, JIT) so no contender pays for it alone.
  measure(process.execPath, [files.parse, kubeconfig, 'projected']);

  console.error('windeck inventory sync (nodes, pods, events, DaemonSets -> SQLite) ...');
  const syncRun = measure(process.execPath, [files.sync, kubeconfig, path.join(tmp, 'home')]);
  const sync = lastJson(syncRun.stdout);
  const rssBeforeSyncMB = sync.rssBeforeSyncKB ? sync.rssBeforeSyncKB / 1024 : null;
  results.push({
    what: 'windeck sync: nodes+pods+events+ds -> SQLite',
    seconds: syncRun.seconds,
    rssMB: syncRun.rssMB,
    rssBeforeSyncMB,
    addedRssMB: rssBeforeSyncMB !== null && syncRun.rssMB !== null ? syncRun.rssMB - rssBeforeSyncMB : null,
    note: `${sync.storedNodes} nodes, ${sync.storedPods} pods stored; lists ${(sync.timings.listMs / 1000).toFixed(1)} s, store writes ${(sync.timings.writeMs / 1000).toFixed(1)} s; RSS before the sync ${rssBeforeSyncMB === null ? '?' : rssBeforeSyncMB.toFixed(0)} MB`,
  });
  if (sync.storedPods !== simInfo.counts.pods || sync.storedNodes !== simInfo.counts.nodes)
    throw new Error(`the store holds ${sync.storedNodes} nodes / ${sync.storedPods} pods, the simulator ${simInfo.counts.nodes} / ${simInfo.counts.pods}`);

  const kubectlEnv = { PATH: process.env.PATH, HOME: tmp, KUBECONFIG: kubeconfig };
  const kubectlOk = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
  if (skip.has('kubectl')) {
    results.push({ what: 'kubectl', seconds: null, rssMB: null, note: 'skipped (--skip kubectl)' });
  } else if (kubectlOk) {
    console.error('kubectl get nodes -o json ...');
    const kn = measure('kubectl', ['--cache-dir', path.join(tmp, 'kc-cache'), 'get', 'nodes', '-o', 'json'], { env: kubectlEnv, discardStdout: true });
    results.push({ what: 'kubectl get nodes -o json', seconds: kn.seconds, rssMB: kn.rssMB, note: 'output discarded' });
    console.error('kubectl get pods -A -o json ...');
    const kp = measure('kubectl', ['--cache-dir', path.join(tmp, 'kc-cache'), 'get', 'pods', '-A', '-o', 'json'], { env: kubectlEnv, discardStdout: true });
    results.push({ what: 'kubectl get pods -A -o json', seconds: kp.seconds, rssMB: kp.rssMB, note: 'output discarded' });
  } else {
    results.push({ what: 'kubectl', seconds: null, rssMB: null, note: 'kubectl not installed: not run' });
  }

  for (const variant of ['projected', 'raw-full', 'client-node']) {
    if (skip.has(variant)) continue;
    console.error(`parse variant ${variant} (all pods, pages of 500, kept in memory) ...`);
    try {
      const r = measure(process.execPath, ['--expose-gc', files.parse, kubeconfig, variant]);
      const j = lastJson(r.stdout);
      results.push({
        what: `list all pods, keep ${variant === 'projected' ? 'projections (windeck)' : variant === 'raw-full' ? 'JSON.parse full objects' : 'client-node typed objects'}`,
        seconds: r.seconds,
        rssMB: r.rssMB,
        note: `${j.count} pods, heap after GC ${j.heapMB} MB`,
      });
    } catch (error) {
      results.push({ what: `parse variant ${variant}`, seconds: null, rssMB: null, note: `failed: ${String(error.message).split('\n')[0]}` });
    }
  }
} finally {
  if (sim && sim.exitCode === null) sim.stdin.end();
  fs.rmSync(tmp, { recursive: true, force: true });
}

const fmt = (v, d = 1) => (v === null || v === undefined ? '-' : v.toFixed(d));
const base = results.find((r) => r.what === 'kubectl get pods -A -o json');
const nodesK = results.find((r) => r.what === 'kubectl get nodes -o json');
console.log(
  `\nInventory benchmark: ${NODES} nodes (${WINDOWS} Windows), ${PODS} pods, on ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'cpu'}), Node ${process.version}`,
);
console.log(`${'what'.padEnd(52)} ${'seconds'.padStart(8)} ${'peak RSS MB'.padStart(12)} ${'time/kubectl'.padStart(13)} ${'RSS/kubectl'.padStart(12)}  note`);
for (const r of results) {
  const kTime = base && nodesK ? base.seconds + nodesK.seconds : null;
  const tRatio = r.seconds !== null && kTime ? r.seconds / kTime : null;
  const mRatio = r.rssMB !== null && base?.rssMB ? r.rssMB / base.rssMB : null;
  console.log(
    `${r.what.padEnd(52)} ${fmt(r.seconds, 2).padStart(8)} ${fmt(r.rssMB, 0).padStart(12)} ${fmt(tRatio, 2).padStart(13)} ${fmt(mRatio, 2).padStart(12)}  ${r.note ?? ''}`,
  );
}
console.log('\nRatios: time against (kubectl get nodes + kubectl get pods -A), peak RSS against kubectl get pods -A. Lower is better.');
// For bench/run.mjs: one JSON object on the last line of stdout.
console.log(JSON.stringify({ bench: 'inventory', profile: quick ? 'quick' : 'full', nodes: NODES, windows: WINDOWS, pods: PODS, results }));
