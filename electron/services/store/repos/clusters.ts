import type { Db } from '../database';
import type { ClusterSummary, SyncState } from '../../../../shared/domain/cluster';

interface Row {
  id: string;
  name: string;
  context: string;
  server: string | null;
  kubeconfig_path: string | null;
  simulated: number;
  kubernetes_version: string | null;
  sync_state: string;
  sync_error: string | null;
  synced_at: number | null;
  node_count: number;
  windows_count: number;
}

export interface ClusterInput {
  id: string;
  name: string;
  context: string;
  server: string | null;
  kubeconfigPath: string | null;
  simulated: boolean;
}

const SELECT = `SELECT c.*, (SELECT COUNT(*) FROM nodes n WHERE n.cluster_id = c.id) AS node_count,
  (SELECT COUNT(*) FROM nodes n WHERE n.cluster_id = c.id AND n.os = 'windows') AS windows_count FROM clusters c`;

function toSummary(row: Row): ClusterSummary {
  return {
    id: row.id,
    name: row.name,
    context: row.context,
    server: row.server,
    kubeconfigPath: row.kubeconfig_path,
    simulated: row.simulated === 1,
    kubernetesVersion: row.kubernetes_version,
    syncState: row.sync_state as SyncState,
    syncError: row.sync_error,
    syncedAt: row.synced_at,
    nodeCount: row.node_count,
    windowsNodeCount: row.windows_count,
  };
}

/** Cluster id from kubeconfig path + context: stable across runs, readable in logs. */
export function clusterIdFor(kubeconfigPath: string | null, context: string): string {
  return `${context}@${kubeconfigPath ?? 'in-cluster'}`;
}

export class ClustersRepo {
  constructor(private readonly db: Db) {}

  upsert(input: ClusterInput, now: number): void {
    this.db
      .prepare(
        `INSERT INTO clusters (id, name, context, server, kubeconfig_path, simulated, created_at) VALUES (@id, @name, @context, @server, @kubeconfigPath, @simulated, @now)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, context = excluded.context, server = excluded.server,
           kubeconfig_path = excluded.kubeconfig_path, simulated = excluded.simulated`,
      )
      .run({ ...input, simulated: input.simulated ? 1 : 0, now });
  }

  setSync(id: string, state: SyncState, fields: { error?: string | null; syncedAt?: number; kubernetesVersion?: string | null } = {}): void {
    const sets = ['sync_state = @state', 'sync_error = @error'];
    if (fields.syncedAt !== undefined) sets.push('synced_at = @syncedAt');
    if (fields.kubernetesVersion !== undefined) sets.push('kubernetes_version = @kubernetesVersion');
    this.db.prepare(`UPDATE clusters SET ${sets.join(', ')} WHERE id = @id`).run({
      id,
      state,
      error: fields.error ?? null,
      syncedAt: fields.syncedAt ?? null,
      kubernetesVersion: fields.kubernetesVersion ?? null,
    });
  }

  list(): ClusterSummary[] {
    return (this.db.prepare(`${SELECT} ORDER BY c.simulated ASC, c.name ASC`).all() as Row[]).map(toSummary);
  }

  get(id: string): ClusterSummary | null {
    const row = this.db.prepare(`${SELECT} WHERE c.id = ?`).get(id) as Row | undefined;
    return row ? toSummary(row) : null;
  }

  /** Find by id, or by context name when unambiguous. */
  find(ref: string): ClusterSummary | null {
    const byId = this.get(ref);
    if (byId) return byId;
    const rows = this.db.prepare(`${SELECT} WHERE c.context = ? OR c.name = ?`).all(ref, ref) as Row[];
    return rows.length === 1 && rows[0] ? toSummary(rows[0]) : null;
  }

  remove(id: string): void {
    this.db.prepare('DELETE FROM clusters WHERE id = ?').run(id);
  }
}
