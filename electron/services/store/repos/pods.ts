import type { Db } from '../database';
import type { PodProjection } from '../../kube/projections';
import type { PodPhaseFilter, PodRow, PodSortKey } from '../../../../shared/contract/methods/pods';
import type { NodeOs } from '../../../../shared/domain/node';

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

export interface PodPageQuery {
  offset: number;
  limit: number;
  search?: string | undefined;
  namespace?: string | undefined;
  node?: string | undefined;
  phase: PodPhaseFilter;
  os: 'all' | NodeOs;
  sort: PodSortKey;
  dir: 'asc' | 'desc';
}

/** ORDER BY per sort key; ties end on the primary key so a window never repeats or skips a row. */
const POD_ORDER: Record<PodSortKey, string> = {
  namespace: 'p.namespace {dir}, p.name {dir}',
  name: 'p.name {dir}, p.namespace {dir}',
  node: "COALESCE(p.node, '') {dir}, p.namespace, p.name",
  phase: "COALESCE(p.phase, '') {dir}, p.namespace, p.name",
  restarts: 'p.restarts {dir}, p.namespace, p.name',
  // Age ascending = youngest first: newest creation time first.
  age: "COALESCE(p.created_at, '') {rev}, p.namespace, p.name",
};

function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

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
    stmt.run(
      clusterId,
      p.namespace,
      p.name,
      p.node,
      p.phase,
      p.status,
      p.readyCount,
      p.containerCount,
      p.restarts,
      p.podIP,
      p.ownerKind,
      p.ownerName,
      p.createdAt,
      gen,
    );
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
    this.db
      .transaction(() => {
        for (const p of upserts) this.write(stmt, clusterId, p, gen);
        for (const d of deletes) del.run(clusterId, d.namespace, d.name);
      })
      .immediate();
  }

  count(clusterId: string): number {
    return this.db.prepare('SELECT COUNT(*) FROM pods WHERE cluster_id = ?').pluck().get(clusterId) as number;
  }

  /** Pods per node name. */
  countsByNode(clusterId: string): Map<string, number> {
    const rows = this.db.prepare('SELECT node, COUNT(*) AS n FROM pods WHERE cluster_id = ? AND node IS NOT NULL GROUP BY node').all(clusterId) as Array<{
      node: string;
      n: number;
    }>;
    return new Map(rows.map((r) => [r.node, r.n]));
  }

  listByNode(clusterId: string, node: string): PodProjection[] {
    return (this.db.prepare('SELECT * FROM pods WHERE cluster_id = ? AND node = ? ORDER BY namespace, name').all(clusterId, node) as Row[]).map(toPod);
  }

  /**
   * One window of the cluster's pods, filtered and sorted by SQLite, and how many match: two statements whatever
   * the pod count (no row is read into JS outside the window). The OS is the pod's node's (a join on its key).
   */
  page(clusterId: string, q: PodPageQuery): { total: number; pods: PodRow[] } {
    const where: string[] = ['p.cluster_id = @clusterId'];
    const params: Record<string, string | number> = { clusterId, limit: q.limit, offset: q.offset };
    const search = q.search?.trim() ?? '';
    if (search !== '') {
      where.push("(p.name LIKE @search ESCAPE '\\' OR p.namespace LIKE @search ESCAPE '\\' OR p.node LIKE @search ESCAPE '\\')");
      params.search = `%${likeEscape(search)}%`;
    }
    if (q.namespace) {
      where.push('p.namespace = @namespace');
      params.namespace = q.namespace;
    }
    if (q.node) {
      where.push('p.node = @node');
      params.node = q.node;
    }
    if (q.phase === 'problems') where.push("(p.phase IS NULL OR p.phase NOT IN ('Running', 'Succeeded'))");
    else if (q.phase !== 'all') {
      where.push('p.phase = @phase');
      params.phase = q.phase;
    }
    if (q.os === 'unknown') where.push("(n.os IS NULL OR n.os = 'unknown')");
    else if (q.os !== 'all') {
      where.push('n.os = @os');
      params.os = q.os;
    }
    // The node join is needed to filter by OS only; the window is picked over narrow rows (rowid + sort key), and
    // only its rows are read whole and joined to their node.
    const join = 'LEFT JOIN nodes n ON n.cluster_id = p.cluster_id AND n.name = p.node';
    const from = `FROM pods p ${q.os === 'all' ? '' : join}`;
    const cond = where.join(' AND ');
    const { limit: _l, offset: _o, ...countParams } = params;
    const total = this.db.prepare(`SELECT COUNT(*) ${from} WHERE ${cond}`).pluck().get(countParams) as number;
    const dir = q.dir === 'desc' ? 'DESC' : 'ASC';
    const order = POD_ORDER[q.sort].replaceAll('{dir}', dir).replaceAll('{rev}', dir === 'ASC' ? 'DESC' : 'ASC');
    const rows = this.db
      .prepare(
        `SELECT p.*, n.os AS node_os FROM (SELECT p.rowid AS rid ${from} WHERE ${cond} ORDER BY ${order} LIMIT @limit OFFSET @offset) w
         JOIN pods p ON p.rowid = w.rid ${join} ORDER BY ${order}`,
      )
      .all(params) as Array<Row & { node_os: string | null }>;
    return {
      total,
      pods: rows.map((r) => {
        const { uid: _uid, ...pod } = toPod(r);
        return { ...pod, os: (r.node_os as NodeOs | null) ?? null };
      }),
    };
  }

  /** Namespaces with stored pods, sorted. */
  namespaces(clusterId: string): string[] {
    return this.db.prepare('SELECT DISTINCT namespace FROM pods WHERE cluster_id = ? ORDER BY namespace').pluck().all(clusterId) as string[];
  }

  clear(clusterId: string): void {
    this.db.prepare('DELETE FROM pods WHERE cluster_id = ?').run(clusterId);
  }
}
