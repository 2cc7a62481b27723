import type { Migration } from '../migration';

export const m0001Initial: Migration = {
  version: 1,
  name: 'initial',
  up(db) {
    db.exec(`
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      CREATE TABLE clusters (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        context TEXT NOT NULL,
        server TEXT,
        kubeconfig_path TEXT,
        simulated INTEGER NOT NULL DEFAULT 0,
        kubernetes_version TEXT,
        sync_state TEXT NOT NULL DEFAULT 'never',
        sync_error TEXT,
        synced_at INTEGER,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE nodes (
        cluster_id TEXT NOT NULL REFERENCES clusters(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        os TEXT NOT NULL,
        health TEXT NOT NULL,
        data TEXT NOT NULL,
        synced_at INTEGER,
        PRIMARY KEY (cluster_id, name)
      );
      CREATE TABLE operations (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        state TEXT NOT NULL,
        cluster_id TEXT,
        node TEXT,
        owner_pid INTEGER,
        progress TEXT NOT NULL,
        result TEXT,
        error TEXT,
        started_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        finished_at INTEGER
      );
      CREATE INDEX operations_started ON operations(started_at DESC);
      CREATE TABLE audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        cluster_id TEXT,
        node TEXT,
        action TEXT NOT NULL,
        detail TEXT NOT NULL,
        outcome TEXT,
        finished_at INTEGER
      );
      CREATE INDEX audit_node ON audit(cluster_id, node, at DESC);
      CREATE TABLE findings (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        cluster_id TEXT,
        node TEXT,
        rule_id TEXT NOT NULL,
        severity TEXT NOT NULL,
        source TEXT NOT NULL,
        data TEXT NOT NULL,
        found_at INTEGER NOT NULL
      );
      CREATE INDEX findings_node ON findings(cluster_id, node);
    `);
  },
};
