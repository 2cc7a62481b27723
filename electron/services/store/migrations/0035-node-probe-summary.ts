import type { Migration } from '../migration';
import { servicesBrief } from '../repos/probe-results';

/**
 * node_probe_summary: one row per node with what the fleet table shows of its probes, kept current by
 * ProbeResultsRepo.insert (so `nodes:list` reads 5,000 nodes with one indexed query, never one per node):
 * - probed_at: the newest run of any probe on the node;
 * - services_at / services_ok / services: the newest `services` run, and the component services' states from it as
 *   a JSON object `{ "kubelet": "Running", "kube-proxy": "Stopped", ... }` (null when that run failed).
 * Existing probe history is summarized once here.
 */
export const m0035NodeProbeSummary: Migration = {
  version: 35,
  name: 'node-probe-summary',
  up(db) {
    db.exec(`
      CREATE TABLE node_probe_summary (
        cluster_id TEXT NOT NULL,
        node TEXT NOT NULL,
        probed_at INTEGER NOT NULL,
        services_at INTEGER,
        services_ok INTEGER,
        services TEXT,
        PRIMARY KEY (cluster_id, node)
      );
    `);
    db.exec(`
      INSERT INTO node_probe_summary (cluster_id, node, probed_at)
        SELECT cluster_id, node, MAX(started_at) FROM probe_results GROUP BY cluster_id, node;
    `);
    const latest = db
      .prepare(
        `SELECT p.cluster_id, p.node, p.ok, p.parsed, p.started_at FROM probe_results p WHERE p.probe_id = 'services' AND p.id = (
           SELECT q.id FROM probe_results q WHERE q.cluster_id = p.cluster_id AND q.node = p.node AND q.probe_id = 'services' ORDER BY q.started_at DESC, q.id DESC LIMIT 1)`,
      )
      .all() as Array<{ cluster_id: string; node: string; ok: number; parsed: string | null; started_at: number }>;
    const update = db.prepare('UPDATE node_probe_summary SET services_at = ?, services_ok = ?, services = ? WHERE cluster_id = ? AND node = ?');
    for (const r of latest) {
      let parsed: unknown = null;
      try {
        parsed = r.parsed === null ? null : (JSON.parse(r.parsed) as unknown);
      } catch {
        parsed = null;
      }
      const brief = r.ok === 1 ? servicesBrief(parsed) : null;
      update.run(r.started_at, r.ok, brief ? JSON.stringify(brief) : null, r.cluster_id, r.node);
    }
  },
};
