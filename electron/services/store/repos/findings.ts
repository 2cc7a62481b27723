import type { Db } from '../database';
import type { Finding } from '../../../../shared/domain/finding';

/** Findings derived from stored evidence; recomputed per (cluster, node, source) and replaced as a set. */
export class FindingsRepo {
  constructor(private readonly db: Db) {}

  /** Replace the findings one source produced for one node (e.g. 'probes', 'cluster-rules', 'import:<id>'). */
  replace(clusterId: string | null, node: string | null, source: string, findings: readonly Finding[], now: number): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM findings WHERE cluster_id IS ? AND node IS ? AND source = ?').run(clusterId, node, source);
      const stmt = this.db.prepare('INSERT INTO findings (cluster_id, node, rule_id, severity, source, data, found_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
      for (const f of findings) stmt.run(clusterId, f.node ?? node, f.ruleId, f.severity, source, JSON.stringify(f), now);
    })();
  }

  /** Replace all findings of one source across a cluster (cluster-wide rules). */
  replaceForCluster(clusterId: string, source: string, findings: readonly Finding[], now: number): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM findings WHERE cluster_id = ? AND source = ?').run(clusterId, source);
      const stmt = this.db.prepare('INSERT INTO findings (cluster_id, node, rule_id, severity, source, data, found_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
      for (const f of findings) stmt.run(clusterId, f.node, f.ruleId, f.severity, source, JSON.stringify(f), now);
    })();
  }

  list(filter: { clusterId?: string | null; node?: string | null }): Array<Finding & { source: string; foundAt: number }> {
    const rows = this.db
      .prepare('SELECT data, source, found_at FROM findings WHERE (@cluster IS NULL OR cluster_id = @cluster) AND (@node IS NULL OR node = @node) ORDER BY id')
      .all({ cluster: filter.clusterId ?? null, node: filter.node ?? null }) as Array<{ data: string; source: string; found_at: number }>;
    return rows.map((r) => ({ ...(JSON.parse(r.data) as Finding), source: r.source, foundAt: r.found_at }));
  }

  /** Counts per node and severity, for the fleet view. */
  countsByNode(clusterId: string): Map<string, { error: number; warning: number; info: number }> {
    const rows = this.db.prepare('SELECT node, severity, COUNT(*) AS n FROM findings WHERE cluster_id = ? AND node IS NOT NULL GROUP BY node, severity').all(clusterId) as Array<{
      node: string;
      severity: 'error' | 'warning' | 'info';
      n: number;
    }>;
    const out = new Map<string, { error: number; warning: number; info: number }>();
    for (const r of rows) {
      const entry = out.get(r.node) ?? { error: 0, warning: 0, info: 0 };
      entry[r.severity] = r.n;
      out.set(r.node, entry);
    }
    return out;
  }
}
