import type { Migration } from '../migration';
import type { NodeModel } from '../../../../shared/domain/node';
import { toSummary } from '../repos/nodes';

/**
 * nodes.summary: the fleet row (NodeSummary) as its own small JSON next to the full model, so listing 5,000
 * nodes parses ~0.3 KB per node instead of the ~1.6 KB model (warm start, issue 10 item 3). NodesRepo writes
 * both; rows already stored are summarized once here.
 */
export const m0012NodeSummaryColumn: Migration = {
  version: 12,
  name: 'node-summary-column',
  up(db) {
    db.exec('ALTER TABLE nodes ADD COLUMN summary TEXT');
    const rows = db.prepare('SELECT cluster_id, name, data FROM nodes').all() as Array<{ cluster_id: string; name: string; data: string }>;
    const set = db.prepare('UPDATE nodes SET summary = ? WHERE cluster_id = ? AND name = ?');
    for (const r of rows) set.run(JSON.stringify(toSummary(JSON.parse(r.data) as NodeModel)), r.cluster_id, r.name);
  },
};
