import { BUNDLE_RETRY_INITIAL_MS, BUNDLE_RETRY_MAX_ATTEMPTS, BUNDLE_RETRY_MAX_MS } from '../../../shared/domain/limits';
import type { CollectSpec } from '../../../shared/contract/methods/bundles';
import type { Db } from '../store/database';

/**
 * Bundle retry jobs (table bundle_jobs, migration 0040): a node that dropped out of a collection gets a job that
 * collects it again, on its own, once it answers; attempts back off from BUNDLE_RETRY_INITIAL_MS, doubling up to
 * BUNDLE_RETRY_MAX_MS, and give up after BUNDLE_RETRY_MAX_ATTEMPTS.
 */

export type BundleJobState = 'queued' | 'running' | 'done' | 'failed';

export interface BundleJobSpec {
  spec: CollectSpec;
  /** Where the original bundle went; the retry writes next to it. */
  output: string;
  /** The steps that failed and why (for the user). */
  missing: string[];
  reason: string;
}

export interface BundleJob {
  id: number;
  kind: 'collect-retry';
  clusterId: string | null;
  node: string;
  spec: BundleJobSpec;
  state: BundleJobState;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  result: { paths: string[] } | null;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  id: number;
  kind: string;
  cluster_id: string | null;
  node: string;
  spec: string;
  state: string;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  result: string | null;
  created_at: number;
  updated_at: number;
}

function toJob(r: Row): BundleJob {
  return {
    id: r.id,
    kind: 'collect-retry',
    clusterId: r.cluster_id,
    node: r.node,
    spec: JSON.parse(r.spec) as BundleJobSpec,
    state: r.state as BundleJobState,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastError: r.last_error,
    result: r.result ? (JSON.parse(r.result) as { paths: string[] }) : null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Delay before attempt `attempts + 1`. */
export function retryDelayMs(attempts: number): number {
  return Math.min(BUNDLE_RETRY_MAX_MS, BUNDLE_RETRY_INITIAL_MS * 2 ** Math.max(0, attempts));
}

export class BundleJobsRepo {
  constructor(private readonly db: Db) {}

  /** Queue a retry; one open job per (cluster, node, output): a second drop-out updates it instead. */
  enqueue(input: { clusterId: string | null; node: string; spec: BundleJobSpec; now: number }): number {
    const open = this.db
      .prepare("SELECT id FROM bundle_jobs WHERE kind = 'collect-retry' AND cluster_id IS ? AND node = ? AND state IN ('queued', 'running') AND json_extract(spec, '$.output') = ?")
      .pluck()
      .get(input.clusterId, input.node, input.spec.output) as number | undefined;
    if (open !== undefined) {
      this.db.prepare('UPDATE bundle_jobs SET spec = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(input.spec), input.now, open);
      return open;
    }
    const info = this.db
      .prepare("INSERT INTO bundle_jobs (kind, cluster_id, node, spec, state, attempts, next_attempt_at, created_at, updated_at) VALUES ('collect-retry', ?, ?, ?, 'queued', 0, ?, ?, ?)")
      .run(input.clusterId, input.node, JSON.stringify(input.spec), input.now + BUNDLE_RETRY_INITIAL_MS, input.now, input.now);
    return Number(info.lastInsertRowid);
  }

  get(id: number): BundleJob | null {
    const row = this.db.prepare('SELECT * FROM bundle_jobs WHERE id = ?').get(id) as Row | undefined;
    return row ? toJob(row) : null;
  }

  list(filter: { state?: BundleJobState; limit?: number } = {}): BundleJob[] {
    const rows = this.db
      .prepare('SELECT * FROM bundle_jobs WHERE (@state IS NULL OR state = @state) ORDER BY id DESC LIMIT @limit')
      .all({ state: filter.state ?? null, limit: filter.limit ?? 200 }) as Row[];
    return rows.map(toJob);
  }

  /** Jobs whose next attempt is due (oldest first). */
  due(now: number, limit = 10): BundleJob[] {
    const rows = this.db.prepare("SELECT * FROM bundle_jobs WHERE state = 'queued' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?").all(now, limit) as Row[];
    return rows.map(toJob);
  }

  /** Claim a queued job (false when another process took it). */
  claim(id: number, now: number): boolean {
    return this.db.prepare("UPDATE bundle_jobs SET state = 'running', updated_at = ? WHERE id = ? AND state = 'queued'").run(now, id).changes === 1;
  }

  /** The node still does not answer: try again later (or give up after the last attempt). */
  reschedule(id: number, error: string, now: number): BundleJob | null {
    const job = this.get(id);
    if (!job) return null;
    const attempts = job.attempts + 1;
    const state: BundleJobState = attempts >= BUNDLE_RETRY_MAX_ATTEMPTS ? 'failed' : 'queued';
    this.db
      .prepare('UPDATE bundle_jobs SET state = ?, attempts = ?, next_attempt_at = ?, last_error = ?, updated_at = ? WHERE id = ?')
      .run(state, attempts, now + retryDelayMs(attempts), error.slice(0, 2000), now, id);
    return this.get(id);
  }

  finish(id: number, state: 'done' | 'failed', outcome: { result?: { paths: string[] }; error?: string }, now: number): void {
    this.db
      .prepare('UPDATE bundle_jobs SET state = ?, attempts = attempts + 1, result = ?, last_error = ?, updated_at = ? WHERE id = ?')
      .run(state, outcome.result ? JSON.stringify(outcome.result) : null, outcome.error?.slice(0, 2000) ?? null, now, id);
  }

  /** Jobs left `running` by a process that stopped go back to the queue. */
  requeueStale(now: number, olderThanMs: number): number {
    return this.db.prepare("UPDATE bundle_jobs SET state = 'queued', next_attempt_at = ?, updated_at = ? WHERE state = 'running' AND updated_at < ?").run(now, now, now - olderThanMs).changes;
  }
}
