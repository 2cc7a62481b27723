import { execFile } from 'node:child_process';
import { WindeckError } from '../../../shared/contract/errors';
import { BUNDLE_EVENTS_MAX_COUNT, BUNDLE_KUBECTL_TIMEOUT_MS } from '../../../shared/domain/limits';
import type { NodeModel } from '../../../shared/domain/node';
import type { ServiceCore } from '../create-services';
import type { KubeClient, VersionInfo } from '../kube/client';
import { kubeInventory } from '../kube/inventory';
import { probeService } from '../probes/probe-service';
import { resolveCluster } from '../rpc/handlers/nodes';
import type { NodeTransport } from '../transports/node-transport';

/**
 * Where a bundle's contents come from, as ports: the cluster side (Node objects, events, versions) and the host
 * side (a transport per node). The live implementations use the kube inventory's client and the probes
 * service; tests may hand in their own (an in-test NodeTransport serving recorded outputs).
 */

export interface ClusterInfo {
  clusterId: string | null;
  context: string | null;
  server: string | null;
  simulated: boolean;
  kubeconfigPath: string | null;
}

export interface ClusterSnapshotSource {
  readonly info: ClusterInfo;
  /** API server /version, null when unreachable. */
  version(signal: AbortSignal): Promise<VersionInfo | null>;
  /** `kubectl version` output with the cluster's kubeconfig, null when kubectl is not installed or failed. */
  kubectlVersion(signal: AbortSignal): Promise<string | null>;
  /** The Node object (as the API returns it), or the stored model when offline; null when unknown. */
  node(name: string, signal: AbortSignal): Promise<{ object: unknown; origin: 'api' | 'store' } | null>;
  /** Events about these nodes and the pods on them (Event objects or stored projections). */
  events(nodes: string[], signal: AbortSignal): Promise<unknown[]>;
  /** The stored node model (for rules, report facts), null when not stored. */
  model(name: string): NodeModel | null;
}

export interface NodeHostSource {
  /** Open a transport to the node; the caller closes it. Throws UNREACHABLE/AUTH_FAILED/... like the probes. */
  open(node: string, signal: AbortSignal): Promise<NodeTransport>;
}

/** `kubectl version` (installed kubectl, cluster kubeconfig, no shell), null when kubectl is absent or fails. */
export function runKubectlVersion(kubeconfig: string | null, context: string | null, signal: AbortSignal, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const args = ['version'];
  if (kubeconfig) args.push('--kubeconfig', kubeconfig);
  if (context) args.push('--context', context);
  return new Promise((resolve) => {
    const childEnv = { ...env };
    delete childEnv.KUBECONFIG;
    execFile('kubectl', args, { timeout: BUNDLE_KUBECTL_TIMEOUT_MS, signal, env: childEnv, maxBuffer: 1024 * 1024, windowsHide: true }, (error, stdout, stderr) => {
      const out = `${stdout ?? ''}`.trim();
      if (error && !/Server Version/.test(out)) return resolve(null);
      const warnings = `${stderr ?? ''}`.split(/\r?\n/).filter((l) => /^WARNING/i.test(l.trim()));
      resolve([out, ...warnings].filter(Boolean).join('\n') || null);
    });
  });
}

interface EventLike {
  involvedObject?: { kind?: string; name?: string; namespace?: string };
  lastTimestamp?: string;
  eventTime?: string;
  metadata?: { creationTimestamp?: string };
}

/** The live cluster (API, with the store as fallback for what the API does not answer). */
export class LiveClusterSource implements ClusterSnapshotSource {
  readonly info: ClusterInfo;
  private client: KubeClient | null = null;

  constructor(
    private readonly core: ServiceCore,
    private readonly target: { cluster?: string | undefined; kubeconfig?: string | undefined; context?: string | undefined },
    private readonly offline: boolean,
  ) {
    const inv = kubeInventory(core);
    let clusterId: string | null = null;
    let context: string | null = null;
    let server: string | null = null;
    let kubeconfigPath: string | null = null;
    if (!target.cluster && (target.kubeconfig || target.context || !resolveCluster(core, undefined))) {
      try {
        const { ctx, clusterId: id } = inv.resolve({ kubeconfig: target.kubeconfig ?? null, context: target.context ?? null });
        clusterId = id;
        context = ctx.contextName;
        server = ctx.server;
        kubeconfigPath = ctx.sourceFile;
        if (!offline) this.client = inv.client(ctx);
      } catch (error) {
        if (target.kubeconfig || target.context) throw error;
      }
    }
    if (!clusterId) {
      const stored = resolveCluster(core, target.cluster);
      if (!stored) throw new WindeckError('NOT_FOUND', 'No cluster: give --kubeconfig (and --context), or run `windeck nodes` against a cluster first.');
      clusterId = stored.id;
      context = stored.context;
      server = stored.server;
      kubeconfigPath = stored.kubeconfigPath;
      if (!offline && kubeconfigPath) {
        try {
          const { ctx } = inv.resolve({ kubeconfig: kubeconfigPath, context });
          this.client = inv.client(ctx);
        } catch {
          this.client = null;
        }
      }
    }
    const stored = core.repos.clusters.get(clusterId);
    this.info = { clusterId, context, server, simulated: stored?.simulated ?? false, kubeconfigPath };
  }

  async version(signal: AbortSignal): Promise<VersionInfo | null> {
    if (this.client) {
      try {
        return await this.client.version({ signal });
      } catch (error) {
        if (signal.aborted) throw error;
      }
    }
    const stored = this.info.clusterId ? this.core.repos.clusters.get(this.info.clusterId) : null;
    if (stored?.kubernetesVersion) {
      const m = /^v?(\d+)\.(\d+)/.exec(stored.kubernetesVersion);
      return { major: m?.[1] ?? '', minor: m?.[2] ?? '', gitVersion: stored.kubernetesVersion, platform: 'unknown (from the store)' };
    }
    return null;
  }

  kubectlVersion(signal: AbortSignal): Promise<string | null> {
    if (this.offline || !this.info.kubeconfigPath) return Promise.resolve(null);
    return runKubectlVersion(this.info.kubeconfigPath, this.info.context, signal, this.core.config.env ?? process.env);
  }

  model(name: string): NodeModel | null {
    return this.info.clusterId ? this.core.repos.nodes.get(this.info.clusterId, name) : null;
  }

  async node(name: string, signal: AbortSignal): Promise<{ object: unknown; origin: 'api' | 'store' } | null> {
    if (this.client) {
      try {
        return { object: await this.client.getJson(`/api/v1/nodes/${encodeURIComponent(name)}`, { signal }), origin: 'api' };
      } catch (error) {
        if (signal.aborted) throw error;
      }
    }
    const model = this.model(name);
    return model ? { object: model, origin: 'store' } : null;
  }

  async events(nodes: string[], signal: AbortSignal): Promise<unknown[]> {
    const wanted = new Set(nodes);
    if (this.client) {
      try {
        const pods = new Set<string>();
        for (const n of nodes) {
          const list = await this.client.getJson<{ items?: Array<{ metadata?: { name?: string; namespace?: string } }> }>(`/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${n}`)}`, { signal });
          for (const p of list.items ?? []) pods.add(`${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`);
        }
        const out: EventLike[] = [];
        let cont: string | undefined;
        for (let page = 0; page < 20; page++) {
          const q = new URLSearchParams({ limit: '500' });
          if (cont) q.set('continue', cont);
          const list = await this.client.getJson<{ items?: EventLike[]; metadata?: { continue?: string } }>(`/api/v1/events?${q.toString()}`, { signal });
          for (const e of list.items ?? []) {
            const o = e.involvedObject ?? {};
            if ((o.kind === 'Node' && wanted.has(o.name ?? '')) || (o.kind === 'Pod' && pods.has(`${o.namespace ?? ''}/${o.name ?? ''}`))) out.push(e);
          }
          cont = list.metadata?.continue || undefined;
          if (!cont) break;
        }
        const at = (e: EventLike) => e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? '';
        return out.sort((a, b) => at(b).localeCompare(at(a))).slice(0, BUNDLE_EVENTS_MAX_COUNT);
      } catch (error) {
        if (signal.aborted) throw error;
      }
    }
    if (!this.info.clusterId) return [];
    const inv = kubeInventory(this.core);
    const out: unknown[] = [];
    for (const n of nodes) {
      out.push(...inv.events.forObject(this.info.clusterId, 'Node', n), ...inv.events.forPodsOnNode(this.info.clusterId, n));
    }
    return out.slice(0, BUNDLE_EVENTS_MAX_COUNT);
  }

  dispose(): void {
    this.client?.close();
  }
}

/** Node access through the probes service (endpoints, credentials, host keys, transport choice). */
export function liveHostSource(core: ServiceCore, target: { cluster?: string | undefined; kubeconfig?: string | undefined; context?: string | undefined; transport?: 'auto' | 'ssh' | 'winrm' | undefined }): NodeHostSource {
  return {
    async open(node, signal) {
      const opened = await probeService(core).openNode({ ...target, node, signal, ...(target.transport ? { transport: target.transport } : {}) });
      return opened.transport;
    },
  };
}
