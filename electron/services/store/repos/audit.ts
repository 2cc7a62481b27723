import type { Db } from '../database';

export interface AuditEntry {
  id: number;
  at: number;
  clusterId: string | null;
  node: string | null;
  action: string;
  detail: unknown;
  outcome: string | null;
  finishedAt: number | null;
}

/** What Windeck did to a node. A row is committed before the remote call and completed after. */
export class AuditRepo {
  constructor(private readonly db: Db) {}

  begin(entry: { at: number; clusterId: string | null; node: string | null; action: string; detail: unknown }): number {
    const info = this.db
      .prepare('INSERT INTO audit (at, cluster_id, node, action, detail) VALUES (?, ?, ?, ?, ?)')
      .run(entry.at, entry.clusterId, entry.node, entry.action, JSON.stringify(entry.detail));
    return Number(info.lastInsertRowid);
  }

  complete(id: number, outcome: string, at: number, detail?: unknown): void {
    if (detail === undefined) this.db.prepare('UPDATE audit SET outcome = ?, finished_at = ? WHERE id = ?').run(outcome, at, id);
    else this.db.prepare('UPDATE audit SET outcome = ?, finished_at = ?, detail = ? WHERE id = ?').run(outcome, at, JSON.stringify(detail), id);
  }

  list(filter: { clusterId?: string | null; node?: string | null; limit?: number }): AuditEntry[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM audit WHERE (@cluster IS NULL OR cluster_id = @cluster) AND (@node IS NULL OR node = @node) ORDER BY at DESC, id DESC LIMIT @limit`,
      )
      .all({ cluster: filter.clusterId ?? null, node: filter.node ?? null, limit: filter.limit ?? 200 }) as Array<{
      id: number;
      at: number;
      cluster_id: string | null;
      node: string | null;
      action: string;
      detail: string;
      outcome: string | null;
      finished_at: number | null;
    }>;
    return rows.map((r) => ({ id: r.id, at: r.at, clusterId: r.cluster_id, node: r.node, action: r.action, detail: JSON.parse(r.detail) as unknown, outcome: r.outcome, finishedAt: r.finished_at }));
  }
}
