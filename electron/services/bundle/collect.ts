import path from 'node:path';
import { WindeckError, isWindeckError } from '../../../shared/contract/errors';
import type { BundleError, RedactionLevel } from '../../../shared/contract/methods/bundles';
import type { Finding } from '../../../shared/domain/finding';
import { BUNDLE_FILE_MAX_BYTES, BUNDLE_LOG_MAX_BYTES, BUNDLE_NODE_LOGS_MAX_BYTES } from '../../../shared/domain/limits';
import { PROBE_IDS, type ProbeId } from '../../../shared/domain/probe';
import { learnHostsFromText } from '../../../shared/logic/redact';
import type { ReportFacts } from '../../../shared/report/report-facts';
import { renderReport } from '../../../shared/report/render';
import { diagnoseProbeRun } from '../diagnose/diagnose-node';
import { runScript } from '../powershell/invoke';
import { LOG_SOURCES, PROBES } from '../probes/catalog';
import { asArray, readJson } from '../probes/normalize';
import { runProbes, type ProbeOutcome } from '../probes/runner';
import { buildReportFacts, excerptsFromLog, type CollectedNode } from '../report/facts';
import type { ProbeResultsRepo } from '../store/repos/probe-results';
import type { NodeTransport } from '../transports/node-transport';
import { safeSegment } from './manifest';
import type { ClusterSnapshotSource, NodeHostSource } from './sources';
import type { BundleStage } from './stage';

/**
 * Collection (issue 6 item 1): for each node the probes (raw as received + parsed + meta), the component log
 * tails within `--since` and the size caps, the CNI/flannel/kubelet config files, the Node object, and for the
 * cluster the Node objects, their events, the API's /version and `kubectl version`, all into a BundleStage
 * (redacted before anything is written). A node that cannot be reached or drops out mid-way is recorded in
 * `errors` (the bundle is then `incomplete`) and listed in `retry` so a job can fetch it later.
 */

export interface CollectRequest {
  nodes: string[];
  /** Epoch ms: logs older than this are left out. */
  sinceEpochMs: number;
  level: RedactionLevel;
}

export interface CollectDeps {
  cluster: ClusterSnapshotSource;
  /** Linux control-plane lines for the report (`name: osImage (kernel)`). */
  controlPlane?: string[];
  /** Null when offline: only what the store has. */
  hosts: NodeHostSource | null;
  probeResults?: ProbeResultsRepo | null;
  now: () => number;
  toolVersion: string;
  scriptDirs?: string[];
}

export interface CollectProgress {
  step: { index: number; count: number; title: string };
  fraction: number | null;
  message?: string;
}

export interface CollectContext {
  signal: AbortSignal;
  progress?: (p: CollectProgress) => void;
}

export interface CollectResult {
  /** Node names as they appear in the bundle (pseudonyms under strict redaction). */
  bundleNodes: string[];
  errors: BundleError[];
  /** Nodes (real names) whose parts are missing, with the steps that failed. Never written into the bundle. */
  retry: Array<{ node: string; steps: string[]; reason: string }>;
  cluster: { context: string | null; server: string | null; kubernetesVersion: string | null };
  facts: ReportFacts;
  findings: Finding[];
}

/** Transport-level failures: the node is gone (or never answered); later steps on it are skipped. */
function nodeGone(error: unknown): boolean {
  if (!isWindeckError(error)) return false;
  const code = (error as WindeckError).code;
  return code === 'UNREACHABLE' || code === 'TIMEOUT' || code === 'AUTH_FAILED' || code === 'HOST_KEY_CHANGED' || code === 'HOST_KEY_UNKNOWN';
}

function messageOf(error: unknown): string {
  return isWindeckError(error) ? (error as WindeckError).message : ((error as Error)?.message ?? String(error));
}

interface FileRow {
  path: string;
  exists: boolean;
  length: number;
  lastWriteTime: number;
  offset: number;
  bytes: Buffer | null;
}

/** Rows of the `files` / `logs` scripts: `{Path, Exists, Length, LastWriteTime, Offset, ContentBase64}`. */
export function parseFileRows(raw: string | Buffer): FileRow[] {
  const { value } = readJson(raw);
  return asArray(value).map((item) => {
    const r = (item ?? {}) as Record<string, unknown>;
    const lwt = r.LastWriteTime;
    let t = 0;
    if (typeof lwt === 'string') {
      const ms = /\/Date\((-?\d+)\)\//.exec(lwt);
      t = ms ? Number(ms[1]) : Date.parse(lwt) || 0;
    } else if (lwt && typeof lwt === 'object' && typeof (lwt as { value?: unknown }).value === 'string') {
      const ms = /\/Date\((-?\d+)\)\//.exec((lwt as { value: string }).value);
      t = ms ? Number(ms[1]) : 0;
    }
    return {
      path: typeof r.Path === 'string' ? r.Path : '',
      exists: r.Exists === true,
      length: Number(r.Length ?? 0) || 0,
      lastWriteTime: t,
      offset: Number(r.Offset ?? 0) || 0,
      bytes: typeof r.ContentBase64 === 'string' ? Buffer.from(r.ContentBase64, 'base64') : null,
    };
  });
}

const KLOG = /^[IWEF](\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})/;
const ISO = /(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?/;

/** Timestamp of a log line (klog `I0612 10:00:00`, ISO/RFC 3339 anywhere early in the line), null if none. */
export function lineTime(line: string, now: number): number | null {
  const k = KLOG.exec(line);
  if (k) {
    const nowDate = new Date(now);
    let year = nowDate.getUTCFullYear();
    const month = Number(k[1]) - 1;
    if (month > nowDate.getUTCMonth() + 1) year -= 1;
    return Date.UTC(year, month, Number(k[2]), Number(k[3]), Number(k[4]), Number(k[5]));
  }
  const iso = ISO.exec(line.slice(0, 120));
  if (iso) {
    const t = Date.parse(iso[0].replace(' ', 'T') + (iso[7] ? '' : 'Z'));
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

/** Drop the leading lines of a log tail that are older than `since` (lines without a time stay with their block). */
export function trimLogBefore(bytes: Buffer, since: number, now: number): Buffer {
  if (since <= 0 || (bytes[0] === 0xff && bytes[1] === 0xfe)) return bytes;
  const text = bytes.toString('latin1');
  let pos = 0;
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    const line = text.slice(pos, nl < 0 ? text.length : nl);
    const t = lineTime(line, now);
    if (t !== null && t >= since) return pos === 0 ? bytes : bytes.subarray(pos);
    if (nl < 0) break;
    pos = nl + 1;
  }
  // No line is new enough (or none has a time): keep everything when nothing had a time, else nothing old.
  const anyTime = text.split('\n', 200).some((l) => lineTime(l, now) !== null);
  return anyTime ? Buffer.alloc(0) : bytes;
}

/** Unique entry names for files from different folders with the same base name. */
function uniqueName(used: Set<string>, windowsPath: string): string {
  const parts = windowsPath.split(/[\\/]/).filter(Boolean);
  const base = safeSegment(parts[parts.length - 1] ?? 'file');
  let name = base;
  for (let i = parts.length - 2; used.has(name) && i >= 0; i--) name = safeSegment(`${parts.slice(i, -1).join('-')}-${base}`);
  let n = 2;
  while (used.has(name)) name = `${base}.${n++}`;
  used.add(name);
  return name;
}

/** Logs to list on a node: the catalogue's sources, plus rotated gzip files next to them. */
/** Log writes (redaction in the worker pool) in flight per node while the next log is fetched. */
const LOG_WRITES_IN_FLIGHT = 4;

const BUNDLE_LOG_SOURCES = [...LOG_SOURCES, ...LOG_SOURCES.map((s) => ({ dir: s.dir, filter: '*.log.gz' }))];

export async function collectToStage(req: CollectRequest, stage: BundleStage, deps: CollectDeps, ctx: CollectContext): Promise<CollectResult> {
  const signal = ctx.signal;
  const errors: BundleError[] = [];
  const retry = new Map<string, { steps: string[]; reason: string }>();
  const table = stage.pseudonyms;
  const perNodeSteps = deps.hosts ? 4 : 1;
  const stepCount = 2 + req.nodes.length * perNodeSteps + 2;
  let stepIndex = 0;
  const step = (title: string, message?: string) =>
    ctx.progress?.({ step: { index: stepIndex++, count: stepCount, title }, fraction: Math.min(1, stepIndex / stepCount), ...(message ? { message } : {}) });
  const fail = (node: string | null, stepName: string, error: unknown) => {
    errors.push({ node, step: stepName, message: messageOf(error) });
    if (node) {
      const r = retry.get(node) ?? { steps: [], reason: messageOf(error) };
      r.steps.push(stepName);
      retry.set(node, r);
    }
  };

  // Names first: every file of the bundle must use the same pseudonyms (DESIGN.md section 6).
  for (const n of req.nodes) table?.learnHost(n);

  step('Cluster version');
  const version = await deps.cluster.version(signal);
  const kubectl = await deps.cluster.kubectlVersion(signal);
  signal.throwIfAborted();

  const nodeObjects = new Map<string, { object: unknown; origin: 'api' | 'store' } | null>();
  for (const n of req.nodes) {
    const found = await deps.cluster.node(n, signal);
    nodeObjects.set(n, found);
    if (!found) errors.push({ node: n, step: 'node-object', message: `The cluster has no Node "${n}" (and the store has none).` });
    const obj = (found?.object ?? {}) as {
      metadata?: { labels?: Record<string, string> };
      status?: { addresses?: Array<{ type?: string; address?: string }> };
    };
    const hostLabel = obj.metadata?.labels?.['kubernetes.io/hostname'];
    if (hostLabel) table?.learnHost(hostLabel);
    for (const a of obj.status?.addresses ?? [])
      if ((a.type === 'Hostname' || a.type === 'InternalDNS' || a.type === 'ExternalDNS') && a.address) table?.learnHost(a.address);
  }

  const bundleName = (n: string) => safeSegment(table?.host(n) ?? n);
  const collected: CollectedNode[] = [];

  for (const node of req.nodes) {
    signal.throwIfAborted();
    const dir = `nodes/${bundleName(node)}`;
    const model = deps.cluster.model(node);
    const entry: CollectedNode = { name: node, nodeObject: nodeObjects.get(node)?.object ?? null, model, probes: {}, files: [], logs: [] };
    collected.push(entry);
    if (!deps.hosts) {
      step(`${node}: stored data only (offline)`);
      continue;
    }
    step(`${node}: connecting`);
    let transport: NodeTransport | null = null;
    try {
      transport = await deps.hosts.open(node, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      fail(node, 'connect', error);
      stepIndex += perNodeSteps - 1;
      continue;
    }
    let gone = false;
    let current = 'probes';
    try {
      // Probes (all but logs, which are collected below with the bundle's window and caps).
      step(`${node}: probes`);
      const probeIds = PROBE_IDS.filter((id) => id !== 'logs') as ProbeId[];
      const report = await runProbes({
        clusterId: deps.cluster.info.clusterId ?? 'unknown',
        transport,
        probes: probeIds,
        signal,
        repo: deps.probeResults ?? null,
        now: deps.now,
        concurrency: 2,
        ...(deps.scriptDirs ? { scriptDirs: deps.scriptDirs } : {}),
        onProgress: (done, total, id) =>
          ctx.progress?.({
            step: { index: stepIndex - 1, count: stepCount, title: `${node}: probes` },
            fraction: Math.min(1, (stepIndex - 1 + done / total) / stepCount),
            message: id,
          }),
      });
      signal.throwIfAborted();
      // Learn names from every output before any of them is written.
      for (const o of Object.values(report.probes)) if (o.raw && table) learnHostsFromText(o.raw, table);
      for (const id of probeIds) {
        const o = report.probes[id] as ProbeOutcome | undefined;
        if (!o) continue;
        entry.probes[id] = o;
        const started = deps.now() - o.durationMs;
        const meta = {
          probe: id,
          commandId: PROBES[id].scriptId,
          probeVersion: PROBES[id].version,
          transport: report.transport,
          exitCode: o.exitCode,
          stderr: o.error ? o.error.message : '',
          ok: o.ok,
          started: new Date(started).toISOString(),
          durationMs: o.durationMs,
          warnings: o.warnings,
        };
        if (o.raw !== null) await stage.writeBytes(`${dir}/probes/${id}.raw`, Buffer.from(o.raw, 'utf8'));
        if (o.ok) await stage.writeJson(`${dir}/probes/${id}.json`, o.parsed);
        await stage.writeJson(`${dir}/probes/${id}.meta.json`, meta);
        if (!o.ok) {
          fail(node, `probe:${id}`, o.error?.message ?? 'the probe did not run');
          if (o.error && ['UNREACHABLE', 'TIMEOUT'].includes(o.error.code)) gone = true;
        }
      }
      // Config files come from the files probe's output (the bytes as the node has them).
      current = 'files';
      step(`${node}: config files`);
      const filesRaw = report.probes.files?.ok ? report.probes.files.raw : null;
      if (filesRaw) {
        const used = new Set<string>();
        for (const row of parseFileRows(filesRaw)) {
          if (!row.exists || !row.bytes) continue;
          const name = uniqueName(used, row.path);
          const bytes = row.bytes.length > BUNDLE_FILE_MAX_BYTES ? row.bytes.subarray(row.bytes.length - BUNDLE_FILE_MAX_BYTES) : row.bytes;
          await stage.writeBytes(`${dir}/files/${name}`, bytes);
          entry.files.push({ path: row.path, name, text: bytes.toString('utf8') });
          ctx.progress?.({ step: { index: stepIndex - 1, count: stepCount, title: `${node}: config files` }, fraction: null, message: name });
        }
      }
      if (gone) throw new WindeckError('UNREACHABLE', `${node} stopped answering during the probes.`, { node });

      // Logs: list within the window, then fetch each tail on its own (one file in memory at a time).
      current = 'logs';
      step(`${node}: logs`);
      const listed = await runScript(
        transport,
        'logs',
        { sources: BUNDLE_LOG_SOURCES, sinceEpochMs: Math.max(0, Math.floor(req.sinceEpochMs)), maxBytesPerFile: 1 },
        { signal, ...(deps.scriptDirs ? { scriptDirs: deps.scriptDirs } : {}) },
      );
      if (listed.exitCode !== 0)
        throw new WindeckError('REMOTE_FAILED', `Listing the logs on ${node} failed (exit ${listed.exitCode}).`, { node, step: 'logs' });
      const rows = parseFileRows(listed.stdout)
        .filter((r) => r.exists)
        .sort((a, b) => b.lastWriteTime - a.lastWriteTime);
      const used = new Set<string>();
      let budget = BUNDLE_NODE_LOGS_MAX_BYTES;
      // Logs are redacted by the stage's worker pool while the next one is fetched: a few writes in flight.
      const writing = new Set<Promise<void>>();
      let writeError: unknown = null;
      const settle = async (all: boolean) => {
        while (writing.size > 0 && (all || writing.size >= LOG_WRITES_IN_FLIGHT)) await Promise.race(writing);
        if (writeError) throw writeError;
      };
      try {
        for (const row of rows) {
          signal.throwIfAborted();
          if (budget <= 0) {
            errors.push({
              node,
              step: 'logs',
              message: `Log budget of ${BUNDLE_NODE_LOGS_MAX_BYTES} bytes reached; older logs (${row.path} and after) were left out.`,
            });
            break;
          }
          const maxBytes = Math.max(1, Math.min(BUNDLE_LOG_MAX_BYTES, budget));
          const got = await runScript(
            transport,
            'files',
            { paths: [row.path], maxBytes },
            { signal, ...(deps.scriptDirs ? { scriptDirs: deps.scriptDirs } : {}) },
          );
          if (got.exitCode !== 0) {
            fail(node, `log:${path.win32.basename(row.path)}`, `reading the log failed (exit ${got.exitCode})`);
            continue;
          }
          const file = parseFileRows(got.stdout)[0];
          if (!file?.exists || !file.bytes) continue;
          const gz = /\.gz$/i.test(row.path);
          const bytes = gz ? file.bytes : trimLogBefore(file.bytes, req.sinceEpochMs, deps.now());
          const name = uniqueName(used, row.path);
          const entryName = gz ? name : /\.log$/i.test(name) ? name : `${name}.log`;
          await settle(false);
          const write: Promise<void> = stage
            .writeStream(`${dir}/logs/${entryName}`, { bytes }, { gzipped: gz, signal })
            .then(
              () => ctx.progress?.({ step: { index: stepIndex - 1, count: stepCount, title: `${node}: logs` }, fraction: null, message: entryName }),
              (error: unknown) => {
                writeError ??= error;
              },
            )
            .finally(() => writing.delete(write));
          writing.add(write);
          budget -= bytes.length;
          if (!gz) entry.logs.push({ name: entryName, excerpt: excerptsFromLog(bytes) });
        }
      } finally {
        // Never leave a write running past this node (its errors surface here, or are dropped after another).
        await Promise.allSettled([...writing]);
      }
      await settle(true);
      step(`${node}: done`);
    } catch (error) {
      if (signal.aborted) throw error;
      fail(node, nodeGone(error) ? `${current} (node dropped out)` : current, error);
    } finally {
      await transport.close().catch(() => undefined);
    }
  }

  // Cluster objects last: by now every name the outputs taught is known.
  step('Node objects and events');
  const items = req.nodes.map((n) => nodeObjects.get(n)?.object).filter((o): o is object => o !== null && o !== undefined);
  const stored = req.nodes.filter((n) => nodeObjects.get(n)?.origin === 'store');
  if (stored.length)
    errors.push({
      node: null,
      step: 'cluster',
      message: `The API server did not answer; node.json for ${stored.join(', ')} is the stored projection, not the Node object.`,
    });
  for (const n of req.nodes) {
    const obj = nodeObjects.get(n)?.object;
    if (obj) await stage.writeJson(`nodes/${bundleName(n)}/node.json`, obj);
  }
  await stage.writeJson('cluster/nodes.json', { apiVersion: 'v1', kind: 'NodeList', items });
  let events: unknown[] = [];
  try {
    events = await deps.cluster.events(req.nodes, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    errors.push({ node: null, step: 'events', message: messageOf(error) });
  }
  await stage.writeJson('cluster/events.json', { apiVersion: 'v1', kind: 'EventList', items: events });
  if (version) await stage.writeJson('cluster/version.json', version);
  else errors.push({ node: null, step: 'version', message: 'The API server /version could not be read.' });
  if (kubectl) await stage.writeText('cluster/kubectl-version.txt', kubectl + '\n');

  // Findings from the evidence as collected (before redaction, so addresses still compare), and the report.
  step('Findings and report');
  const findings: Finding[] = [];
  for (const c of collected) {
    const results = Object.entries(c.probes).map(([probeId, o]) => ({
      probeId,
      ok: o.ok,
      raw: o.raw,
      error: 'error' in o && o.error ? o.error.message : null,
    }));
    if (results.length === 0 && !c.model) continue;
    findings.push(...diagnoseProbeRun({ node: c.name, transport: null, results, nodeObject: c.model }).findings);
  }
  const facts = buildReportFacts({
    now: deps.now(),
    toolVersion: deps.toolVersion,
    context: deps.cluster.info.context,
    simulated: deps.cluster.info.simulated,
    kubernetesVersion: version?.gitVersion ?? null,
    kubectlVersion: kubectl,
    nodes: collected,
    controlPlane: deps.controlPlane ?? [],
    findings,
    origin: 'collect',
  });
  await stage.writeJson('findings.json', { findings });
  await stage.writeText('report.md', renderReport(facts).body);

  return {
    bundleNodes: req.nodes.map(bundleName),
    errors,
    retry: [...retry.entries()].map(([node, r]) => ({ node, steps: r.steps, reason: r.reason })),
    cluster: { context: deps.cluster.info.context, server: deps.cluster.info.server, kubernetesVersion: version?.gitVersion ?? null },
    facts,
    findings,
  };
}
