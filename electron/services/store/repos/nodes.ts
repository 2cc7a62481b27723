import type { Db } from '../database';
import type { NodeModel, NodeSummary } from '../../../../shared/domain/node';

/** Stored node rows: the NodeModel projection as JSON plus indexed columns for filters. */
export class NodesRepo {
  constructor(private readonly db: Db) {}

  /** Insert or replace nodes in one short transaction. */
  upsertMany(clusterId: string, nodes: readonly NodeModel[]): void {
    const stmt = this.db.prepare(
      `INSERT INTO nodes (cluster_id, name, os, health, data, summary, synced_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(cluster_id, name) DO UPDATE SET os = excluded.os, health = excluded.health, data = excluded.data, summary = excluded.summary,
         synced_at = excluded.synced_at`,
    );
    this.db.transaction(() => {
      for (const n of nodes) stmt.run(clusterId, n.name, n.os, n.health, JSON.stringify(n), JSON.stringify(toSummary(n)), n.syncedAt);
    })();
  }

  /** Make the stored set exactly `nodes` (a full relist). */
  replaceAll(clusterId: string, nodes: readonly NodeModel[]): void {
    this.db.transaction(() => {
      const keep = new Set(nodes.map((n) => n.name));
      const existing = this.db.prepare('SELECT name FROM nodes WHERE cluster_id = ?').pluck().all(clusterId) as string[];
      const del = this.db.prepare('DELETE FROM nodes WHERE cluster_id = ? AND name = ?');
      for (const name of existing) if (!keep.has(name)) del.run(clusterId, name);
      this.upsertMany(clusterId, nodes);
    })();
  }

  remove(clusterId: string, name: string): void {
    this.db.prepare('DELETE FROM nodes WHERE cluster_id = ? AND name = ?').run(clusterId, name);
  }

  get(clusterId: string, name: string): NodeModel | null {
    const data = this.db.prepare('SELECT data FROM nodes WHERE cluster_id = ? AND name = ?').pluck().get(clusterId, name) as string | undefined;
    return data ? (JSON.parse(data) as NodeModel) : null;
  }

  listModels(clusterId: string): NodeModel[] {
    return (this.db.prepare('SELECT data FROM nodes WHERE cluster_id = ? ORDER BY name').pluck().all(clusterId) as string[]).map((d) => JSON.parse(d) as NodeModel);
  }

  /** Fleet rows: the NodeSummary fields only, from the small `summary` column (the full model is not parsed). */
  listSummaries(clusterId: string): NodeSummary[] {
    const rows = this.db.prepare('SELECT summary FROM nodes WHERE cluster_id = ? ORDER BY name').pluck().all(clusterId) as string[];
    return rows.map((r) => JSON.parse(r) as NodeSummary);
  }
}

export function toSummary(n: NodeModel): NodeSummary {
  return {
    name: n.name,
    os: n.os,
    ready: n.ready,
    windowsBuild: n.windowsBuild,
    windowsRelease: n.windowsRelease,
    kubeletVersion: n.kubeletVersion,
    containerRuntime: n.containerRuntime,
    internalIP: n.internalIP,
    podCount: n.podCount,
    health: n.health,
    reasons: n.reasons,
    syncedAt: n.syncedAt,
  };
}
