#!/usr/bin/env node
// Memory benchmark (issue 10 item 8, not part of `npm test`): a Windeck backend process (services + live
// list+watch of every resource into the store + the web host, what `windeck serve` runs) watching a simulated
// cluster of 5,000 nodes and 50,000 pods for 10 minutes under a steady stream of MODIFIED events (pre-serialized,
// see lib/feed.mjs: 50 node events/s of ~13 KB and 100 pod events/s by default), with the fleet view open in
// headless Chromium. Reports:
//   - RSS of the backend process (VmRSS, sampled every 5 s; peak = max sample and the kernel's VmHWM);
//   - RSS of Chromium's renderer process(es) (/proc, processes with --type=renderer under this benchmark), and after
//     the run the RSS of a blank page's renderer in the same Chromium (the floor any page starts from);
//   - heap after a forced GC at the start and at the end: backend (node --expose-gc, gc() twice) and renderer (CDP
//     HeapProfiler.collectGarbage, Runtime.getHeapUsage); drift scaled to 10 minutes.
// Targets: backend <= 600 MB, renderer <= 150 MB, heap drift after GC <= 1 MB per 10 minutes. Never fails on timing.
//
//   node bench/memory.mjs             5,000 nodes / 50,000 pods, 10 minutes
//   node bench/memory.mjs --quick     1,000 nodes / 10,000 pods, 2 minutes
//   node bench/memory.mjs --nodes 2000 --pods 20000 --minutes 5 --node-rate 50 --pod-rate 100
//   --heap-snapshots DIR   renderer heap snapshots after GC at the start, every checkpoint and the end
//   --checkpoints N        split the run into N equal parts; after each part log the renderer heap after GC (and
//                          the breakdown / snapshot when asked). Forces GCs mid-run: for finding leaks, not for numbers.
//   --breakdown            at start, checkpoints and end: the renderer's memory by allocator (Chromium memory-infra
//                          dump: v8, blink_gc, partition_alloc, malloc, cc, skia, ...), V8 heap committed vs used,
//                          DOM counters, resident pages by mapping (/proc/<pid>/smaps); goes into the JSON as
//                          rendererProcess.breakdown
//   --help                 this text
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { flag, rendererStatic } from './lib/build.mjs';
import { epochNow, feedPrograms, startLineChild } from './lib/feed.mjs';
import { CHROMIUM, descendants, launchChromium, memoryInfraDump, processCpuMs, smapsByMapping } from './lib/chromium.mjs';
import { helpAndExit } from './lib/usage.mjs';

const args = process.argv.slice(2);
helpAndExit(import.meta.url, args);
const quick = args.includes('--quick');
const NODES = Number(flag(args, '--nodes', quick ? 1000 : 5000));
const PODS = Number(flag(args, '--pods', quick ? 10000 : 50000));
const MINUTES = Number(flag(args, '--minutes', quick ? 2 : 10));
const NODE_RATE = Number(flag(args, '--node-rate', 50));
const POD_RATE = Number(flag(args, '--pod-rate', 100));
const POD_TEMPLATES = Math.min(PODS, 5000);
/** `--heap-snapshots DIR`: renderer heap snapshots (after GC) at the start and at the end, for what grows. */
const SNAPSHOT_DIR = flag(args, '--heap-snapshots', null);
/** `--static DIR`: a renderer built elsewhere (e.g. from an older commit, for a back-to-back comparison). */
const STATIC_DIR = flag(args, '--static', null);
const CHECKPOINTS = Math.max(1, Number(flag(args, '--checkpoints', 1)));
const BREAKDOWN = args.includes('--breakdown');
const SAMPLE_MS = 5000;
const log = (...a) => console.error('memory:', ...a);
const mib = (kb) => Math.round((kb / 1024) * 10) / 10;
const r1 = (x) => (x === null || x === undefined ? null : Math.round(x * 10) / 10);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-memory-bench-'));
let sim = null;
let windeck = null;
let browser = null;
async function cleanup() {
  await browser?.close().catch(() => undefined);
  await windeck?.stop().catch(() => undefined);
  await sim?.stop().catch(() => undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
process.on('SIGTERM', () => void cleanup().then(() => process.exit(143)));

function status(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
    return { rssKB: kb('VmRSS'), hwmKB: kb('VmHWM'), rssAnonKB: kb('RssAnon'), rssFileKB: kb('RssFile'), rssShmemKB: kb('RssShmem') };
  } catch {
    return null;
  }
}
/** Chromium's renderer processes (--type=renderer) under this benchmark, and every Chromium process. */
function chromiumProcesses() {
  const renderers = [];
  const all = [];
  for (const pid of descendants(process.pid)) {
    let cmd = '';
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!/chrom/i.test(cmd)) continue;
    all.push(pid);
    // Chromium's own WebUI and extension renderers are not the page's.
    if (cmd.includes('--type=renderer') && !cmd.includes('--top-chrome-webui') && !cmd.includes('--extension-process')) renderers.push(pid);
  }
  return { renderers, all };
}
/** Private (anonymous) and proportional memory of a process, kB. */
function smaps(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return { pssKB: Number(/^Pss:\s+(\d+)/m.exec(s)?.[1] ?? 0), anonKB: Number(/^Anonymous:\s+(\d+)/m.exec(s)?.[1] ?? 0) };
  } catch {
    return { pssKB: null, anonKB: null };
  }
}

/**
 * The renderer of a blank page (a data: URL, its own browser context and so its own renderer process, same viewport)
 * in the same Chromium, 3 s after it loaded: the part of the page's renderer RSS that is Chromium's own (its code and
 * data pages, V8 and Blink start-up) and that the page cannot shrink. Null when no new renderer process appeared.
 */
async function blankPageFloor() {
  const before = new Set(chromiumProcesses().renderers);
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto('data:text/html,<!doctype html><title>blank</title><p>blank</p>');
    await sleep(3000);
    let best = null;
    for (const pid of chromiumProcesses().renderers.filter((p) => !before.has(p))) {
      const st = status(pid);
      if (st && (!best || st.rssKB > best.rssKB)) best = { ...st, ...smaps(pid) };
    }
    return (
      best && {
        rssMiB: mib(best.rssKB),
        rssAnonMiB: mib(best.rssAnonKB),
        rssFileMiB: mib(best.rssFileKB),
        anonymousMiB: mib(best.anonKB ?? 0),
        pssMiB: mib(best.pssKB ?? 0),
      }
    );
  } finally {
    await context.close();
  }
}

try {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  const programs = await feedPrograms();
  const renderer = STATIC_DIR ? { dir: path.resolve(STATIC_DIR), from: `prebuilt ${path.resolve(STATIC_DIR)}` } : await rendererStatic();
  const kubeconfig = path.join(tmp, 'kubeconfig');
  log(`API simulator with ${NODES} nodes, ${PODS} pods ...`);
  sim = await startLineChild(programs.sim, [kubeconfig, String(NODES), String(Math.round(NODES * 0.3)), String(PODS), String(POD_TEMPLATES), '13'], {
    name: 'simulator',
  });
  const t0 = epochNow();
  windeck = await startLineChild(programs.windeck, [kubeconfig, path.join(tmp, 'home'), renderer.dir], { name: 'windeck', nodeArgs: ['--expose-gc'] });
  const syncSeconds = (epochNow() - t0) / 1000;
  log(`windeck synced in ${syncSeconds.toFixed(1)} s: ${windeck.info.nodes} nodes, ${windeck.info.pods} pods`);
  const { url } = await windeck.call('serve');
  browser = await launchChromium();
  const before = new Set(chromiumProcesses().renderers);
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  await page.goto(url);
  await page.waitForSelector('.fleet-table tbody tr td.cell-name', { timeout: 180_000 });
  // The page's renderer: the renderer process(es) that appeared for it (site isolation gives the page its own).
  const fresh = chromiumProcesses().renderers.filter((p) => !before.has(p));
  const pageRenderers = fresh.length ? fresh : chromiumProcesses().renderers;
  const pageRenderer = () => {
    let best = null;
    for (const pid of pageRenderers) {
      const st = status(pid);
      if (st && (!best || st.rssKB > best.rssKB)) best = { pid, ...st, ...smaps(pid) };
    }
    return best;
  };
  log(`page renderer: pid ${pageRenderer()?.pid} (${pageRenderers.length} new renderer process(es))`);
  const cdp = await page.context().newCDPSession(page);
  const rendererHeap = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('HeapProfiler.collectGarbage');
    const u = await cdp.send('Runtime.getHeapUsage');
    return u.usedSize / 1048576;
  };
  const snapshot = async (name) => {
    if (!SNAPSHOT_DIR) return;
    fs.mkdirSync(SNAPSHOT_DIR, { recursive: true });
    const file = path.join(SNAPSHOT_DIR, `${name}.heapsnapshot`);
    const out = fs.openSync(file, 'w');
    const onChunk = (e) => fs.writeSync(out, e.chunk);
    cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
    await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
    fs.closeSync(out);
    log(`heap snapshot ${file}`);
  };

  /** Where the renderer's memory is (--breakdown): allocators, V8 heap committed vs used, DOM counters. */
  const breakdowns = [];
  const breakdown = async (label) => {
    if (!BREAKDOWN) return;
    const pid = pageRenderer()?.pid ?? null;
    const heap = await cdp.send('Runtime.getHeapUsage');
    const dom = await cdp.send('Memory.getDOMCounters').catch(() => null);
    const st = pid === null ? null : status(pid);
    const entry = {
      label,
      t: Math.round((epochNow() - (startAt ?? epochNow())) / 1000),
      rssMiB: st ? mib(st.rssKB) : null,
      rssAnonMiB: st ? mib(st.rssAnonKB) : null,
      rssShmemMiB: st ? mib(st.rssShmemKB) : null,
      v8HeapMiB: {
        used: r1(heap.usedSize / 1048576),
        committed: r1(heap.totalSize / 1048576),
        embedderUsed: r1((heap.embedderHeapUsedSize ?? 0) / 1048576),
        backingStorage: r1((heap.backingStorageSize ?? 0) / 1048576),
      },
      dom,
      allocatorsMiB: pid === null ? null : await memoryInfraDump(browser, pid).catch((e) => ({ error: String(e.message ?? e) })),
      // Resident pages by mapping: Chromium's binary, fonts, anonymous memory, shared memory (raster tiles).
      mappingsMiB: pid === null ? null : smapsByMapping(pid),
    };
    breakdowns.push(entry);
    log(`breakdown ${label}: ${JSON.stringify(entry)}`);
  };
  let startAt = null;

  // Warm up with the event stream for a short while, so start-up allocations are not counted as drift.
  const warm = Math.min(30, MINUTES * 10);
  log(`warm-up: ${warm} s of events`);
  await sim.call('run', {
    seconds: warm,
    to: 'windeck',
    mix: [
      { plural: 'nodes', rate: NODE_RATE },
      { plural: 'pods', rate: POD_RATE },
    ],
  });
  await sleep(1000);
  const start = { backend: await windeck.call('memory', { gc: true }), rendererHeapMiB: await rendererHeap(), at: epochNow() };
  startAt = start.at;
  await snapshot('start');
  await breakdown('start');
  await windeck.call('reset', { minSeq: (await sim.call('seq')).seq + 1 });
  log(
    `start: backend heap after GC ${start.backend.heapUsedMiB.toFixed(1)} MiB (RSS ${start.backend.rssMiB.toFixed(0)} MiB), renderer heap after GC ${start.rendererHeapMiB.toFixed(1)} MiB`,
  );

  const samples = [];
  const rendererPid = pageRenderer()?.pid ?? null;
  const rendererCpu0 = rendererPid === null ? 0 : processCpuMs(rendererPid);
  let running = true;
  const sampler = (async () => {
    while (running) {
      const b = status(windeck.pid);
      const r = pageRenderer();
      const allKB = chromiumProcesses().all.reduce((n, pid) => n + (status(pid)?.rssKB ?? 0), 0);
      // The renderer's V8 heap as it is (no GC): committed vs used, to tell young-generation and garbage growth
      // from the rest of the anonymous memory.
      const heap = await cdp.send('Runtime.getHeapUsage').catch(() => null);
      samples.push({
        t: Math.round((epochNow() - start.at) / 1000),
        backendKB: b?.rssKB ?? null,
        backendHwmKB: b?.hwmKB ?? null,
        rendererKB: r?.rssKB ?? null,
        rendererHwmKB: r?.hwmKB ?? null,
        rendererAnonKB: r?.anonKB ?? null,
        rendererPssKB: r?.pssKB ?? null,
        rendererRssAnonKB: r?.rssAnonKB ?? null,
        rendererRssFileKB: r?.rssFileKB ?? null,
        rendererRssShmemKB: r?.rssShmemKB ?? null,
        allKB,
        rendererV8CommittedMiB: heap ? r1(heap.totalSize / 1048576) : null,
        rendererV8UsedMiB: heap ? r1(heap.usedSize / 1048576) : null,
      });
      await sleep(SAMPLE_MS);
    }
  })();
  log(`${MINUTES} min of ${NODE_RATE} node + ${POD_RATE} pod events per second ...`);
  const parts = [];
  const checkpoints = [];
  for (let i = 1; i <= CHECKPOINTS; i++) {
    parts.push(
      await sim.call('run', {
        seconds: (MINUTES * 60) / CHECKPOINTS,
        to: 'windeck',
        mix: [
          { plural: 'nodes', rate: NODE_RATE },
          { plural: 'pods', rate: POD_RATE },
        ],
      }),
    );
    if (i < CHECKPOINTS) {
      const heapMiB = r1(await rendererHeap());
      checkpoints.push({ t: Math.round((epochNow() - start.at) / 1000), rendererHeapAfterGcMiB: heapMiB });
      log(`checkpoint ${i}/${CHECKPOINTS}: renderer heap after GC ${heapMiB} MiB`);
      await snapshot(`checkpoint-${i}`);
      await breakdown(`checkpoint-${i}`);
    }
  }
  const sentBy = (k) => parts.reduce((n, p) => n + (p.sent?.[k] ?? 0), 0);
  const run = {
    seconds: parts.reduce((n, p) => n + p.seconds, 0),
    sent: { nodes: sentBy('nodes'), pods: sentBy('pods') },
    achievedRate: parts.reduce((n, p) => n + p.achievedRate * p.seconds, 0) / parts.reduce((n, p) => n + p.seconds, 0),
  };
  running = false;
  const rendererCpuMs = rendererPid === null ? null : processCpuMs(rendererPid) - rendererCpu0;
  await sampler;
  await sleep(1000);
  const end = { backend: await windeck.call('memory', { gc: true }), rendererHeapMiB: await rendererHeap(), at: epochNow() };
  await snapshot('end');
  await breakdown('end');
  const stats = await windeck.call('stats');
  const rowsStillShown = await page.locator('.fleet-table tbody tr td.cell-name').count();
  const minutes = (end.at - start.at) / 60000;
  const per10 = (d) => r1((d * 10) / minutes);
  const peak = (k) => Math.max(...samples.map((s) => s[k] ?? 0));
  const median = (k) => {
    const v = samples.map((s) => s[k] ?? 0).sort((a, b) => a - b);
    return v.length ? v[Math.floor(v.length / 2)] : 0;
  };
  const backendHwm = status(windeck.pid)?.hwmKB ?? null;
  const floor = await blankPageFloor();
  log(`floor: a blank page's renderer in the same Chromium: ${floor ? JSON.stringify(floor) : 'no new renderer process appeared'}`);
  const result = {
    bench: 'memory',
    profile: quick ? 'quick' : 'full',
    cluster: { nodes: NODES, pods: PODS, syncedNodes: windeck.info.nodes, syncedPods: windeck.info.pods, syncSeconds: r1(syncSeconds) },
    renderer: renderer.from,
    events: {
      nodeRate: NODE_RATE,
      podRate: POD_RATE,
      seconds: r1(run.seconds),
      sent: run.sent,
      achievedRate: r1(run.achievedRate),
      storedNodeEvents: stats.stored,
      nodeStoreLagMs: Object.fromEntries(Object.entries(stats.storeLagMs).map(([k, v]) => [k, r1(v)])),
    },
    minutes: r1(minutes),
    backend: {
      rssMiB: {
        start: r1(start.backend.rssMiB),
        end: r1(end.backend.rssMiB),
        peakSampled: mib(peak('backendKB')),
        peakHwm: backendHwm === null ? null : mib(backendHwm),
      },
      heapAfterGcMiB: {
        start: r1(start.backend.heapUsedMiB),
        end: r1(end.backend.heapUsedMiB),
        drift: r1(end.backend.heapUsedMiB - start.backend.heapUsedMiB),
        driftPer10Min: per10(end.backend.heapUsedMiB - start.backend.heapUsedMiB),
        gcForced: end.backend.gcForced,
      },
      eventLoopDelayMs: Object.fromEntries(Object.entries(stats.eventLoopDelayMs).map(([k, v]) => [k, r1(v)])),
    },
    rendererProcess: {
      pid: pageRenderer()?.pid ?? null,
      rssMiB: {
        start: samples[0] ? mib(samples[0].rendererKB) : null,
        end: samples.length ? mib(samples[samples.length - 1].rendererKB) : null,
        peakSampled: mib(peak('rendererKB')),
        medianSampled: mib(median('rendererKB')),
        peakHwm: mib(peak('rendererHwmKB')),
      },
      // RSS counts Chromium's shared code pages too; anonymous memory is what the page itself holds (close to
      // Chrome's "memory footprint"), PSS splits shared pages between processes.
      anonymousMiB: { peakSampled: mib(peak('rendererAnonKB')), medianSampled: mib(median('rendererAnonKB')) },
      v8HeapSampledMiB: { committedPeak: r1(peak('rendererV8CommittedMiB')), committedMedian: r1(median('rendererV8CommittedMiB')) },
      pssMiB: { peakSampled: mib(peak('rendererPssKB')) },
      // RSS split as the kernel counts it (/proc/<pid>/status): anonymous, file-backed (Chromium's code and fonts,
      // shared with every Chromium process) and shared memory (e.g. raster tiles handed to the compositor).
      rssSplitPeakMiB: { anon: mib(peak('rendererRssAnonKB')), file: mib(peak('rendererRssFileKB')), shmem: mib(peak('rendererRssShmemKB')) },
      chromiumAllProcessesPeakMiB: mib(peak('allKB')),
      heapAfterGcMiB: {
        start: r1(start.rendererHeapMiB),
        end: r1(end.rendererHeapMiB),
        drift: r1(end.rendererHeapMiB - start.rendererHeapMiB),
        driftPer10Min: per10(end.rendererHeapMiB - start.rendererHeapMiB),
      },
      rowsStillShown,
      // What any page costs in this Chromium: a blank page's renderer (see blankPageFloor), sampled after the run.
      blankPageFloor: floor,
      // CPU time of the page's renderer during the measured minutes (all threads), per second of the run.
      cpuMsPerSecond: rendererCpuMs === null ? null : r1(rendererCpuMs / run.seconds),
      ...(checkpoints.length ? { checkpoints } : {}),
      ...(breakdowns.length ? { breakdown: breakdowns } : {}),
    },
    samples: samples.map((s) => ({
      t: s.t,
      backendMiB: mib(s.backendKB ?? 0),
      rendererMiB: mib(s.rendererKB ?? 0),
      rendererAnonMiB: mib(s.rendererAnonKB ?? 0),
      rendererV8CommittedMiB: s.rendererV8CommittedMiB,
      rendererV8UsedMiB: s.rendererV8UsedMiB,
    })),
  };
  log(
    `backend RSS peak ${result.backend.rssMiB.peakSampled} MiB, heap drift ${result.backend.heapAfterGcMiB.drift} MiB (${result.backend.heapAfterGcMiB.driftPer10Min}/10 min); renderer RSS peak ${result.rendererProcess.rssMiB.peakSampled} MiB (anonymous ${result.rendererProcess.anonymousMiB.peakSampled} MiB; RSS split ${JSON.stringify(result.rendererProcess.rssSplitPeakMiB)}), heap drift ${result.rendererProcess.heapAfterGcMiB.drift} MiB`,
  );
  console.log(JSON.stringify(result));
} finally {
  await cleanup();
}
