import type { Db } from '../database';
import type { EventProjection } from '../../kube/projections';

interface Row {
  namespace: string;
  name: string;
  object_kind: string | null;
  object_namespace: string | null;
  object_name: string | null;
  type: string | null;
  reason: string | null;
  message: string | null;
  count: number;
  first_seen: string | null;
  last_seen: string | null;
  source: string | null;
}

const toEvent = (r: Row): EventProjection => ({
  namespace: r.namespace,
  name: r.name,
  objectKind: r.object_kind,
  objectNamespace: r.object_namespace,
  objectName: r.object_name,
  type: r.type,
  reason: r.reason,
  message: r.message,
  count: r.count,
  firstSeen: r.first_seen,
  lastSeen: r.last_seen,
  source: r.source,
});

/** Kubernetes Events per cluster (named kube_events to keep them apart from Windeck's own event bus). */
export class KubeEventsRepo {
  constructor(private readonly db: Db) {}

  private stmt() {
    return this.db.prepare(
      `INSERT INTO kube_events (cluster_id, namespace, name, object_kind, object_namespace, object_name, type, reason, message, count, first_seen, last_seen, source, gen)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(cluster_id, namespace, name) DO UPDATE SET object_kind = excluded.object_kind, object_namespace = excluded.object_namespace,
         object_name = excluded.object_name, type = excluded.type, reason = excluded.reason, message = excluded.message, count = excluded.count,
         first_seen = excluded.first_seen, last_seen = excluded.last_seen, source = excluded.source, gen = excluded.gen`,
    );
  }

  private run(stmt: ReturnType<KubeEventsRepo['stmt']>, clusterId: string, e: EventProjection, gen: number): void {
    stmt.run(clusterId, e.namespace, e.name, e.objectKind, e.objectNamespace, e.objectName, e.type, e.reason, e.message, e.count, e.firstSeen, e.lastSeen, e.source, gen);
  }

  replaceAll(clusterId: string, events: Iterable<EventProjection>): number {
    const gen = ((this.db.prepare('SELECT MAX(gen) FROM kube_events WHERE cluster_id = ?').pluck().get(clusterId) as number | null) ?? 0) + 1;
    const stmt = this.stmt();
    const all = [...events];
    for (let i = 0; i < all.length; i += 5_000) {
      this.db.transaction(() => {
        for (const e of all.slice(i, i + 5_000)) this.run(stmt, clusterId, e, gen);
      }).immediate();
    }
    this.db.prepare('DELETE FROM kube_events WHERE cluster_id = ? AND gen < ?').run(clusterId, gen);
    return all.length;
  }

  apply(clusterId: string, upserts: readonly EventProjection[], deletes: ReadonlyArray<{ namespace: string; name: string }>): void {
    if (upserts.length === 0 && deletes.length === 0) return;
    const gen = (this.db.prepare('SELECT MAX(gen) FROM kube_events WHERE cluster_id = ?').pluck().get(clusterId) as number | null) ?? 1;
    const stmt = this.stmt();
    const del = this.db.prepare('DELETE FROM kube_events WHERE cluster_id = ? AND namespace = ? AND name = ?');
    this.db.transaction(() => {
      for (const e of upserts) this.run(stmt, clusterId, e, gen);
      for (const d of deletes) del.run(clusterId, d.namespace, d.name);
    }).immediate();
  }

  /** Events about one object (a node: kind Node), newest first. */
  forObject(clusterId: string, kind: string, name: string, limit = 200): EventProjection[] {
    return (this.db.prepare('SELECT * FROM kube_events WHERE cluster_id = ? AND object_kind = ? AND object_name = ? ORDER BY last_seen DESC LIMIT ?').all(clusterId, kind, name, limit) as Row[]).map(toEvent);
  }

  /** Events of pods on a node are joined through the pods table. */
  forPodsOnNode(clusterId: string, node: string, limit = 200): EventProjection[] {
    return (
      this.db
        .prepare(
          `SELECT e.* FROM kube_events e JOIN pods p ON p.cluster_id = e.cluster_id AND p.namespace = e.object_namespace AND p.name = e.object_name
           WHERE e.cluster_id = ? AND e.object_kind = 'Pod' AND p.node = ? ORDER BY e.last_seen DESC LIMIT ?`,
        )
        .all(clusterId, node, limit) as Row[]
    ).map(toEvent);
  }

  count(clusterId: string): number {
    return this.db.prepare('SELECT COUNT(*) FROM kube_events WHERE cluster_id = ?').pluck().get(clusterId) as number;
  }
}
