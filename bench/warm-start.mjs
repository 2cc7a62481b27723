#!/usr/bin/env node
// Warm-start benchmark (not part of `npm test`): a store seeded by Windeck's own inventory sync from the API
// simulator (default 5,000 nodes, 1,500 Windows, 50,000 pods); then, repeatedly, a fresh process that opens the
// store and answers `nodes:list` through the real dispatch (offline: the store only). Measured from spawn to the
// answer line on stdout (includes Node's own start-up). Target < 1 s. Same run, alternating order:
//   - `node -e 0`: the floor (Node start-up alone);
//   - `windeck nodes --offline --json` (the CLI from the current sources) when it builds and is implemented;
//   - peer: `kubectl get nodes -o json` against the live simulator (kubectl has no local store: this is the
//     time a user waits for the same list without Windeck).
// The fleet view's first paint in Chromium is not measured here (see RESULTS.md).
// Prints one JSON object on the last line of stdout. Never fails on timing.
//
//   node bench/warm-start.mjs            5,000 nodes / 50,000 pods, 5 repetitions
//   node bench/warm-start.mjs --quick    2,000 nodes / 20,000 pods, 3 repetitions (the target is for the full size)
//   node bench/warm-start.mjs --nodes 2000 --pods 20000 --reps 3
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { bundleProgram, flag, root, windeckCli } from './lib/build.mjs';
import { runMeasured } from './lib/proc.mjs';
import { ratio, summarize } from './lib/stats.mjs';
import { helpAndExit } from './lib/usage.mjs';

const args = process.argv.slice(2);
helpAndExit(import.meta.url, args);
const quick = args.includes('--quick');
const NODES = Number(flag(args, '--nodes', quick ? 2000 : 5000));
const PODS = Number(flag(args, '--pods', quick ? 20000 : 50000));
const WINDOWS = Number(flag(args, '--windows', Math.round(NODES * 0.3)));
const REPS = Number(flag(args, '--reps', quick ? 3 : 5));
const TARGET_MS = 1000;
const imp = (p) => JSON.stringify(path.join(root, p));

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-warm-bench-'));
let sim = null;
const cleanup = () => {
  if (sim && sim.exitCode === null) sim.stdin.end();
  fs.rmSync(tmp, { recursive: true, force: true });
};
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

try {
  const files = {
    sim: await bundleProgram(
      'warm-start-sim',
      `import { KubeApiSimulator } from ${imp('electron/sim/kube-api/server.ts')};
      const [kubeconfig, nodes, windows, pods] = process.argv.slice(2);
      const sim = new KubeApiSimulator({ cluster: { nodes: Number(nodes), windows: Number(windows), pods: Number(pods), workloads: 'scale' }, bookmarkIntervalMs: 60000 });
      await sim.start();
      sim.writeKubeconfig(kubeconfig);
      console.log(JSON.stringify({ url: sim.url, counts: sim.cluster.counts }));
      process.stdin.resume();
      process.stdin.on('end', async () => { await sim.stop(); process.exit(0); });`,
    ),
    seed: await bundleProgram(
      'warm-start-seed',
      `import { createServices } from ${imp('electron/services/create-services.ts')};
      import { nullSink } from ${imp('electron/services/lib/log.ts')};
      import { kubeInventory } from ${imp('electron/services/kube/inventory.ts')};
      const [kubeconfig, home] = process.argv.slice(2);
      const services = createServices({ home, host: 'cli', version: 'bench', logSink: nullSink });
      const r = await kubeInventory(services.core).sync({ kubeconfig });
      const nodes = services.core.repos.nodes.listSummaries(r.clusterId).length;
      await services.dispose();
      console.log(JSON.stringify({ nodes, pods: r.pods }));`,
    ),
    answer: await bundleProgram(
      'warm-start-answer',
      `import { createServices } from ${imp('electron/services/create-services.ts')};
      import { nullSink } from ${imp('electron/services/lib/log.ts')};
      const services = createServices({ home: process.argv[2], host: 'cli', version: 'bench', logSink: nullSink, offline: true });
      const r = await services.dispatch('nodes:list', {});
      // performance.now() counts from the process's time origin (its start).
      console.log(JSON.stringify({ ok: r.ok, nodes: r.ok ? r.value.nodes.length : null, error: r.ok ? null : r.error, sinceProcessStartMs: performance.now() }));
      await services.dispose();`,
    ),
  };
  const cli = await windeckCli();

  const kubeconfig = path.join(tmp, 'kubeconfig');
  const home = path.join(tmp, 'home');
  console.error(`warm-start: API simulator with ${NODES} nodes (${WINDOWS} Windows), ${PODS} pods ...`);
  sim = spawn(process.execPath, [files.sim, kubeconfig, String(NODES), String(WINDOWS), String(PODS)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const simInfo = await new Promise((resolve, reject) => {
    readline.createInterface({ input: sim.stdout }).once('line', (l) => resolve(JSON.parse(l)));
    sim.once('exit', (code) => reject(new Error(`simulator exited (${code})`)));
  });
  const seedStarted = performance.now();
  const seed = await runMeasured(process.execPath, [files.seed, kubeconfig, home]);
  if (seed.code !== 0) throw new Error(`seeding the store failed: ${seed.stderr.slice(-1500)}`);
  const seeded = JSON.parse(seed.stdout.trim().split('\n').pop());
  const seedMs = performance.now() - seedStarted;
  const storeBytes = fs.readdirSync(home, { recursive: true }).reduce((n, f) => {
    const p = path.join(home, String(f));
    return n + (fs.statSync(p).isFile() ? fs.statSync(p).size : 0);
  }, 0);
  console.error(`warm-start: store seeded in ${(seedMs / 1000).toFixed(1)} s: ${seeded.nodes} nodes, ${seeded.pods} pods, ${(storeBytes / 1048576).toFixed(0)} MiB on disk`);

  // Is `windeck nodes --offline --json` there (implemented, answering from this store)?
  const probeCli = spawnSync(process.execPath, [cli.file, 'nodes', '--offline', '--json', '--home', home], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  let cliUsable = false;
  try {
    const j = JSON.parse(probeCli.stdout);
    cliUsable = probeCli.status === 0 && JSON.stringify(j).length > 1000;
  } catch {
    cliUsable = false;
  }
  const cliNote = cliUsable ? `windeck nodes --offline --json from ${cli.from}` : `windeck nodes --offline --json not measured: exit ${probeCli.status}: ${((probeCli.stderr || probeCli.stdout).split('\n').find((l) => /Error|not implemented/i.test(l)) ?? '').trim().slice(0, 200)} (CLI from ${cli.from})`;
  console.error(`warm-start: ${cliNote}`);

  const kubectlOk = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
  const contenders = {
    windeck: async () => {
      let answerMs = null;
      const r = await runMeasured(process.execPath, [files.answer, home], { onStdoutLine: (l, ms) => (answerMs ??= l.startsWith('{') ? ms : null) });
      const j = JSON.parse(r.stdout.trim().split('\n').pop());
      return { ms: answerMs, insideMs: j.sinceProcessStartMs, peakRssMiB: r.peakRssMiB, ok: r.code === 0 && j.ok && j.nodes === seeded.nodes, nodes: j.nodes };
    },
    nodeFloor: async () => {
      const r = await runMeasured(process.execPath, ['-e', '0']);
      return { ms: r.ms, peakRssMiB: r.peakRssMiB, ok: r.code === 0 };
    },
    ...(cliUsable
      ? {
          windeckCli: async () => {
            const r = await runMeasured(process.execPath, [cli.file, 'nodes', '--offline', '--json', '--home', home], { discardStdout: true });
            return { ms: r.ms, peakRssMiB: r.peakRssMiB, ok: r.code === 0 };
          },
        }
      : {}),
    ...(kubectlOk
      ? {
          kubectl: async () => {
            const r = await runMeasured('kubectl', ['--cache-dir', path.join(tmp, 'kc-cache'), 'get', 'nodes', '-o', 'json'], { env: { PATH: process.env.PATH, HOME: tmp, KUBECONFIG: kubeconfig }, discardStdout: true });
            return { ms: r.ms, peakRssMiB: r.peakRssMiB, ok: r.code === 0 };
          },
        }
      : {}),
  };
  const names = Object.keys(contenders);
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  // One unmeasured round first (page cache, simulator JIT) so no contender pays for it alone.
  for (const n of names) await contenders[n]();
  for (let rep = 0; rep < REPS; rep += 1) {
    const order = rep % 2 === 0 ? names : [...names].reverse();
    for (const n of order) {
      const r = await contenders[n]();
      runs[n].push(r);
      console.error(`  rep ${rep + 1} ${n.padEnd(11)} ${r.ms === null ? '-' : Math.round(r.ms)} ms, peak ${r.peakRssMiB} MiB${r.ok ? '' : ' FAILED'}`);
    }
  }
  const sum = (n) => (runs[n] ? { ms: summarize(runs[n].filter((r) => r.ok).map((r) => r.ms)), peakRssMiB: summarize(runs[n].filter((r) => r.ok).map((r) => r.peakRssMiB)), failedRuns: runs[n].filter((r) => !r.ok).length } : null);
  const windeck = { ...sum('windeck'), insideProcessMs: summarize(runs.windeck.filter((r) => r.ok).map((r) => r.insideMs)), nodesAnswered: runs.windeck[0]?.nodes ?? null };
  const result = {
    bench: 'warm-start',
    profile: quick ? 'quick' : 'full',
    store: { simulator: simInfo.counts, nodes: seeded.nodes, pods: seeded.pods, windowsNodes: WINDOWS, mibOnDisk: Math.round(storeBytes / 1048576), seedSeconds: Math.round(seedMs / 100) / 10, seedPeakRssMiB: seed.peakRssMiB },
    repetitions: REPS,
    order: 'alternating (reversed on even repetitions), one unmeasured warm-up round',
    targetMs: TARGET_MS,
    windeck,
    nodeFloor: sum('nodeFloor'),
    windeckCli: cliUsable ? sum('windeckCli') : { notMeasured: cliNote },
    kubectl: kubectlOk ? sum('kubectl') : { notMeasured: 'kubectl not installed' },
    ratio: { windeckVsKubectl: kubectlOk ? ratio(windeck.ms.median, runs.kubectl.length ? summarize(runs.kubectl.filter((r) => r.ok).map((r) => r.ms)).median : null) : null },
    firstPaint: 'not measured: needs the Electron/Chromium fleet view under a headless browser (not wired into the bench yet)',
  };
  console.log(JSON.stringify(result));
} finally {
  cleanup();
}
