// Shared pieces of the live benchmarks (watch, memory): the API simulator with a pre-serialized event feed, a
// Windeck backend process with a live list+watch into the store (and optionally the web host), and a small
// request/response channel over a child's stdin/stdout (one JSON object per line).
//
// The feed: every node (and, for bench/memory.mjs, a sample of pods) is rendered ONCE and serialized into a
// MODIFIED watch line with markers for resourceVersion, send time and sequence number; sending an event is string
// concatenation plus one write into the open watch streams (the simulator's `benchWatchTap` option), so the
// simulator does not render or JSON.stringify 13 KB nodes on the hot path. The send time (epoch ms with
// fractions, performance.timeOrigin + performance.now()) is embedded in the annotation `windeck.bench/sent` and in
// the node's `status.nodeInfo.containerRuntimeVersion` (`containerd://1.7.x+bench.<seq>.<sentMs>`), which Windeck
// stores and the fleet view shows in its Runtime column: that is how a row on the screen is traced to its event.
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { bundleProgram, root } from './build.mjs';

const imp = (p) => JSON.stringify(path.join(root, p));

const SIM_SOURCE = `
import readline from 'node:readline';
import { KubeApiSimulator } from ${imp('electron/sim/kube-api/server.ts')};
const [kubeconfig, nodes, windows, pods, podTemplates, nodeKB] = process.argv.slice(2);
const now = () => performance.timeOrigin + performance.now();
const taps = new Set();
// Queued bytes (string length) after which a watch stream is closed as too slow (see run).
const SLOW_WATCHER_MAX_QUEUED = 256 * 1024 * 1024;
const sim = new KubeApiSimulator({
  cluster: { nodes: Number(nodes), windows: Number(windows), pods: Number(pods), workloads: 'scale' },
  bookmarkIntervalMs: 10000,
  benchWatchTap: (plural, req, res) => {
    const tap = { plural, ua: String(req.headers['user-agent'] ?? ''), res, closedAsSlow: false };
    replayGap(tap, req);
    taps.add(tap);
    return () => {
      if (!taps.delete(tap) || tap.closedAsSlow) return;
      gaps.push({ plural, ua: tap.ua, closedAt: now(), batches: [], events: 0, bytes: 0, overflow: false });
    };
  },
});

// The feed's events never enter the simulator's store, so its watch cache cannot replay them: when a watch ends
// (the server's timeoutSeconds, which Windeck's reflector asks for) and the client watches again from its last
// resourceVersion, the events sent in between would be lost, where kube-apiserver replays them from its watch cache.
// So each ended watch (but one closed as too slow) keeps the events sent after it ended, for up to GAP_KEEP_MS and
// GAP_MAX_BYTES, and the next watch of the same client and resource that asks for an older resourceVersion gets
// them first. Replays are reported per run (rewatchReplays).
const GAP_KEEP_MS = 10000;
const GAP_MAX_BYTES = 256 * 1024 * 1024;
const gaps = [];
const replays = [];
function replayGap(tap, req) {
  const i = gaps.findIndex((g) => g.plural === tap.plural && g.ua === tap.ua);
  if (i < 0) return;
  const [gap] = gaps.splice(i, 1);
  const fromRv = Number(new URL(req.url ?? '/', 'http://sim').searchParams.get('resourceVersion') ?? '');
  if (!gap.events || !(fromRv > 0)) return;
  // Batches of events newer than the resourceVersion asked for (the gap's events are newer than anything the ended
  // watch delivered, so in practice all of them).
  const kept = gap.batches.filter((b) => b.lastRv > fromRv);
  for (const b of kept) tap.res.write(b.text);
  replays.push({ plural: gap.plural, ua: gap.ua.split(' ')[0], gapMs: now() - gap.closedAt, events: kept.reduce((n, b) => n + b.events, 0), overflow: gap.overflow });
}
function keepForGaps(plural, to, text, events, lastRv) {
  for (let i = gaps.length - 1; i >= 0; i--) {
    const g = gaps[i];
    if (now() - g.closedAt > GAP_KEEP_MS) {
      gaps.splice(i, 1);
      continue;
    }
    if (!matches(g, plural, to) || g.overflow) continue;
    if (g.bytes + text.length > GAP_MAX_BYTES) {
      g.overflow = true;
      continue;
    }
    g.batches.push({ text, events, lastRv });
    g.events += events;
    g.bytes += text.length;
  }
}
await sim.start();
sim.writeKubeconfig(kubeconfig);

// Pre-serialized MODIFIED lines: text split at the markers, filled by concatenation.
const MARK = /@@(RV|T|S)@@/g;
function templates(plural, max) {
  const out = [];
  const page = sim.store.list(plural, { limit: max });
  for (const item of page.items) {
    const obj = structuredClone(sim.store.render(item));
    obj.metadata.resourceVersion = '@@RV@@';
    obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), 'windeck.bench/sent': '@@T@@', 'windeck.bench/seq': '@@S@@' };
    if (plural === 'nodes' && obj.status?.nodeInfo) obj.status.nodeInfo.containerRuntimeVersion = String(obj.status.nodeInfo.containerRuntimeVersion).replace(/\\+.*$/, '') + '+bench.@@S@@.@@T@@';
    // Real nodes carry managedFields and image lists (about 13 KB); the generated ones are smaller: pad with
    // managedFields entries (which Windeck's projection drops, but still has to parse) up to nodeKB.
    if (plural === 'nodes' && Number(nodeKB) > 0) {
      const entry = { manager: 'kubelet.exe', operation: 'Update', apiVersion: 'v1', time: '2025-04-22T15:54:42Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:lastHeartbeatTime': {}, 'f:lastTransitionTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} } }, 'f:images': {}, 'f:nodeInfo': { 'f:containerRuntimeVersion': {}, 'f:kernelVersion': {} } } } };
      const missing = Number(nodeKB) * 1024 - JSON.stringify(obj).length;
      if (missing > 0) obj.metadata.managedFields = [...(obj.metadata.managedFields ?? []), ...Array.from({ length: Math.ceil(missing / (JSON.stringify(entry).length + 1)) }, () => entry)];
    }
    const text = '{"type":"MODIFIED","object":' + JSON.stringify(obj) + '}\\n';
    const parts = text.split(MARK);
    out.push({ name: obj.metadata.name, parts, bytes: text.length });
  }
  return out;
}
const feeds = { nodes: templates('nodes', Number(nodes)), pods: Number(podTemplates) > 0 ? templates('pods', Number(podTemplates)) : [] };
let rv = sim.store.resourceVersion + 1000000;
let seq = 0;
function line(t, ts) {
  const p = t.parts;
  let s = p[0];
  for (let i = 1; i < p.length; i += 2) {
    const k = p[i];
    s += (k === 'RV' ? String(rv) : k === 'T' ? ts : String(seq)) + p[i + 1];
  }
  return s;
}
const matches = (tap, plural, to) => tap.plural === plural && (to === 'all' || tap.ua.startsWith(to));

// Send 'rate' events per second for 'seconds' to the matching open watches, paced on a 5 ms tick.
async function run({ plural = 'nodes', rate, seconds, to = 'windeck', track = null, mix = null }) {
  const plan = mix ?? [{ plural, rate }];
  const started = now();
  const cpu0 = process.cpuUsage();
  replays.length = 0;
  const sent = Object.fromEntries(plan.map((p) => [p.plural, 0]));
  const cursor = Object.fromEntries(plan.map((p) => [p.plural, 0]));
  const tracked = [];
  const trackNames = track ? track.names : [];
  const trackIdx = trackNames.map((n) => feeds.nodes.findIndex((t) => t.name === n)).filter((i) => i >= 0);
  const trackEvery = track && trackIdx.length ? Math.max(1, Math.round(1 / track.share)) : 0;
  let trackCursor = 0;
  let lateTicks = 0;
  let maxQueued = 0;
  const slowClosed = [];
  let bytes = 0;
  let lastTick = started;
  const endAt = started + seconds * 1000;
  for (;;) {
    const t = now();
    if (t - lastTick > 50) lateTicks++;
    lastTick = t;
    const elapsed = Math.min(t, endAt) - started;
    for (const p of plan) {
      const due = Math.floor((p.rate * elapsed) / 1000) - sent[p.plural];
      if (due <= 0) continue;
      const feed = feeds[p.plural];
      let batch = '';
      for (let i = 0; i < due; i++) {
        seq++;
        rv++;
        let idx;
        if (p.plural === 'nodes' && trackEvery && seq % trackEvery === 0) {
          idx = trackIdx[trackCursor++ % trackIdx.length];
          const ts = now();
          tracked.push([feeds.nodes[idx].name, seq, ts]);
          batch += line(feed[idx], String(ts));
        } else {
          idx = cursor[p.plural]++ % feed.length;
          batch += line(feed[idx], String(now()));
        }
      }
      sent[p.plural] += due;
      bytes += batch.length;
      if (gaps.length) keepForGaps(p.plural, to, batch, due, rv);
      for (const tap of taps) {
        if (!matches(tap, p.plural, to) || tap.res.destroyed || tap.res.writableEnded) continue;
        tap.res.write(batch);
        maxQueued = Math.max(maxQueued, tap.res.writableLength);
        // A watcher that reads far slower than events come (kubectl at 5,000/s) is closed, as kube-apiserver's
        // watch cache closes an unresponsive watcher, instead of buffering every event for it until the heap runs
        // out (the ninth session's full profile lost its watch module that way).
        if (tap.res.writableLength > SLOW_WATCHER_MAX_QUEUED) {
          tap.closedAsSlow = true;
          tap.res.end();
          slowClosed.push({ ua: tap.ua.split(' ')[0], atSeconds: (now() - started) / 1000, queuedBytes: tap.res.writableLength });
        }
      }
    }
    if (t >= endAt) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const ms = now() - started;
  const cpu = process.cpuUsage(cpu0);
  let queuedAtEnd = 0;
  for (const tap of taps) if (plan.some((p) => matches(tap, p.plural, to))) queuedAtEnd += tap.res.writableLength;
  const total = Object.values(sent).reduce((a, b) => a + b, 0);
  return {
    sent,
    total,
    seconds: ms / 1000,
    targetRate: plan.reduce((a, p) => a + p.rate, 0),
    achievedRate: total / (ms / 1000),
    mbPerSecond: bytes / 1048576 / (ms / 1000),
    simCpuPercent: ((cpu.user + cpu.system) / 1000 / ms) * 100,
    lateTicks,
    maxQueuedBytes: maxQueued,
    queuedBytesAtEnd: queuedAtEnd,
    slowWatchersClosed: slowClosed,
    // Watches that ended during the run and were taken up again, and the events replayed into the new one.
    rewatchReplays: replays.map((r) => ({ ...r, gapMs: Math.round(r.gapMs * 10) / 10 })),
    endedAt: now(),
    tracked,
  };
}

const rl = readline.createInterface({ input: process.stdin });
const reply = (id, body) => process.stdout.write(JSON.stringify({ id, ...body }) + '\\n');
rl.on('line', async (l) => {
  const msg = JSON.parse(l);
  try {
    if (msg.cmd === 'run') reply(msg.id, await run(msg));
    else if (msg.cmd === 'seq') reply(msg.id, { seq });
    // End the matching open watches now, as the server does at a watch's timeoutSeconds (checks the gap replay).
    else if (msg.cmd === 'endWatches') {
      let ended = 0;
      for (const tap of taps) if (matches(tap, msg.plural ?? 'nodes', msg.to ?? 'windeck') && !tap.res.writableEnded) (tap.res.end(), ended++);
      reply(msg.id, { ended });
    }
    else if (msg.cmd === 'taps') reply(msg.id, { taps: [...taps].map((t) => ({ plural: t.plural, ua: t.ua.split(' ')[0] })) });
    else if (msg.cmd === 'rss') reply(msg.id, { rssMiB: process.memoryUsage().rss / 1048576 });
    else reply(msg.id, { error: 'unknown command ' + msg.cmd });
  } catch (e) {
    reply(msg.id, { error: String(e?.stack ?? e) });
  }
});
rl.on('close', async () => {
  await sim.stop();
  process.exit(0);
});
process.stdout.write(JSON.stringify({ ready: true, url: sim.url, counts: sim.cluster.counts, templateBytes: { nodes: feeds.nodes.reduce((a, t) => a + t.bytes, 0) / feeds.nodes.length, pods: feeds.pods.length ? feeds.pods.reduce((a, t) => a + t.bytes, 0) / feeds.pods.length : null } }) + '\\n');
`;

const WINDECK_SOURCE = `
import readline from 'node:readline';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createServices } from ${imp('electron/services/create-services.ts')};
import { nullSink } from ${imp('electron/services/lib/log.ts')};
import { kubeInventory } from ${imp('electron/services/kube/inventory.ts')};
import { startWebHost } from ${imp('electron/web/server.ts')};
const [kubeconfig, home, staticDir] = process.argv.slice(2);
const now = () => performance.timeOrigin + performance.now();
const services = createServices({ home, host: 'web', version: 'bench', logSink: nullSink });
const inventory = kubeInventory(services.core);
const live = inventory.startLive({ kubeconfig });
services.core.repos.settings.set('activeCluster', live.clusterId);

// Lag probe (bench only, no product change): the node reflector's change callback is wrapped to note when each
// traced event arrived; the store:changed event that follows the flush writing it says when it is in SQLite.
let pending = [];
let lag = { store: [], recv: [] };
let counts = { received: 0, stored: 0, mismatches: 0, checked: 0, earlier: 0, coalesced: 0 };
// Events of an earlier phase (seq below minSeq) still arriving are counted apart, not as this phase's lag.
let minSeq = 0;
let storeReady = false;
// Windeck's CPU time since the phase started (main thread + libuv/GC threads): per event, it does not depend on how
// busy the machine is the way wall-clock lag does.
let cpu0 = process.cpuUsage();
const reflector = live.reflectors.nodes;
const inner = reflector?.options?.onChange;
if (typeof inner !== 'function') throw new Error('bench lag probe: LiveInventory.reflectors.nodes.options.onChange is gone; update bench/lib/feed.mjs');
reflector.options.onChange = (change) => {
  if (change.type === 'upsert') {
    const m = /\\+bench\\.(\\d+)\\.([\\d.]+)$/.exec(change.item?.status?.nodeInfo?.containerRuntimeVersion ?? '');
    if (m && Number(m[1]) < minSeq) counts.earlier++;
    else if (m) {
      pending.push([Number(m[2]), now(), change.key, m[1]]);
      counts.received++;
    }
  }
  inner(change);
};
// Node events superseded by a newer event of the same node before Windeck parsed them (the reflector coalesces):
// in the store when the newer one is, i.e. at the same store:changed. Their lag counts like any other event's.
reflector.options.onCoalesced = (key, line) => {
  const m = /\\+bench\\.(\\d+)\\.([\\d.]+)"/.exec(line);
  if (m && Number(m[1]) < minSeq) counts.earlier++;
  else if (m) {
    pending.push([Number(m[2]), now(), key, m[1]]);
    counts.received++;
    counts.coalesced++;
  }
};
services.events.subscribe((event, payload) => {
  if (event !== 'store:changed' || !payload.scopes.includes('nodes')) return;
  storeReady = true;
  if (!pending.length) return;
  const t = now();
  for (const [sent, recv] of pending) {
    lag.store.push(t - sent);
    lag.recv.push(recv - sent);
  }
  counts.stored += pending.length;
  // Check that the last traced event (or a newer one of the same node, when it was coalesced) really is in the row.
  const [, , key, seqText] = pending[pending.length - 1];
  const row = services.core.repos.nodes.get(live.clusterId, key);
  counts.checked++;
  const rowSeq = /\\+bench\\.(\\d+)\\./.exec(String(row?.containerRuntime ?? ''));
  if (!row || !rowSeq || Number(rowSeq[1]) < Number(seqText)) counts.mismatches++;
  pending = [];
});
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

const pct = (xs, p) => {
  if (!xs.length) return null;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const summary = (xs) => ({ n: xs.length, p50: pct(xs, 50), p95: pct(xs, 95), p99: pct(xs, 99), max: xs.length ? pct(xs, 100) : null });
let host = null;
const rl = readline.createInterface({ input: process.stdin });
const reply = (id, body) => process.stdout.write(JSON.stringify({ id, ...body }) + '\\n');
rl.on('line', async (l) => {
  const msg = JSON.parse(l);
  try {
    if (msg.cmd === 'reset') {
      lag = { store: [], recv: [] };
      counts = { received: 0, stored: 0, mismatches: 0, checked: 0, earlier: 0, coalesced: 0 };
      minSeq = msg.minSeq ?? 0;
      pending = [];
      loop.reset();
      cpu0 = process.cpuUsage();
      reply(msg.id, { ok: true });
    } else if (msg.cmd === 'counts') reply(msg.id, { ...counts, pending: pending.length });
    else if (msg.cmd === 'stats') {
      reply(msg.id, {
        ...counts,
        pending: pending.length,
        storeLagMs: summary(lag.store),
        receiveLagMs: summary(lag.recv),
        // The histogram holds the time between samples (10 ms apart when idle): the delay is what exceeds 10 ms.
        eventLoopDelayMs: { p50: Math.max(0, loop.percentile(50) / 1e6 - 10), p99: Math.max(0, loop.percentile(99) / 1e6 - 10), max: Math.max(0, loop.max / 1e6 - 10) },
        rssMiB: process.memoryUsage().rss / 1048576,
        cpuMs: ((c) => (c.user + c.system) / 1000)(process.cpuUsage(cpu0)),
        reflector: { ...reflector.stats },
      });
    } else if (msg.cmd === 'serve') {
      host ??= await startWebHost({ services, staticDir });
      reply(msg.id, { url: host.url });
    } else if (msg.cmd === 'memory') {
      if (msg.gc && globalThis.gc) { globalThis.gc(); globalThis.gc(); }
      const m = process.memoryUsage();
      reply(msg.id, { rssMiB: m.rss / 1048576, heapUsedMiB: m.heapUsed / 1048576, externalMiB: m.external / 1048576, gcForced: Boolean(msg.gc && globalThis.gc) });
    } else reply(msg.id, { error: 'unknown command ' + msg.cmd });
  } catch (e) {
    reply(msg.id, { error: String(e?.stack ?? e) });
  }
});
rl.on('close', async () => {
  await host?.close();
  await services.dispose();
  process.exit(0);
});
// Ready once every resource listed and the first node rows are written.
await live.synced();
const t0 = Date.now();
while (!storeReady && Date.now() - t0 < 120000) await new Promise((r) => setTimeout(r, 50));
process.stdout.write(JSON.stringify({ ready: true, clusterId: live.clusterId, nodes: reflector.cache.size, pods: live.reflectors.pods.cache.size }) + '\\n');
`;

export async function feedPrograms() {
  return { sim: await bundleProgram('feed-sim', SIM_SOURCE), windeck: await bundleProgram('feed-windeck', WINDECK_SOURCE) };
}

/**
 * A child speaking one JSON object per line: waits for its first `{ready:true}` line, then `call(cmd, args)`
 * sends `{id, cmd, ...args}` and resolves with the reply of the same id.
 */
export async function startLineChild(file, argv, { nodeArgs = [], readyTimeoutMs = 300_000, name = path.basename(file) } = {}) {
  const child = spawn(process.execPath, [...nodeArgs, file, ...argv], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  let nextId = 1;
  let readyResolve;
  let readyReject;
  const ready = new Promise((resolve, reject) => {
    readyResolve = resolve;
    readyReject = reject;
  });
  readline.createInterface({ input: child.stdout }).on('line', (l) => {
    if (!l.startsWith('{')) return;
    const msg = JSON.parse(l);
    if (msg.ready) return readyResolve(msg);
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.error) w.reject(new Error(`${name}: ${msg.error}`));
    else w.resolve(msg);
  });
  child.once('exit', (code, signal) => {
    const e = new Error(`${name} exited (${code ?? signal})`);
    readyReject(e);
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  });
  const timer = setTimeout(() => readyReject(new Error(`${name} not ready in ${readyTimeoutMs / 1000} s`)), readyTimeoutMs);
  const info = await ready.finally(() => clearTimeout(timer));
  return {
    child,
    info,
    pid: child.pid,
    call(cmd, args = {}) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child.stdin.write(JSON.stringify({ id, cmd, ...args }) + '\n');
      });
    },
    /** Close stdin (the child cleans up and exits); SIGKILL after `graceMs`. */
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(t);
    },
  };
}

/** Epoch ms with fractions, comparable across processes on this machine (and with a page's timeOrigin + now()). */
export const epochNow = () => performance.timeOrigin + performance.now();
