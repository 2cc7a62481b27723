import type { Db } from '../database';
import { redactBytes, redactText } from '../../../../shared/logic/redact';
import type { TransportKind, WireError } from '../../../../shared/contract/errors';

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
      return Number(info.lastInsertRowid);
    });
    return tx.immediate();
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
    return (this.db.prepare('SELECT * FROM probe_results WHERE cluster_id = ? AND node = ? AND probe_id = ? ORDER BY started_at DESC, id DESC LIMIT ?').all(clusterId, node, probeId, limit) as Row[]).map(toResult);
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
