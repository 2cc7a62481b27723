import type { Db } from '../database';
import type { WorkloadObject } from '../../../../shared/rules/cluster/cluster-facts';

/** Workload projections for lint (so `lint-workloads --offline` works from the store). */
export class WorkloadsRepo {
  constructor(private readonly db: Db) {}

  replaceAll(clusterId: string, workloads: readonly WorkloadObject[], now: number): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM workloads WHERE cluster_id = ?').run(clusterId);
      const stmt = this.db.prepare('INSERT OR REPLACE INTO workloads (cluster_id, kind, namespace, name, data, synced_at) VALUES (?, ?, ?, ?, ?, ?)');
      for (const w of workloads) stmt.run(clusterId, w.kind ?? '', w.metadata?.namespace ?? '', w.metadata?.name ?? '', JSON.stringify(w), now);
    }).immediate();
  }

  list(clusterId: string, namespace?: string | null): WorkloadObject[] {
    const rows = namespace
      ? (this.db.prepare('SELECT data FROM workloads WHERE cluster_id = ? AND namespace = ? ORDER BY kind, namespace, name').pluck().all(clusterId, namespace) as string[])
      : (this.db.prepare('SELECT data FROM workloads WHERE cluster_id = ? ORDER BY kind, namespace, name').pluck().all(clusterId) as string[]);
    return rows.map((d) => JSON.parse(d) as WorkloadObject);
  }

  syncedAt(clusterId: string): number | null {
    return (this.db.prepare('SELECT MAX(synced_at) FROM workloads WHERE cluster_id = ?').pluck().get(clusterId) as number | null) ?? null;
  }
}
