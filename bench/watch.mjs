#!/usr/bin/env node
/* global window, document, requestAnimationFrame, MutationObserver -- page.evaluate bodies run in Chromium */
// Watch benchmark (issue 10 item 2, not part of `npm test`): MODIFIED node events at 100, 1,000 and 5,000 per second
// from the API simulator (pre-serialized, see lib/feed.mjs) into Windeck's live inventory (reflector + batched
// SQLite writes, electron/services/kube/inventory.ts) in its own process. Lag per event from the moment it left
// the simulator (send time embedded in the event) to:
//   - the store: the store:changed that follows the flush writing its row (the row is checked);
//   - the screen: at 2,000/s, the fleet view in headless Chromium (web host of the same process) showing the
//     event's value (or a newer one) in the row's Runtime cell, stamped after the next frame;
//   - peer: `kubectl get nodes --watch-only -o json` reading the same pre-serialized stream (lag to its stdout),
//     in its own phases so the two never share the simulator's CPU.
// Backlog: events sent but not in the store when sending stops, and 1 s later. Says when the simulator could not
// send at the asked rate (it is then the bottleneck). Never fails on timing. Last stdout line: one JSON object.
//
//   node bench/watch.mjs              5,000 nodes, 5 min per rate, 5 min to the screen, kubectl 60 s per rate
//   node bench/watch.mjs --quick      1,000 nodes, 15 s per rate, 20 s to the screen, kubectl 10 s at 100 and 1,000/s
//   node bench/watch.mjs --nodes 2000 --seconds 30 --no-kubectl --no-screen
//   node bench/watch.mjs --rates 1000 --seconds 10 --no-screen --no-kubectl --cpu-prof /tmp/prof   (V8 profile of Windeck)
//   ... --sim-cpu-prof /tmp/simprof   (V8 profile of the API simulator: is it the bottleneck?)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { flag, rendererStatic } from './lib/build.mjs';
import { epochNow, feedPrograms, startLineChild } from './lib/feed.mjs';
import { percentile } from './lib/stats.mjs';
import { CHROMIUM, launchChromium } from './lib/chromium.mjs';
import { helpAndExit } from './lib/usage.mjs';

const args = process.argv.slice(2);
helpAndExit(import.meta.url, args);
const quick = args.includes('--quick');
const NODES = Number(flag(args, '--nodes', quick ? 1000 : 5000));
const PODS = Number(flag(args, '--pods', quick ? 2000 : 10000));
const RATES = flag(args, '--rates', '100,1000,5000').split(',').map(Number);
const SECONDS = Number(flag(args, '--seconds', quick ? 15 : 300));
const SCREEN_RATE = Number(flag(args, '--screen-rate', 2000));
const SCREEN_SECONDS = Number(flag(args, '--screen-seconds', quick ? 20 : 300));
const KUBECTL_RATES = flag(args, '--kubectl-rates', quick ? '100,1000' : '100,1000,5000')
  .split(',')
  .map(Number);
const KUBECTL_SECONDS = Number(flag(args, '--kubectl-seconds', quick ? 10 : 60));
const DRAIN_MS = quick ? 5000 : 15000;
// Before the next phase starts, Windeck must have caught up (else its backlog would count against the next rate).
const SETTLE_MS = quick ? 60_000 : 300_000;
const NODE_KB = Number(flag(args, '--node-kb', 13));
const SCREEN = !args.includes('--no-screen');
const KUBECTL = !args.includes('--no-kubectl') && spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

const r1 = (x) => (x === null || x === undefined ? null : Math.round(x * 10) / 10);
const lagSummary = (xs) => ({
  n: xs.length,
  p50: r1(percentile(xs, 50)),
  p95: r1(percentile(xs, 95)),
  p99: r1(percentile(xs, 99)),
  max: r1(xs.length ? Math.max(...xs) : null),
});
const round = (o) => JSON.parse(JSON.stringify(o, (k, v) => (typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 10) / 10 : v)));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.error('watch:', ...a);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-watch-bench-'));
let sim = null;
let windeck = null;
let browser = null;
let kubectl = null;
async function cleanup() {
  await browser?.close().catch(() => undefined);
  if (kubectl && kubectl.exitCode === null) kubectl.kill('SIGTERM');
  await windeck?.stop().catch(() => undefined);
  await sim?.stop().catch(() => undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
process.on('SIGTERM', () => void cleanup().then(() => process.exit(143)));

/** Poll `fn` every 100 ms until it returns truthy or `ms` passed; returns the last value. */
async function until(fn, ms) {
  const end = Date.now() + ms;
  let v = await fn();
  while (!v && Date.now() < end) {
    await sleep(100);
    v = await fn();
  }
  return v;
}

/**
 * One rate into Windeck's store: lag percentiles, backlog when sending stopped and 1 s later, drain time (within
 * DRAIN_MS). With `settle`, then waits (up to SETTLE_MS) until Windeck has stored everything, so the next phase starts
 * clean; the time it took is reported as `caughtUpMs`.
 */
async function storePhase(rate, seconds, extra = {}, settle = true) {
  await windeck.call('reset', { minSeq: (await sim.call('seq')).seq + 1 });
  const run = await sim.call('run', { plural: 'nodes', rate, seconds, to: 'windeck', ...extra });
  const atEnd = await windeck.call('counts');
  const backlogAtEnd = run.total - atEnd.stored;
  // Poll every 20 ms: when did the last event reach the store, and what was left 1 s after sending stopped.
  let drainedMs = null;
  let after1s = null;
  const stop = epochNow() + DRAIN_MS;
  for (;;) {
    const c = await windeck.call('counts');
    const t = epochNow();
    if (after1s === null && t - run.endedAt >= 1000) after1s = c;
    if (c.stored >= run.total) {
      drainedMs ??= t - run.endedAt;
      if (after1s) break;
    } else if (t > stop) break;
    await sleep(20);
  }
  after1s ??= await windeck.call('counts');
  const drained = await windeck.call('counts');
  let caughtUpMs = drainedMs;
  if (settle && drainedMs === null) {
    log(`  waiting up to ${SETTLE_MS / 1000} s for Windeck to store the backlog of ${run.total - drained.stored} events`);
    const ok = await until(async () => (await windeck.call('counts')).stored >= run.total, SETTLE_MS);
    caughtUpMs = ok ? epochNow() - run.endedAt : null;
  }
  // Lag over every event stored by now (the late ones of a backlog included); the rest is `neverStored`.
  const stats = await windeck.call('stats');
  return {
    run,
    stats,
    result: round({
      rate,
      seconds: run.seconds,
      sent: run.total,
      achievedRate: run.achievedRate,
      simBottleneck: run.achievedRate < rate * 0.95 || run.lateTicks > run.seconds * 2,
      simCpuPercent: run.simCpuPercent,
      mbPerSecond: run.mbPerSecond,
      lateTicks: run.lateTicks,
      simQueuedBytes: { max: run.maxQueuedBytes, atEnd: run.queuedBytesAtEnd },
      // Windeck's watch closed by the simulator as too slow (see feed.mjs; kube-apiserver does the same).
      ...(run.slowWatchersClosed?.length ? { watchClosedAsTooSlow: run.slowWatchersClosed } : {}),
      // Windeck's watch ended (the server's timeoutSeconds) and was taken up again during the phase: the events sent
      // in between, replayed by the simulator as kube-apiserver's watch cache would (see feed.mjs).
      ...(run.rewatchReplays?.length ? { rewatchReplays: run.rewatchReplays } : {}),
      received: stats.received,
      // Superseded by a newer event of the same node before Windeck parsed it (stored with that newer one).
      coalesced: stats.coalesced,
      stored: stats.stored,
      backlogAtEnd,
      backlogAfter1s: run.total - after1s.stored,
      drainedMs,
      notStoredAfterDrain: run.total - drained.stored,
      caughtUpMs,
      neverStored: run.total - stats.stored,
      storeLagMs: stats.storeLagMs,
      receiveLagMs: stats.receiveLagMs,
      rowChecks: { checked: stats.checked, mismatches: stats.mismatches },
      eventLoopDelayMs: stats.eventLoopDelayMs,
      // Windeck's CPU time (all its threads) from the phase start to the end of the drain window, per event stored.
      windeckCpuUsPerEvent: stats.stored ? (stats.cpuMs * 1000) / stats.stored : null,
      windeckRssMiB: stats.rssMiB,
      reflector: {
        watches: stats.reflector.watches,
        relists: stats.reflector.relists,
        stalls: stats.reflector.stalls,
        garbageLines: stats.reflector.garbageLines,
      },
    }),
  };
}

/** The peer: kubectl get nodes --watch-only -o json, lag from the simulator to kubectl's stdout. */
async function kubectlPhases(kubeconfig) {
  const seen = [];
  let carry = '';
  kubectl = spawn('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', path.join(tmp, 'kc-cache'), 'get', 'nodes', '--watch-only', '-o', 'json'], {
    env: { PATH: process.env.PATH, HOME: tmp },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let kerr = '';
  kubectl.stderr.on('data', (d) => (kerr = (kerr + d).slice(-2000)));
  // kubectl prints annotations sorted: sent, then seq. Events of an earlier phase still coming out are not counted.
  const re = /"windeck\.bench\/sent": "([\d.]+)",\s*"windeck\.bench\/seq": "(\d+)"/g;
  let minSeq = 0;
  kubectl.stdout.on('data', (d) => {
    const t = epochNow();
    const text = carry + d;
    re.lastIndex = 0;
    let m;
    let lastEnd = 0;
    while ((m = re.exec(text))) {
      if (Number(m[2]) >= minSeq) seen.push(t - Number(m[1]));
      lastEnd = re.lastIndex;
    }
    carry = text.slice(Math.max(lastEnd, text.length - 200));
  });
  const tap = await until(async () => (await sim.call('taps')).taps.some((x) => x.plural === 'nodes' && x.ua.startsWith('kubectl')), 180_000);
  if (!tap) return { notMeasured: `kubectl's watch did not open within 180 s: ${kerr.trim().split('\n').pop() ?? ''}` };
  await sleep(500);
  const phases = [];
  for (const rate of KUBECTL_RATES) {
    seen.length = 0;
    minSeq = (await sim.call('seq')).seq + 1;
    log(`kubectl peer at ${rate}/s for ${KUBECTL_SECONDS} s`);
    const run = await sim.call('run', { plural: 'nodes', rate, seconds: KUBECTL_SECONDS, to: 'kubectl' });
    const atEnd = seen.length;
    await sleep(Math.max(0, run.endedAt + 1000 - epochNow()));
    const after1s = seen.length;
    // The simulator closed kubectl's watch as too slow (as kube-apiserver does): what was sent after that never
    // reaches it, so there is nothing to wait for.
    const closed = (run.slowWatchersClosed ?? []).filter((c) => c.ua.startsWith('kubectl'));
    let drainedMs = null;
    await until(
      () => {
        if (seen.length >= run.total) drainedMs = epochNow() - run.endedAt;
        return seen.length >= run.total || (closed.length > 0 && kubectl.exitCode !== null);
      },
      closed.length > 0 ? 30_000 : DRAIN_MS,
    );
    phases.push(
      round({
        rate,
        seconds: run.seconds,
        sent: run.total,
        achievedRate: run.achievedRate,
        simCpuPercent: run.simCpuPercent,
        printed: seen.length,
        backlogAtEnd: run.total - atEnd,
        backlogAfter1s: run.total - after1s,
        drainedMs,
        notPrintedAfterDrain: run.total - seen.length,
        stdoutLagMs: lagSummary(seen),
        ...(closed.length > 0 ? { watchClosedAsTooSlow: { afterSeconds: closed[0].atSeconds, queuedBytes: closed[0].queuedBytes } } : {}),
      }),
    );
    if (closed.length > 0) {
      log(
        `  kubectl fell ${Math.round(closed[0].queuedBytes / 1048576)} MiB behind at ${rate}/s after ${closed[0].atSeconds.toFixed(1)} s: the simulator closed its watch (as kube-apiserver closes a too slow watcher); later rates not measured`,
      );
      break;
    }
    // Let kubectl catch up before the next rate (it may be far behind at high rates).
    await until(() => seen.length >= run.total, DRAIN_MS);
  }
  kubectl.kill('SIGTERM');
  return { command: 'kubectl get nodes --watch-only -o json', phases };
}

/** At SCREEN_RATE: lag from the simulator to the fleet view in headless Chromium. */
async function screenPhase() {
  if (!fs.existsSync(CHROMIUM)) return { notMeasured: `Chromium not found at ${CHROMIUM} (apt-get install -y chromium)` };
  const { url } = await windeck.call('serve');
  browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  await page.goto(url);
  await page.waitForSelector('.fleet-table tbody tr td.cell-name', { timeout: 120_000 });
  // Wait for the rows to carry the feed's runtime marker? Not needed: the first event of a row brings it.
  const names = await page.locator('.fleet-table tbody tr td.cell-name').allTextContents();
  await page.evaluate(() => {
    const w = window;
    w.__seen = [];
    const last = new Map();
    let queue = [];
    const stamp = () => {
      const t = performance.timeOrigin + performance.now();
      for (const q of queue) w.__seen.push([...q, t]);
      queue = [];
    };
    const scan = () => {
      for (const tr of document.querySelectorAll('.fleet-table tbody tr')) {
        const cells = tr.children;
        if (cells.length < 5) continue;
        const name = cells[0].textContent.trim();
        const m = /\+bench\.(\d+)\.([\d.]+)/.exec(cells[4].textContent);
        if (!m) continue;
        const seq = Number(m[1]);
        if ((last.get(name) ?? -1) >= seq) continue;
        last.set(name, seq);
        // Stamped after the frame that shows it (next animation frame, then a task after it).
        if (!queue.length) requestAnimationFrame(() => setTimeout(stamp, 0));
        queue.push([name, seq, Number(m[2])]);
      }
    };
    new MutationObserver(scan).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  log(`screen: ${SCREEN_RATE}/s for ${SCREEN_SECONDS} s; ${names.length} rows rendered, 10% of the events go to them`);
  const phase = await storePhase(SCREEN_RATE, SCREEN_SECONDS, { track: { names, share: 0.1 } }, true);
  // Give the screen the drain window too.
  const lastTracked = new Map();
  for (const [name, seq] of phase.run.tracked) lastTracked.set(name, seq);
  await until(async () => {
    const seen = await page.evaluate(() => window.__seen);
    const best = new Map();
    for (const [n, s] of seen) best.set(n, Math.max(best.get(n) ?? -1, s));
    return [...lastTracked].every(([n, s]) => (best.get(n) ?? -1) >= s);
  }, DRAIN_MS);
  const seen = await page.evaluate(() => window.__seen);
  const byName = new Map();
  for (const [n, s, , t] of seen) {
    if (!byName.has(n)) byName.set(n, []);
    byName.get(n).push([s, t]);
  }
  const lags = [];
  let notShown = 0;
  for (const [n, s, ts] of phase.run.tracked) {
    const shown = (byName.get(n) ?? []).find(([s2]) => s2 >= s);
    if (shown) lags.push(shown[1] - ts);
    else notShown++;
  }
  const shownValueLag = seen.map(([, , sent, t]) => t - sent);
  return round({
    rate: SCREEN_RATE,
    seconds: phase.run.seconds,
    rowsTracked: names.length,
    trackedEvents: phase.run.tracked.length,
    notShownAfterDrain: notShown,
    // Every traced event: until its value or a newer one of the same row was on the screen.
    screenLagMs: lagSummary(lags),
    // Only the values that made it to the screen (the others were superseded before a refresh).
    shownValueLagMs: lagSummary(shownValueLag),
    valuesShown: seen.length,
    store: phase.result,
  });
}

try {
  const programs = await feedPrograms();
  const kubeconfig = path.join(tmp, 'kubeconfig');
  log(`API simulator with ${NODES} nodes (${Math.round(NODES * 0.3)} Windows), ${PODS} pods; pre-serializing every node ...`);
  const simCpuProf = flag(args, '--sim-cpu-prof', null);
  sim = await startLineChild(programs.sim, [kubeconfig, String(NODES), String(Math.round(NODES * 0.3)), String(PODS), '0', String(NODE_KB)], {
    name: 'simulator',
    ...(simCpuProf ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', path.resolve(simCpuProf)] } : {}),
  });
  log(`simulator ready: ${JSON.stringify(sim.info.counts)}, ${Math.round(sim.info.templateBytes.nodes / 1024)} KB per node event`);
  const staticDir = SCREEN ? await rendererStatic() : null;
  const t0 = epochNow();
  const cpuProf = flag(args, '--cpu-prof', null);
  windeck = await startLineChild(programs.windeck, [kubeconfig, path.join(tmp, 'home'), staticDir?.dir ?? ''], {
    name: 'windeck',
    ...(cpuProf ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', path.resolve(cpuProf)] } : {}),
  });
  log(`windeck live inventory synced in ${((epochNow() - t0) / 1000).toFixed(1)} s: ${windeck.info.nodes} nodes, ${windeck.info.pods} pods`);

  // Order: the rates up to the screen rate, the screen, the higher rates (their backlog cannot spill into the screen).
  const store = [];
  const storeRate = async (rate, i) => {
    log(`store: ${rate}/s for ${SECONDS} s`);
    const { result } = await storePhase(rate, SECONDS, {}, i < RATES.length - 1);
    log(
      `  sent ${result.sent} (${result.achievedRate}/s, simulator CPU ${result.simCpuPercent}%), lag to store p50 ${result.storeLagMs.p50} p99 ${result.storeLagMs.p99} ms, backlog at end ${result.backlogAtEnd}, after 1 s ${result.backlogAfter1s}${result.caughtUpMs !== result.drainedMs ? `, caught up after ${result.caughtUpMs === null ? 'more than ' + SETTLE_MS / 1000 + ' s' : Math.round(result.caughtUpMs / 1000) + ' s'}` : ''}${result.rewatchReplays ? `; watch taken up again ${result.rewatchReplays.length}x: ${JSON.stringify(result.rewatchReplays)}` : ''}`,
    );
    store.push(result);
  };
  for (const [i, rate] of RATES.entries()) if (rate <= SCREEN_RATE) await storeRate(rate, i);
  let screen = null;
  if (SCREEN) {
    try {
      screen = await screenPhase();
      if (screen.screenLagMs)
        log(
          `  screen lag p50 ${screen.screenLagMs.p50} p99 ${screen.screenLagMs.p99} ms over ${screen.trackedEvents} traced events (${screen.notShownAfterDrain} not shown)`,
        );
    } catch (error) {
      screen = { notMeasured: `screen phase failed: ${String(error.message).split('\n')[0]}` };
      log(screen.notMeasured);
    } finally {
      await browser?.close().catch(() => undefined);
      browser = null;
    }
  } else screen = { notMeasured: '--no-screen' };
  for (const [i, rate] of RATES.entries()) if (rate > SCREEN_RATE) await storeRate(rate, i);
  // kubectl alone: Windeck (possibly still working off a backlog) is stopped first.
  await windeck.stop();
  windeck = null;
  const peer = KUBECTL ? await kubectlPhases(kubeconfig) : { notMeasured: 'kubectl not installed or --no-kubectl' };
  for (const p of peer.phases ?? [])
    log(`  kubectl at ${p.rate}/s: lag to stdout p50 ${p.stdoutLagMs.p50} p99 ${p.stdoutLagMs.p99} ms, backlog after 1 s ${p.backlogAfter1s}`);
  const simRss = await sim.call('rss');
  console.log(
    JSON.stringify({
      bench: 'watch',
      profile: quick ? 'quick' : 'full',
      cluster: { nodes: NODES, pods: PODS, nodeEventBytes: Math.round(sim.info.templateBytes.nodes) },
      renderer: staticDir?.from ?? null,
      store,
      screen,
      kubectl: peer,
      simulatorRssMiB: Math.round(simRss.rssMiB),
    }),
  );
} finally {
  await cleanup();
}
