import type { Db } from '../database';
import type { DaemonSetProjection } from '../../kube/projections';

/** DaemonSets per cluster (projection as JSON plus counts). */
export class DaemonSetsRepo {
  constructor(private readonly db: Db) {}

  replaceAll(clusterId: string, items: Iterable<DaemonSetProjection>): number {
    const all = [...items];
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM daemonsets WHERE cluster_id = ?').run(clusterId);
      const stmt = this.db.prepare('INSERT INTO daemonsets (cluster_id, namespace, name, desired, ready, data) VALUES (?, ?, ?, ?, ?, ?)');
      for (const d of all) stmt.run(clusterId, d.namespace, d.name, d.desired, d.ready, JSON.stringify(d));
    }).immediate();
    return all.length;
  }

  apply(clusterId: string, upserts: readonly DaemonSetProjection[], deletes: ReadonlyArray<{ namespace: string; name: string }>): void {
    if (upserts.length === 0 && deletes.length === 0) return;
    const up = this.db.prepare(
      `INSERT INTO daemonsets (cluster_id, namespace, name, desired, ready, data) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(cluster_id, namespace, name) DO UPDATE SET desired = excluded.desired, ready = excluded.ready, data = excluded.data`,
    );
    const del = this.db.prepare('DELETE FROM daemonsets WHERE cluster_id = ? AND namespace = ? AND name = ?');
    this.db.transaction(() => {
      for (const d of upserts) up.run(clusterId, d.namespace, d.name, d.desired, d.ready, JSON.stringify(d));
      for (const d of deletes) del.run(clusterId, d.namespace, d.name);
    }).immediate();
  }

  list(clusterId: string): DaemonSetProjection[] {
    return (this.db.prepare('SELECT data FROM daemonsets WHERE cluster_id = ? ORDER BY namespace, name').pluck().all(clusterId) as string[]).map((d) => JSON.parse(d) as DaemonSetProjection);
  }
}
