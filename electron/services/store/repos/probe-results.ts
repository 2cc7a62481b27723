import type { Db } from '../database';
import { redactBytes, redactText } from '../../../../shared/logic/redact';
import type { TransportKind, WireError } from '../../../../shared/contract/errors';
import type { NodeProbeBrief } from '../../../../shared/contract/methods/nodes';

/** One stored probe run: the raw output as received (bytes), what was parsed from it, or why it failed. */
export interface ProbeResultRow {
  id: number;
  clusterId: string;
  node: string;
  probeId: string;
  probeVersion: number;
  scriptId: string | null;
  scriptSha256: string | null;
  transport: TransportKind | null;
  ok: boolean;
  exitCode: number | null;
  raw: Buffer | null;
  stderr: string | null;
  parsed: unknown;
  warnings: string[];
  error: WireError | null;
  startedAt: number;
  durationMs: number;
}

export type ProbeResultInput = Omit<ProbeResultRow, 'id'>;

interface Row {
  id: number;
  cluster_id: string;
  node: string;
  probe_id: string;
  probe_version: number;
  script_id: string | null;
  script_sha256: string | null;
  transport: string | null;
  ok: number;
  exit_code: number | null;
  raw: Buffer | null;
  stderr: string | null;
  parsed: string | null;
  warnings: string;
  error: string | null;
  started_at: number;
  duration_ms: number;
}

const toResult = (r: Row): ProbeResultRow => ({
  id: r.id,
  clusterId: r.cluster_id,
  node: r.node,
  probeId: r.probe_id,
  probeVersion: r.probe_version,
  scriptId: r.script_id,
  scriptSha256: r.script_sha256,
  transport: r.transport as TransportKind | null,
  ok: r.ok === 1,
  exitCode: r.exit_code,
  raw: r.raw,
  stderr: r.stderr,
  parsed: r.parsed === null ? null : (JSON.parse(r.parsed) as unknown),
  warnings: JSON.parse(r.warnings) as string[],
  error: r.error === null ? null : (JSON.parse(r.error) as WireError),
  startedAt: r.started_at,
  durationMs: r.duration_ms,
});

/**
 * The component services the fleet table shows, in column order: each group lists the real service names that
 * stand for it (AKS spells kube-proxy `kubeproxy`; the CNI may be flanneld, Calico or Antrea; the runtime
 * containerd or docker). Every present service of a group is kept under its real name.
 */
export const SUMMARY_SERVICE_GROUPS: ReadonlyArray<readonly string[]> = [
  ['kubelet'],
  ['kube-proxy', 'kubeproxy'],
  ['flanneld', 'caliconode', 'calicofelix', 'antrea-agent', 'ovs-vswitchd'],
  ['containerd', 'docker'],
  ['hns'],
];

/**
 * The compact form of a parsed `services` probe (`{ services: [{ name, status }] }`): real name -> state of the
 * component services present, in SUMMARY_SERVICE_GROUPS order. Null when the value is not a services result.
 */
export function servicesBrief(parsed: unknown): Record<string, string> | null {
  const list = parsed && typeof parsed === 'object' ? (parsed as { services?: unknown }).services : undefined;
  if (!Array.isArray(list)) return null;
  const byName = new Map<string, { name: string; status: string }>();
  for (const item of list) {
    const r = item as { name?: unknown; status?: unknown } | null;
    if (!r || typeof r.name !== 'string') continue;
    byName.set(r.name.toLowerCase(), { name: r.name, status: typeof r.status === 'string' ? r.status : 'Unknown' });
  }
  const out: Record<string, string> = {};
  for (const group of SUMMARY_SERVICE_GROUPS) {
    for (const name of group) {
      const hit = byName.get(name);
      if (hit) out[hit.name] = hit.status;
    }
  }
  return out;
}

interface SummaryRow {
  node: string;
  probed_at: number;
  services_at: number | null;
  services_ok: number | null;
  services: string | null;
}

/** Probe history per node and probe; older runs beyond `keep` are pruned on insert. */
export class ProbeResultsRepo {
  constructor(
    private readonly db: Db,
    private readonly keep = 20,
  ) {}

  /**
   * Store one run. Secrets never reach the database in clear: the raw output, stderr and every string of the parsed
   * form pass the standard redaction first (a kubelet config or a log line may carry a token or a key).
   */
  insert(input: ProbeResultInput): number {
    const r: ProbeResultInput = {
      ...input,
      raw: input.raw ? Buffer.from(redactBytes(input.raw, { level: 'standard', maxFindings: 0 }).bytes) : input.raw,
      stderr: input.stderr ? redactText(input.stderr, { level: 'standard', maxFindings: 0 }).text : input.stderr,
      parsed: redactStrings(input.parsed),
    };
    const tx = this.db.transaction(() => {
      const info = this.db
        .prepare(
          `INSERT INTO probe_results (cluster_id, node, probe_id, probe_version, script_id, script_sha256, transport, ok, exit_code, raw, stderr, parsed, warnings, error, started_at, duration_ms)
           VALUES (@clusterId, @node, @probeId, @probeVersion, @scriptId, @scriptSha256, @transport, @ok, @exitCode, @raw, @stderr, @parsed, @warnings, @error, @startedAt, @durationMs)`,
        )
        .run({
          ...r,
          ok: r.ok ? 1 : 0,
          parsed: r.parsed === undefined || r.parsed === null ? null : JSON.stringify(r.parsed),
          warnings: JSON.stringify(r.warnings),
          error: r.error ? JSON.stringify(r.error) : null,
        });
      this.db
        .prepare(
          `DELETE FROM probe_results WHERE cluster_id = ? AND node = ? AND probe_id = ? AND id NOT IN
             (SELECT id FROM probe_results WHERE cluster_id = ? AND node = ? AND probe_id = ? ORDER BY started_at DESC, id DESC LIMIT ?)`,
        )
        .run(r.clusterId, r.node, r.probeId, r.clusterId, r.node, r.probeId, this.keep);
      this.summarize(r);
      return Number(info.lastInsertRowid);
    });
    return tx.immediate();
  }

  /** Keep node_probe_summary current (inside insert's transaction). A run older than the stored one changes nothing. */
  private summarize(r: ProbeResultInput): void {
    this.db
      .prepare(
        `INSERT INTO node_probe_summary (cluster_id, node, probed_at) VALUES (?, ?, ?)
         ON CONFLICT(cluster_id, node) DO UPDATE SET probed_at = MAX(probed_at, excluded.probed_at)`,
      )
      .run(r.clusterId, r.node, r.startedAt);
    if (r.probeId !== 'services') return;
    const brief = r.ok ? servicesBrief(r.parsed) : null;
    this.db
      .prepare(
        `UPDATE node_probe_summary SET services_at = @at, services_ok = @ok, services = @services
         WHERE cluster_id = @clusterId AND node = @node AND (services_at IS NULL OR services_at <= @at)`,
      )
      .run({ at: r.startedAt, ok: r.ok ? 1 : 0, services: brief ? JSON.stringify(brief) : null, clusterId: r.clusterId, node: r.node });
  }

  /** What the fleet shows of every probed node of a cluster, by node name: one indexed query. */
  summaries(clusterId: string): Map<string, NodeProbeBrief> {
    const rows = this.db
      .prepare('SELECT node, probed_at, services_at, services_ok, services FROM node_probe_summary WHERE cluster_id = ?')
      .all(clusterId) as SummaryRow[];
    const out = new Map<string, NodeProbeBrief>();
    for (const r of rows) {
      out.set(r.node, {
        probedAt: r.probed_at,
        servicesAt: r.services_at,
        servicesOk: r.services_ok === null ? null : r.services_ok === 1,
        services: r.services === null ? null : (JSON.parse(r.services) as Record<string, string>),
      });
    }
    return out;
  }

  /** The newest run of each probe on a node. */
  latest(clusterId: string, node: string): ProbeResultRow[] {
    const rows = this.db
      .prepare(
        `SELECT p.* FROM probe_results p WHERE p.cluster_id = ? AND p.node = ? AND p.id = (
           SELECT q.id FROM probe_results q WHERE q.cluster_id = p.cluster_id AND q.node = p.node AND q.probe_id = p.probe_id ORDER BY q.started_at DESC, q.id DESC LIMIT 1)
         ORDER BY p.probe_id`,
      )
      .all(clusterId, node) as Row[];
    return rows.map(toResult);
  }

  history(clusterId: string, node: string, probeId: string, limit = 20): ProbeResultRow[] {
    return (
      this.db
        .prepare('SELECT * FROM probe_results WHERE cluster_id = ? AND node = ? AND probe_id = ? ORDER BY started_at DESC, id DESC LIMIT ?')
        .all(clusterId, node, probeId, limit) as Row[]
    ).map(toResult);
  }
}

/** Redact every string leaf of a parsed probe result (keys are script-defined names, not data). */
function redactStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.length < 8 ? value : redactText(value, { level: 'standard', maxFindings: 0 }).text;
  if (Array.isArray(value)) return value.map(redactStrings);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactStrings(v);
    return out;
  }
  return value;
}
