import type { Migration } from '../migration';

/**
 * Incremental fleet reads (issue 10 item 2): every write to `nodes` stamps the rows it touches with a revision
 * from one counter per store (`node_rev`, one row), and a removed node leaves a tombstone with the revision of its
 * removal. `nodes:list { since }` then answers only what changed after a cursor. `epoch` names this store, so a
 * cursor from another database is never mistaken for one of ours; `pruned_rev` is the newest tombstone revision
 * pruned, and a cursor older than it gets a full answer.
 */
export const m0013NodeRevisions: Migration = {
  version: 13,
  name: 'node-revisions',
  up(db) {
    db.exec(`
      ALTER TABLE nodes ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX nodes_cluster_rev ON nodes (cluster_id, rev);
      CREATE TABLE node_tombstones (
        cluster_id TEXT NOT NULL REFERENCES clusters(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        rev INTEGER NOT NULL,
        PRIMARY KEY (cluster_id, name)
      );
      CREATE INDEX node_tombstones_cluster_rev ON node_tombstones (cluster_id, rev);
      CREATE TABLE node_rev (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        rev INTEGER NOT NULL,
        pruned_rev INTEGER NOT NULL,
        epoch TEXT NOT NULL
      );
      INSERT INTO node_rev (id, rev, pruned_rev, epoch) VALUES (1, 0, 0, lower(hex(randomblob(8))));
    `);
  },
};
