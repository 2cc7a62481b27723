import type { Db } from '../database';
import type { NodeModel, NodeSummary } from '../../../../shared/domain/node';
import { NODE_TOMBSTONES_MAX } from '../../../../shared/domain/limits';

/** Where the node revisions of a store stand: `epoch` names the store, `rev` is the newest revision written. */
export interface NodeRevState {
  epoch: string;
  rev: number;
  /** Tombstones up to this revision were pruned: a cursor older than it cannot be answered with a delta. */
  prunedRev: number;
}

/** Nodes written after a revision (summaries, by name) and names removed after it (and not back since). */
export interface NodeChanges {
  changed: NodeSummary[];
  removed: string[];
}

/**
 * Stored node rows: the NodeModel projection as JSON plus indexed columns for filters. Every write stamps the rows it
 * touches (and the tombstones of the rows it removes) with one new revision from the store's counter, so readers can
 * ask for what changed after a revision they saw (`changesSince`).
 */
export class NodesRepo {
  private readonly tombstonesMax: number;

  constructor(
    private readonly db: Db,
    options: { tombstonesMax?: number } = {},
  ) {
    this.tombstonesMax = options.tombstonesMax ?? NODE_TOMBSTONES_MAX;
  }

  /** Insert or replace nodes in one short transaction. */
  upsertMany(clusterId: string, nodes: readonly NodeModel[]): void {
    if (nodes.length === 0) return;
    this.db.transaction(() => this.write(clusterId, nodes, this.nextRev()))();
  }

  /** Make the stored set exactly `nodes` (a full relist). */
  replaceAll(clusterId: string, nodes: readonly NodeModel[]): void {
    this.db.transaction(() => {
      const rev = this.nextRev();
      const keep = new Set(nodes.map((n) => n.name));
      const existing = this.db.prepare('SELECT name FROM nodes WHERE cluster_id = ?').pluck().all(clusterId) as string[];
      const gone = existing.filter((name) => !keep.has(name));
      this.delete(clusterId, gone, rev);
      this.write(clusterId, nodes, rev);
    })();
  }

  remove(clusterId: string, name: string): void {
    this.db.transaction(() => {
      const exists = this.db.prepare('SELECT 1 FROM nodes WHERE cluster_id = ? AND name = ?').pluck().get(clusterId, name);
      if (exists) this.delete(clusterId, [name], this.nextRev());
    })();
  }

  /** The store's revision counter, its identity and prune point. */
  revState(): NodeRevState {
    const row = this.db.prepare('SELECT rev, pruned_rev, epoch FROM node_rev WHERE id = 1').get() as { rev: number; pruned_rev: number; epoch: string };
    return { epoch: row.epoch, rev: row.rev, prunedRev: row.pruned_rev };
  }

  /**
   * Summaries of the nodes written after `rev`, and names removed after it that are not stored again. Only
   * meaningful when `rev >= revState().prunedRev` (older removals may have been pruned).
   */
  changesSince(clusterId: string, rev: number): NodeChanges {
    const changed = (this.db.prepare('SELECT summary FROM nodes WHERE cluster_id = ? AND rev > ? ORDER BY name').pluck().all(clusterId, rev) as string[]).map(
      (r) => JSON.parse(r) as NodeSummary,
    );
    const removed = this.db
      .prepare(
        'SELECT t.name FROM node_tombstones t WHERE t.cluster_id = ? AND t.rev > ? AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.cluster_id = t.cluster_id AND n.name = t.name) ORDER BY t.name',
      )
      .pluck()
      .all(clusterId, rev) as string[];
    return { changed, removed };
  }

  private nextRev(): number {
    return this.db.prepare('UPDATE node_rev SET rev = rev + 1 WHERE id = 1 RETURNING rev').pluck().get() as number;
  }

  private write(clusterId: string, nodes: readonly NodeModel[], rev: number): void {
    const stmt = this.db.prepare(
      `INSERT INTO nodes (cluster_id, name, os, health, data, summary, synced_at, rev) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(cluster_id, name) DO UPDATE SET os = excluded.os, health = excluded.health, data = excluded.data, summary = excluded.summary,
         synced_at = excluded.synced_at, rev = excluded.rev`,
    );
    for (const n of nodes) stmt.run(clusterId, n.name, n.os, n.health, JSON.stringify(n), JSON.stringify(toSummary(n)), n.syncedAt, rev);
  }

  private delete(clusterId: string, names: readonly string[], rev: number): void {
    if (names.length === 0) return;
    const del = this.db.prepare('DELETE FROM nodes WHERE cluster_id = ? AND name = ?');
    const tomb = this.db.prepare(
      'INSERT INTO node_tombstones (cluster_id, name, rev) VALUES (?, ?, ?) ON CONFLICT(cluster_id, name) DO UPDATE SET rev = excluded.rev',
    );
    for (const name of names) {
      del.run(clusterId, name);
      tomb.run(clusterId, name, rev);
    }
    this.pruneTombstones();
  }

  /** Past the cap, drop the older half of the tombstones and move the prune point to the newest one dropped. */
  private pruneTombstones(): void {
    const count = this.db.prepare('SELECT COUNT(*) FROM node_tombstones').pluck().get() as number;
    if (count <= this.tombstonesMax) return;
    const keep = Math.floor(this.tombstonesMax / 2);
    const cutoff = this.db.prepare('SELECT rev FROM node_tombstones ORDER BY rev DESC LIMIT 1 OFFSET ?').pluck().get(keep) as number | undefined;
    if (cutoff === undefined) return;
    this.db.prepare('DELETE FROM node_tombstones WHERE rev <= ?').run(cutoff);
    this.db.prepare('UPDATE node_rev SET pruned_rev = MAX(pruned_rev, ?) WHERE id = 1').run(cutoff);
  }

  get(clusterId: string, name: string): NodeModel | null {
    const data = this.db.prepare('SELECT data FROM nodes WHERE cluster_id = ? AND name = ?').pluck().get(clusterId, name) as string | undefined;
    return data ? (JSON.parse(data) as NodeModel) : null;
  }

  listModels(clusterId: string): NodeModel[] {
    return (this.db.prepare('SELECT data FROM nodes WHERE cluster_id = ? ORDER BY name').pluck().all(clusterId) as string[]).map(
      (d) => JSON.parse(d) as NodeModel,
    );
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
