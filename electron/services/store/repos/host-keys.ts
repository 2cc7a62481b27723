import type { Db } from '../database';

/** An SSH host key the user accepted in Windeck (by its SHA256 fingerprint). */
export interface StoredHostKey {
  host: string;
  port: number;
  keyType: string;
  keyBase64: string;
  fingerprint: string;
  clusterId: string | null;
  node: string | null;
  /** 'accepted' (the user confirmed the fingerprint) or 'demo' (registered by `windeck demo`). */
  source: string;
  acceptedAt: number;
}

interface Row {
  host: string;
  port: number;
  key_type: string;
  key_base64: string;
  fingerprint: string;
  cluster_id: string | null;
  node: string | null;
  source: string;
  accepted_at: number;
}

const toKey = (r: Row): StoredHostKey => ({
  host: r.host,
  port: r.port,
  keyType: r.key_type,
  keyBase64: r.key_base64,
  fingerprint: r.fingerprint,
  clusterId: r.cluster_id,
  node: r.node,
  source: r.source,
  acceptedAt: r.accepted_at,
});

export class HostKeysRepo {
  constructor(private readonly db: Db) {}

  /** Keys for host:port (host compared case-insensitively). */
  list(host: string, port: number): StoredHostKey[] {
    return (this.db.prepare('SELECT * FROM host_keys WHERE host = ? AND port = ?').all(host.toLowerCase(), port) as Row[]).map(toKey);
  }

  all(): StoredHostKey[] {
    return (this.db.prepare('SELECT * FROM host_keys ORDER BY host, port').all() as Row[]).map(toKey);
  }

  /** Trust a key. There is one trusted key per host, port and key type: the newest acceptance replaces it. */
  put(key: StoredHostKey): void {
    this.db
      .prepare(
        `INSERT INTO host_keys (host, port, key_type, key_base64, fingerprint, cluster_id, node, source, accepted_at)
         VALUES (@host, @port, @keyType, @keyBase64, @fingerprint, @clusterId, @node, @source, @acceptedAt)
         ON CONFLICT(host, port, key_type) DO UPDATE SET key_base64 = excluded.key_base64, fingerprint = excluded.fingerprint,
           cluster_id = excluded.cluster_id, node = excluded.node, source = excluded.source, accepted_at = excluded.accepted_at`,
      )
      .run({ ...key, host: key.host.toLowerCase() });
  }

  /** Forget one key by its fingerprint (any host); the count removed. */
  removeFingerprint(fingerprint: string): number {
    return this.db.prepare('DELETE FROM host_keys WHERE fingerprint = ?').run(fingerprint).changes;
  }

  /** Forget every key of host:port (the user confirmed a reinstalled node). */
  remove(host: string, port: number): number {
    return this.db.prepare('DELETE FROM host_keys WHERE host = ? AND port = ?').run(host.toLowerCase(), port).changes;
  }
}
