import type { Migration } from '../migration';

/**
 * Queued bundle work that waits for a node (DESIGN.md section 2): when a node dropped out of a collection, a
 * `collect-retry` job fetches its missing parts once the node answers again, with backoff. The spec holds no
 * secrets (cluster, node, window, redaction level, output path).
 */
export const m0040BundleJobs: Migration = {
  version: 40,
  name: 'bundle-jobs',
  up(db) {
    db.exec(`
      CREATE TABLE bundle_jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        cluster_id TEXT,
        node TEXT NOT NULL,
        spec TEXT NOT NULL,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        last_error TEXT,
        result TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX bundle_jobs_due ON bundle_jobs(state, next_attempt_at);
    `);
  },
};
