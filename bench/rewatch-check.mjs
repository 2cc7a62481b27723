#!/usr/bin/env node
// Check of the feed simulator's rewatch replay (lib/feed.mjs; not part of `npm test` or `run.mjs`): Windeck's live
// inventory watches 1,000 simulated nodes; runs of 8 s at 2,000 MODIFIED events/s each end Windeck's watch 3 s in
// (the simulator's `endWatches`, as the server does at a watch's timeoutSeconds). Windeck watches again from its last
// resourceVersion and the simulator replays what it sent in between, as kube-apiserver's watch cache does. A quick
// reconnect can fall between two of the simulator's 5 ms ticks, with nothing to replay, so it runs until two runs
// replayed events (at most 6). Prints one JSON line per run (sent, stored, replays); exits 1 when an event was never
// stored or no run replayed anything.
//
//   node bench/rewatch-check.mjs
//   --help   this text
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { feedPrograms, startLineChild } from './lib/feed.mjs';
import { helpAndExit } from './lib/usage.mjs';

helpAndExit(import.meta.url);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-rewatch-'));
let sim = null;
let windeck = null;
let lost = 0;
let replayed = 0;
try {
  const programs = await feedPrograms();
  const kubeconfig = path.join(tmp, 'kubeconfig');
  sim = await startLineChild(programs.sim, [kubeconfig, '1000', '300', '2000', '0', '13'], { name: 'simulator' });
  windeck = await startLineChild(programs.windeck, [kubeconfig, path.join(tmp, 'home'), ''], { name: 'windeck' });
  for (let i = 1; i <= 6 && replayed < 2; i++) {
    await windeck.call('reset', { minSeq: (await sim.call('seq')).seq + 1 });
    const running = sim.call('run', { plural: 'nodes', rate: 2000, seconds: 8, to: 'windeck' });
    await sleep(3000);
    const { ended } = await sim.call('endWatches', {});
    const run = await running;
    await sleep(3000);
    const { stored } = await windeck.call('counts');
    lost += run.total - stored;
    if (run.rewatchReplays.some((r) => r.events > 0)) replayed++;
    console.log(JSON.stringify({ run: i, watchesEnded: ended, sent: run.total, stored, neverStored: run.total - stored, replays: run.rewatchReplays }));
  }
} finally {
  await windeck?.stop().catch(() => undefined);
  await sim?.stop().catch(() => undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
}
if (lost > 0 || replayed === 0) {
  console.error(`rewatch-check: ${lost} events never stored; ${replayed} runs replayed events`);
  process.exit(1);
}
