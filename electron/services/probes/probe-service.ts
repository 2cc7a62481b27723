import { WindeckError } from '../../../shared/contract/errors';
import type { CapabilityCheck, NodeTransportChoice, ProbeId, ProbeReport } from '../../../shared/domain/probe';
import type { ServiceCore } from '../create-services';
import { kubeInventory } from '../kube/inventory';
import { resolveCluster } from '../rpc/handlers/nodes';
import { CredentialsRepo } from '../store/repos/credentials';
import { HostKeysRepo } from '../store/repos/host-keys';
import { NodeEndpointsRepo } from '../store/repos/node-endpoints';
import { ProbeResultsRepo } from '../store/repos/probe-results';
import { nodeCandidates, type NodeAccessDeps } from '../transports/node-access';
import type { NodeTransport } from '../transports/node-transport';
import { checkCandidates, selectTransport } from '../transports/select';
import { defaultKnownHostsFiles, PinningVerifier, readKnownHostsFiles } from '../transports/ssh/host-keys';
import { SshPool } from '../transports/ssh/pool';
import { PROBES } from './catalog';
import { runProbes } from './runner';

/**
 * Probes on live nodes, as a per-services singleton (`probeService(core)`): owns the SSH pool and its host-key
 * verifier (known_hosts + keys accepted in the store), resolves endpoints and credentials, picks the transport,
 * runs probes as an operation and stores every result.
 */

export interface ClusterTarget {
  cluster?: string | undefined;
  kubeconfig?: string | undefined;
  context?: string | undefined;
}

export interface OpenNodeRequest extends ClusterTarget {
  node: string;
  transport?: NodeTransportChoice | undefined;
  acceptHostKeys?: string[] | undefined;
  signal: AbortSignal;
}

export class ProbeService {
  readonly endpoints: NodeEndpointsRepo;
  readonly credentials: CredentialsRepo;
  readonly hostKeys: HostKeysRepo;
  readonly results: ProbeResultsRepo;
  private ssh: { pool: SshPool; verifier: PinningVerifier } | null = null;
  private sshLoading: Promise<{ pool: SshPool; verifier: PinningVerifier }> | null = null;

  constructor(private readonly core: ServiceCore) {
    const db = core.store.db;
    this.endpoints = new NodeEndpointsRepo(db);
    this.credentials = new CredentialsRepo(db);
    this.hostKeys = new HostKeysRepo(db);
    this.results = new ProbeResultsRepo(db);
  }

  private get env(): NodeJS.ProcessEnv {
    return this.core.config.env ?? process.env;
  }

  /** The store's cluster id for a target: explicit id, else the kubeconfig's context, else the active cluster. */
  clusterId(target: ClusterTarget): string {
    if (target.cluster) return target.cluster;
    const fromKubeconfig = kubeInventory(this.core).clusterIdOf({ kubeconfig: target.kubeconfig ?? null, context: target.context ?? null });
    if (fromKubeconfig) return fromKubeconfig;
    const active = resolveCluster(this.core, undefined);
    if (active) return active.id;
    throw new WindeckError('NOT_FOUND', 'No cluster: give --kubeconfig (and --context), or run `windeck nodes` against a cluster first.');
  }

  private async sshAccess(): Promise<{ pool: SshPool; verifier: PinningVerifier }> {
    if (this.ssh) return this.ssh;
    this.sshLoading ??= (async () => {
      const home = this.env.HOME && this.env.HOME.trim() !== '' ? this.env.HOME : undefined;
      const verifier = new PinningVerifier({ store: this.hostKeys, knownHosts: await readKnownHostsFiles(defaultKnownHostsFiles(home)), now: () => this.core.clock.now() });
      this.ssh = { pool: new SshPool({ verifier }), verifier };
      return this.ssh;
    })();
    return this.sshLoading;
  }

  private async deps(): Promise<NodeAccessDeps> {
    const ssh = await this.sshAccess();
    return {
      env: this.env,
      endpoints: this.endpoints,
      credentials: this.credentials,
      hostKeys: this.hostKeys,
      nodes: this.core.repos.nodes,
      secretStore: this.core.secretStore,
      sshPool: ssh.pool,
      verifier: ssh.verifier,
    };
  }

  private assertKnownNode(clusterId: string, node: string): void {
    if (this.endpoints.list(clusterId, node).length > 0) return;
    if (this.core.repos.nodes.get(clusterId, node)) return;
    throw new WindeckError('NOT_FOUND', `Node "${node}" is not known in cluster ${clusterId}: no endpoint is registered and the inventory has no such node (run \`windeck nodes\` first).`, { cluster: clusterId, node });
  }

  /** A working transport to the node (the first that passes its check, in the chosen order). */
  async openNode(request: OpenNodeRequest): Promise<{ clusterId: string; transport: NodeTransport; checks: CapabilityCheck[] }> {
    const clusterId = this.clusterId(request);
    this.assertKnownNode(clusterId, request.node);
    const candidates = await nodeCandidates({ clusterId, node: request.node, prefer: request.transport ?? 'auto', acceptHostKeys: request.acceptHostKeys ?? [] }, await this.deps());
    const { transport, checks } = await selectTransport(request.node, candidates, request.signal);
    return { clusterId, transport, checks: checks.map(({ errorCode: _e, ...c }) => c) };
  }

  /** Check every transport for a node. */
  async access(request: Omit<OpenNodeRequest, 'transport'>): Promise<{ node: string; checks: CapabilityCheck[] }> {
    const clusterId = this.clusterId(request);
    this.assertKnownNode(clusterId, request.node);
    const candidates = await nodeCandidates({ clusterId, node: request.node, prefer: 'auto', acceptHostKeys: request.acceptHostKeys ?? [] }, await this.deps());
    const checks = await checkCandidates(candidates, request.signal);
    return { node: request.node, checks: checks.map(({ errorCode: _e, ...c }) => c) };
  }

  /** Run probes (default: all) on a node; results are stored. */
  async run(request: OpenNodeRequest & { probes?: ProbeId[] | undefined; onProgress?: (done: number, total: number, probe: string) => void }): Promise<ProbeReport> {
    const { clusterId, transport } = await this.openNode(request);
    try {
      const report = await runProbes({
        clusterId,
        transport,
        ...(request.probes && request.probes.length > 0 ? { probes: request.probes } : {}),
        signal: request.signal,
        repo: this.results,
        now: () => this.core.clock.now(),
        ...(request.onProgress ? { onProgress: request.onProgress } : {}),
      });
      this.core.changed(['probes'], clusterId, request.node);
      return {
        node: report.node,
        transport: report.transport,
        probes: Object.fromEntries(Object.entries(report.probes).map(([id, o]) => [id, { ok: o.ok, raw: o.raw, parsed: o.parsed, error: o.error, durationMs: o.durationMs }])),
      };
    } finally {
      await transport.close();
    }
  }

  /** The newest stored result per probe. */
  latest(target: ClusterTarget & { node: string }): ProbeReport & { at: number } {
    const clusterId = this.clusterId(target);
    const rows = this.results.latest(clusterId, target.node);
    if (rows.length === 0) throw new WindeckError('NOT_FOUND', `No probe results are stored for ${target.node}.`, { cluster: clusterId, node: target.node });
    const decoder = new TextDecoder('utf-8');
    return {
      node: target.node,
      transport: rows[0]!.transport ?? 'unknown',
      at: Math.max(...rows.map((r) => r.startedAt)),
      probes: Object.fromEntries(rows.map((r) => [r.probeId, { ok: r.ok, raw: r.raw ? decoder.decode(r.raw) : null, parsed: r.parsed, error: r.error, durationMs: r.durationMs }])),
    };
  }

  async dispose(): Promise<void> {
    const ssh = this.ssh ?? (this.sshLoading ? await this.sshLoading.catch(() => null) : null);
    await ssh?.pool.dispose();
  }
}

export function probeService(core: ServiceCore): ProbeService {
  return core.lazy('probes.service', (c) => new ProbeService(c));
}

export { PROBES };
