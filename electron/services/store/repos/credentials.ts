import type { Db } from '../database';

export type CredentialScope = 'cluster' | 'node-group' | 'node';
/** password: SSH password or WinRM NTLM; basic: WinRM Basic (HTTPS only); key: SSH private key; agent: ssh-agent. */
export type CredentialAuthKind = 'password' | 'basic' | 'key' | 'agent';

/**
 * A credential set. Never holds a secret in clear: `secretBlob` is what the SecretStore sealed (a password or a
 * key passphrase), or null (asked per run, or none needed). `keyPath` names a private key file on this machine.
 */
export interface Credential {
  id: string;
  name: string;
  /** null: any cluster. */
  clusterId: string | null;
  scope: CredentialScope;
  /** node-group: a node-name wildcard (`win-*`) or a label `key=value`; node: the node name; cluster: null. */
  selector: string | null;
  transport: 'ssh' | 'winrm';
  username: string;
  authKind: CredentialAuthKind;
  keyPath: string | null;
  secretBlob: Buffer | null;
  secretStoreKind: string | null;
  priority: number;
  createdAt: number;
}

interface Row {
  id: string;
  name: string;
  cluster_id: string | null;
  scope: string;
  selector: string | null;
  transport: string;
  username: string;
  auth_kind: string;
  key_path: string | null;
  secret_blob: Buffer | null;
  secret_store_kind: string | null;
  priority: number;
  created_at: number;
}

const toCredential = (r: Row): Credential => ({
  id: r.id,
  name: r.name,
  clusterId: r.cluster_id,
  scope: r.scope as CredentialScope,
  selector: r.selector,
  transport: r.transport as Credential['transport'],
  username: r.username,
  authKind: r.auth_kind as CredentialAuthKind,
  keyPath: r.key_path,
  secretBlob: r.secret_blob,
  secretStoreKind: r.secret_store_kind,
  priority: r.priority,
  createdAt: r.created_at,
});

function wildcard(pattern: string, value: string): boolean {
  const re = new RegExp(
    '^' +
      pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replaceAll('*', '.*')
        .replaceAll('?', '.') +
      '$',
    'i',
  );
  return re.test(value);
}

export class CredentialsRepo {
  constructor(private readonly db: Db) {}

  put(c: Credential): void {
    this.db
      .prepare(
        `INSERT INTO credentials (id, name, cluster_id, scope, selector, transport, username, auth_kind, key_path, secret_blob, secret_store_kind, priority, created_at)
         VALUES (@id, @name, @clusterId, @scope, @selector, @transport, @username, @authKind, @keyPath, @secretBlob, @secretStoreKind, @priority, @createdAt)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, cluster_id = excluded.cluster_id, scope = excluded.scope, selector = excluded.selector,
           transport = excluded.transport, username = excluded.username, auth_kind = excluded.auth_kind, key_path = excluded.key_path,
           secret_blob = excluded.secret_blob, secret_store_kind = excluded.secret_store_kind, priority = excluded.priority`,
      )
      .run(c);
  }

  get(id: string): Credential | null {
    const row = this.db.prepare('SELECT * FROM credentials WHERE id = ?').get(id) as Row | undefined;
    return row ? toCredential(row) : null;
  }

  list(clusterId?: string | null): Credential[] {
    const rows =
      clusterId === undefined
        ? this.db.prepare('SELECT * FROM credentials ORDER BY priority DESC, created_at').all()
        : this.db.prepare('SELECT * FROM credentials WHERE cluster_id IS ? OR cluster_id IS NULL ORDER BY priority DESC, created_at').all(clusterId);
    return (rows as Row[]).map(toCredential);
  }

  /** A credential by its (unique, user-given) name. */
  byName(name: string): Credential | null {
    const row = this.db.prepare('SELECT * FROM credentials WHERE name = ? ORDER BY created_at LIMIT 1').get(name) as Row | undefined;
    return row ? toCredential(row) : null;
  }

  remove(id: string): boolean {
    return this.db.prepare('DELETE FROM credentials WHERE id = ?').run(id).changes > 0;
  }

  /**
   * Credentials that apply to a node, most specific first: node, then node group, then cluster, then any cluster;
   * ties by priority. `labels` lets `key=value` node-group selectors match.
   */
  forNode(clusterId: string, node: string, transport: 'ssh' | 'winrm', labels: Record<string, string> = {}): Credential[] {
    const rank = (c: Credential) => (c.scope === 'node' ? 0 : c.scope === 'node-group' ? 1 : 2) * 2 + (c.clusterId === null ? 1 : 0);
    return this.list(clusterId)
      .filter((c) => c.transport === transport)
      .filter((c) => {
        if (c.scope === 'node') return c.selector !== null && c.selector.toLowerCase() === node.toLowerCase();
        if (c.scope === 'node-group') {
          if (!c.selector) return false;
          const eq = c.selector.indexOf('=');
          return eq > 0 ? labels[c.selector.slice(0, eq)] === c.selector.slice(eq + 1) : wildcard(c.selector, node);
        }
        return true;
      })
      .sort((a, b) => rank(a) - rank(b) || b.priority - a.priority);
  }
}
