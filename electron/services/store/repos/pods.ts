import type { Db } from '../database';
import type { PodProjection } from '../../kube/projections';

/** Rows written per transaction during a full replace, so other writers never wait long. */
const CHUNK = 5_000;

interface Row {
  namespace: string;
  name: string;
  node: string | null;
  phase: string | null;
  status: string | null;
  ready_count: number;
  container_count: number;
  restarts: number;
  pod_ip: string | null;
  owner_kind: string | null;
  owner_name: string | null;
  created_at: string | null;
}

const toPod = (r: Row): PodProjection => ({
  namespace: r.namespace,
  name: r.name,
  uid: null,
  node: r.node,
  phase: r.phase,
  status: r.status,
  readyCount: r.ready_count,
  containerCount: r.container_count,
  restarts: r.restarts,
  podIP: r.pod_ip,
  ownerKind: r.owner_kind,
  ownerName: r.owner_name,
  createdAt: r.created_at,
});

/** Pods per cluster (the inventory's projection; see migration 0010). */
export class PodsRepo {
  constructor(private readonly db: Db) {}

  private upsertStmt() {
    return this.db.prepare(
      `INSERT INTO pods (cluster_id, namespace, name, node, phase, status, ready_count, container_count, restarts, pod_ip, owner_kind, owner_name, created_at, gen)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(cluster_id, namespace, name) DO UPDATE SET node = excluded.node, phase = excluded.phase, status = excluded.status,
         ready_count = excluded.ready_count, container_count = excluded.container_count, restarts = excluded.restarts, pod_ip = excluded.pod_ip,
         owner_kind = excluded.owner_kind, owner_name = excluded.owner_name, created_at = excluded.created_at, gen = excluded.gen`,
    );
  }

  private write(stmt: ReturnType<PodsRepo['upsertStmt']>, clusterId: string, p: PodProjection, gen: number): void {
    stmt.run(clusterId, p.namespace, p.name, p.node, p.phase, p.status, p.readyCount, p.containerCount, p.restarts, p.podIP, p.ownerKind, p.ownerName, p.createdAt, gen);
  }

  private nextGen(clusterId: string): number {
    return ((this.db.prepare('SELECT MAX(gen) FROM pods WHERE cluster_id = ?').pluck().get(clusterId) as number | null) ?? 0) + 1;
  }

  /** Make the stored pods exactly `pods` (a relist): chunked upserts with a new generation, then a sweep. */
  replaceAll(clusterId: string, pods: Iterable<PodProjection>): number {
    const gen = this.nextGen(clusterId);
    const stmt = this.upsertStmt();
    let batch: PodProjection[] = [];
    let count = 0;
    const flush = this.db.transaction((items: PodProjection[]) => {
      for (const p of items) this.write(stmt, clusterId, p, gen);
    });
    for (const p of pods) {
      batch.push(p);
      if (batch.length >= CHUNK) {
        flush.immediate(batch);
        count += batch.length;
        batch = [];
      }
    }
    if (batch.length) flush.immediate(batch);
    count += batch.length;
    this.db.prepare('DELETE FROM pods WHERE cluster_id = ? AND gen < ?').run(clusterId, gen);
    return count;
  }

  /** Apply watch changes in one short transaction. */
  apply(clusterId: string, upserts: readonly PodProjection[], deletes: ReadonlyArray<{ namespace: string; name: string }>): void {
    if (upserts.length === 0 && deletes.length === 0) return;
    const gen = Math.max(1, this.nextGen(clusterId) - 1);
    const stmt = this.upsertStmt();
    const del = this.db.prepare('DELETE FROM pods WHERE cluster_id = ? AND namespace = ? AND name = ?');
    this.db.transaction(() => {
      for (const p of upserts) this.write(stmt, clusterId, p, gen);
      for (const d of deletes) del.run(clusterId, d.namespace, d.name);
    }).immediate();
  }

  count(clusterId: string): number {
    return this.db.prepare('SELECT COUNT(*) FROM pods WHERE cluster_id = ?').pluck().get(clusterId) as number;
  }

  /** Pods per node name. */
  countsByNode(clusterId: string): Map<string, number> {
    const rows = this.db.prepare('SELECT node, COUNT(*) AS n FROM pods WHERE cluster_id = ? AND node IS NOT NULL GROUP BY node').all(clusterId) as Array<{ node: string; n: number }>;
    return new Map(rows.map((r) => [r.node, r.n]));
  }

  listByNode(clusterId: string, node: string): PodProjection[] {
    return (this.db.prepare('SELECT * FROM pods WHERE cluster_id = ? AND node = ? ORDER BY namespace, name').all(clusterId, node) as Row[]).map(toPod);
  }

  clear(clusterId: string): void {
    this.db.prepare('DELETE FROM pods WHERE cluster_id = ?').run(clusterId);
  }
}
