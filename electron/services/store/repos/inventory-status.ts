import type { Db } from '../database';

/** Per cluster and resource: the reflector's state and counters, for the UI and `windeck nodes`. */
export interface InventoryStatus {
  clusterId: string;
  resource: string;
  state: string;
  resourceVersion: string | null;
  items: number;
  stats: Record<string, unknown>;
  lastError: string | null;
  updatedAt: number;
}

export class InventoryStatusRepo {
  constructor(private readonly db: Db) {}

  put(s: InventoryStatus): void {
    this.db
      .prepare(
        `INSERT INTO inventory_status (cluster_id, resource, state, resource_version, items, stats, last_error, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(cluster_id, resource) DO UPDATE SET state = excluded.state, resource_version = excluded.resource_version, items = excluded.items,
           stats = excluded.stats, last_error = excluded.last_error, updated_at = excluded.updated_at`,
      )
      .run(s.clusterId, s.resource, s.state, s.resourceVersion, s.items, JSON.stringify(s.stats), s.lastError, s.updatedAt);
  }

  list(clusterId: string): InventoryStatus[] {
    const rows = this.db.prepare('SELECT * FROM inventory_status WHERE cluster_id = ? ORDER BY resource').all(clusterId) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      clusterId: String(r.cluster_id),
      resource: String(r.resource),
      state: String(r.state),
      resourceVersion: (r.resource_version as string | null) ?? null,
      items: Number(r.items),
      stats: JSON.parse(String(r.stats)) as Record<string, unknown>,
      lastError: (r.last_error as string | null) ?? null,
      updatedAt: Number(r.updated_at),
    }));
  }
}
