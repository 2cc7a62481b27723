import type { Db } from '../database';

export type EndpointTransport = 'ssh' | 'winrm';

/** Where a node is reached over one transport. `options` carries transport details (WinRM URL, jump hosts...). */
export interface NodeEndpoint {
  clusterId: string;
  node: string;
  transport: EndpointTransport;
  host: string;
  port: number;
  options: Record<string, unknown>;
  credentialId: string | null;
  /** 'override' (set by the user), 'demo' (registered by `windeck demo`), 'derived' (from the Node object). */
  source: string;
  updatedAt: number;
}

interface Row {
  cluster_id: string;
  node: string;
  transport: string;
  host: string;
  port: number;
  options: string;
  credential_id: string | null;
  source: string;
  updated_at: number;
}

const toEndpoint = (r: Row): NodeEndpoint => ({
  clusterId: r.cluster_id,
  node: r.node,
  transport: r.transport as EndpointTransport,
  host: r.host,
  port: r.port,
  options: JSON.parse(r.options) as Record<string, unknown>,
  credentialId: r.credential_id,
  source: r.source,
  updatedAt: r.updated_at,
});

export class NodeEndpointsRepo {
  constructor(private readonly db: Db) {}

  put(e: NodeEndpoint): void {
    this.db
      .prepare(
        `INSERT INTO node_endpoints (cluster_id, node, transport, host, port, options, credential_id, source, updated_at)
         VALUES (@clusterId, @node, @transport, @host, @port, @options, @credentialId, @source, @updatedAt)
         ON CONFLICT(cluster_id, node, transport) DO UPDATE SET host = excluded.host, port = excluded.port, options = excluded.options,
           credential_id = excluded.credential_id, source = excluded.source, updated_at = excluded.updated_at`,
      )
      .run({ ...e, options: JSON.stringify(e.options) });
  }

  list(clusterId: string, node: string): NodeEndpoint[] {
    return (this.db.prepare('SELECT * FROM node_endpoints WHERE cluster_id = ? AND node = ? ORDER BY transport').all(clusterId, node) as Row[]).map(toEndpoint);
  }

  get(clusterId: string, node: string, transport: EndpointTransport): NodeEndpoint | null {
    const row = this.db.prepare('SELECT * FROM node_endpoints WHERE cluster_id = ? AND node = ? AND transport = ?').get(clusterId, node, transport) as
      Row | undefined;
    return row ? toEndpoint(row) : null;
  }

  /** Every endpoint of a cluster (the demo replaces its set at each start). */
  listCluster(clusterId: string): NodeEndpoint[] {
    return (this.db.prepare('SELECT * FROM node_endpoints WHERE cluster_id = ? ORDER BY node, transport').all(clusterId) as Row[]).map(toEndpoint);
  }

  /** Remove one endpoint; true when it existed. */
  remove(clusterId: string, node: string, transport: EndpointTransport): boolean {
    return this.db.prepare('DELETE FROM node_endpoints WHERE cluster_id = ? AND node = ? AND transport = ?').run(clusterId, node, transport).changes > 0;
  }

  /** Every endpoint of every cluster. */
  all(): NodeEndpoint[] {
    return (this.db.prepare('SELECT * FROM node_endpoints ORDER BY cluster_id, node, transport').all() as Row[]).map(toEndpoint);
  }

  /** Endpoints that use a credential (a credential in use is not removed silently). */
  usingCredential(credentialId: string): NodeEndpoint[] {
    return (this.db.prepare('SELECT * FROM node_endpoints WHERE credential_id = ?').all(credentialId) as Row[]).map(toEndpoint);
  }

  removeCluster(clusterId: string, source?: string): number {
    return source
      ? this.db.prepare('DELETE FROM node_endpoints WHERE cluster_id = ? AND source = ?').run(clusterId, source).changes
      : this.db.prepare('DELETE FROM node_endpoints WHERE cluster_id = ?').run(clusterId).changes;
  }
}
