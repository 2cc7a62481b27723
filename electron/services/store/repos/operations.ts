import type { Db } from '../database';
import type { OperationProgress, OperationRecord } from '../../../../shared/domain/operation';
import type { WireError } from '../../../../shared/contract/errors';

interface Row {
  id: string;
  progress: string;
  result: string | null;
  error: string | null;
  finished_at: number | null;
}

function toRecord(row: Row): OperationRecord {
  const progress = JSON.parse(row.progress) as OperationProgress;
  return {
    ...progress,
    ...(row.result !== null ? { result: JSON.parse(row.result) as unknown } : {}),
    ...(row.error !== null ? { error: JSON.parse(row.error) as WireError } : {}),
    finishedAt: row.finished_at,
  };
}

/** Operations as rows, so a reload, a second tab or the CLI sees them. */
export class OperationsRepo {
  constructor(private readonly db: Db) {}

  insert(progress: OperationProgress): void {
    this.db
      .prepare(
        'INSERT INTO operations (id, kind, title, state, cluster_id, node, owner_pid, progress, started_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(progress.operationId, progress.kind, progress.title, progress.state, progress.cluster, progress.node, process.pid, JSON.stringify(progress), progress.startedAt, progress.at);
  }

  update(progress: OperationProgress): void {
    this.db.prepare('UPDATE operations SET state = ?, progress = ?, updated_at = ? WHERE id = ?').run(progress.state, JSON.stringify(progress), progress.at, progress.operationId);
  }

  finish(progress: OperationProgress, outcome: { result?: unknown; error?: WireError }): void {
    this.db
      .prepare('UPDATE operations SET state = ?, progress = ?, updated_at = ?, finished_at = ?, result = ?, error = ? WHERE id = ?')
      .run(
        progress.state,
        JSON.stringify(progress),
        progress.at,
        progress.at,
        outcome.result === undefined ? null : JSON.stringify(outcome.result),
        outcome.error === undefined ? null : JSON.stringify(outcome.error),
        progress.operationId,
      );
  }

  get(id: string): OperationRecord | null {
    const row = this.db.prepare('SELECT id, progress, result, error, finished_at FROM operations WHERE id = ?').get(id) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  list(limit: number): OperationRecord[] {
    const rows = this.db.prepare('SELECT id, progress, result, error, finished_at FROM operations ORDER BY started_at DESC, rowid DESC LIMIT ?').all(limit) as Row[];
    return rows.map(toRecord);
  }

  /**
   * Rows left running by a process that is gone become failed with an interrupted reason. Rows of a live
   * process (the app while a CLI runs beside it) are left alone.
   */
  markInterrupted(now: number, isAlive: (pid: number) => boolean): number {
    const rows = this.db.prepare("SELECT id, progress, owner_pid FROM operations WHERE state IN ('queued', 'running')").all() as Array<{
      id: string;
      progress: string;
      owner_pid: number | null;
    }>;
    let count = 0;
    for (const row of rows) {
      if (row.owner_pid !== null && isAlive(row.owner_pid)) continue;
      const progress = { ...(JSON.parse(row.progress) as OperationProgress), state: 'failed' as const, at: now, message: 'Interrupted: Windeck stopped while this ran.' };
      this.finish(progress, { error: { code: 'CANCELLED', message: 'Interrupted: Windeck stopped while this operation ran. Start it again.', retryable: true } });
      count++;
    }
    return count;
  }

  prune(keep: number): void {
    this.db.prepare('DELETE FROM operations WHERE finished_at IS NOT NULL AND id NOT IN (SELECT id FROM operations ORDER BY started_at DESC LIMIT ?)').run(keep);
  }
}
