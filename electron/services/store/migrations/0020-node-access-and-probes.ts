import type { Migration } from '../migration';

/**
 * How Windeck reaches Windows nodes and what it saw there:
 * - node_endpoints: address per node and transport (an override, the demo, or derived from the Node object);
 * - credentials: credential sets per cluster, node group or node. Secrets (passwords, key passphrases) only as
 *   `secret_blob` sealed by the SecretStore port, or absent (then asked per run). `key_path` names a key file;
 *   the key itself is not copied into the store;
 * - host_keys: SSH host keys the user accepted in Windeck (by their SHA256 fingerprint), next to known_hosts;
 * - probe_results: every probe run: raw output verbatim (bytes), its parsed form, error, timing.
 */
export const m0020NodeAccessAndProbes: Migration = {
  version: 20,
  name: 'node-access-and-probes',
  up(db) {
    db.exec(`
      CREATE TABLE node_endpoints (
        cluster_id TEXT NOT NULL,
        node TEXT NOT NULL,
        transport TEXT NOT NULL,
        host TEXT NOT NULL,
        port INTEGER NOT NULL,
        options TEXT NOT NULL DEFAULT '{}',
        credential_id TEXT,
        source TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (cluster_id, node, transport)
      );
      CREATE TABLE credentials (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        cluster_id TEXT,
        scope TEXT NOT NULL,
        selector TEXT,
        transport TEXT NOT NULL,
        username TEXT NOT NULL,
        auth_kind TEXT NOT NULL,
        key_path TEXT,
        secret_blob BLOB,
        secret_store_kind TEXT,
        priority INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX credentials_scope ON credentials(cluster_id, scope, transport);
      CREATE TABLE host_keys (
        host TEXT NOT NULL,
        port INTEGER NOT NULL,
        key_type TEXT NOT NULL,
        key_base64 TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        cluster_id TEXT,
        node TEXT,
        source TEXT NOT NULL,
        accepted_at INTEGER NOT NULL,
        PRIMARY KEY (host, port, key_type)
      );
      CREATE TABLE probe_results (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        cluster_id TEXT NOT NULL,
        node TEXT NOT NULL,
        probe_id TEXT NOT NULL,
        probe_version INTEGER NOT NULL,
        script_id TEXT,
        script_sha256 TEXT,
        transport TEXT,
        ok INTEGER NOT NULL,
        exit_code INTEGER,
        raw BLOB,
        stderr TEXT,
        parsed TEXT,
        warnings TEXT NOT NULL DEFAULT '[]',
        error TEXT,
        started_at INTEGER NOT NULL,
        duration_ms INTEGER NOT NULL
      );
      CREATE INDEX probe_results_node ON probe_results(cluster_id, node, probe_id, started_at DESC);
    `);
  },
};
