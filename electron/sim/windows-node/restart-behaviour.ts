import crypto from 'node:crypto';
import type { SimObjectStore, WatchSubscription } from '../kube-api/object-store';
import type { KubeObject } from '../kube-api/resources';
import type { HnsObject, NodeSpec, ServiceStatus } from './node-model';

/**
 * What restarts do on a simulated Windows node, beyond a service's own start/stop delays (DESIGN.md section 9,
 * issue 7). Plain rules over the node model, kept out of node-model.ts, which calls in at four points: a service
 * is being stopped, a service reached Running, HNS is about to be read, and construction.
 *
 * - kube-proxy programs its load balancers (HNS policy lists) `loadBalancerSyncMs` after it reaches Running, and
 *   only while its network (`--network-name`) exists; until then it has none (a restart starts from scratch).
 * - Restarting HNS deletes every network not in `persistentNetworks`, all endpoints and all policy lists.
 *   Nothing comes back until flanneld and kube-proxy are restarted.
 * - flanneld recreates its network `networkCreateMs` after it reaches Running. When it does not know the
 *   network (it was missing when the node started), or `flannelWaitsForever` is set, it logs "Waiting for the
 *   Network (...) to be created" instead, and the network stays missing.
 * - `crashAfterMs[service]`: the service stops by itself that long after each start (it does not stay up).
 *
 * Scenario files set `node.restart` (a RestartBehaviourSpec) with a `set` patch. Times come from the model's
 * clock; nothing here starts a timer.
 *
 * `startDaemonSetReplacer` is the cluster-side half for HostProcess DaemonSet pods: when such a pod is deleted
 * through the API simulator, a replacement appears (Pending, then Running and Ready), as the DaemonSet controller
 * and kubelet would do.
 */

export interface RestartBehaviourSpec {
  /** Policy lists kube-proxy programs; default: those the node starts with, else the kubernetes and kube-dns Services. */
  loadBalancers?: HnsObject[];
  /** Default 300. */
  loadBalancerSyncMs?: number;
  /** Networks an HNS restart keeps (default: `External`, the one the node's setup script made persistent). */
  persistentNetworks?: string[];
  /** Default 500. */
  networkCreateMs?: number;
  flannelWaitsForever?: boolean;
  crashAfterMs?: Record<string, number>;
}

/** What the behaviour may read and change inside the model (passed by the model; no other access). */
export interface ModelAccess {
  now(): number;
  networks(): HnsObject[];
  setNetworks(list: HnsObject[]): void;
  setEndpoints(list: HnsObject[]): void;
  policyLists(): HnsObject[];
  setPolicyLists(list: HnsObject[]): void;
  appendLog(path: string, lines: string[]): void;
  /** Settle every service so due transitions (and their hooks) happen before HNS is read. */
  settleServices(): void;
}

function lower(s: string): string {
  return s.toLowerCase();
}

function flag(commandLine: string, name: string): string | null {
  const m = new RegExp(`--${name}[= ]"?([^"\\s]+)"?`).exec(commandLine);
  return m ? m[1]! : null;
}

function argsOf(spec: NodeSpec, service: string): string {
  const s = spec.services.find((x) => lower(x.name) === service);
  return s ? `${s.nssm?.appParameters ?? ''} ${s.process?.commandLine ?? ''} ${s.pathName}` : '';
}

/** The kubernetes and kube-dns Services as kube-proxy programs them (when the scenario gives none). */
function defaultLoadBalancers(spec: NodeSpec): HnsObject[] {
  const sourceVip = flag(argsOf(spec, 'kube-proxy'), 'source-vip') ?? flag(argsOf(spec, 'kubeproxy'), 'source-vip');
  const dns = flag(argsOf(spec, 'kubelet'), 'cluster-dns') ?? '10.96.0.10';
  const apiVip = dns.replace(/\.\d+$/, '.1');
  const lb = (n: number, ext: number, int: number, proto: number, vip: string): HnsObject => ({
    ActivityId: `C2A6E0B1-1D3F-4E77-9A10-5B6C7D8E9F${String(n).padStart(2, '0')}`,
    ID: crypto.randomUUID().toUpperCase(),
    Policies: [{ ExternalPort: ext, InternalPort: int, Protocol: proto, ...(sourceVip ? { SourceVIP: sourceVip } : {}), Type: 'ELB', VIPs: [vip] }],
    References: [],
  });
  return [lb(1, 443, 6443, 6, apiVip), lb(2, 53, 53, 17, dns), lb(3, 53, 53, 6, dns)];
}

export class RestartBehaviour {
  private readonly lbTemplate: HnsObject[];
  private readonly lbSyncMs: number;
  private readonly networkCreateMs: number;
  private readonly persistent: Set<string>;
  private readonly flannelNetworks: HnsObject[];
  private readonly flannelWaits: boolean;
  private readonly crash: Map<string, number>;
  private readonly kubeProxyNetwork: string | null;
  /** Effects due at a time, applied when HNS is read. */
  private lbDueAt: number | null = null;
  private networkDueAt: number | null = null;

  constructor(
    private readonly spec: NodeSpec,
    private readonly model: ModelAccess,
  ) {
    const r: RestartBehaviourSpec = (spec as NodeSpec & { restart?: RestartBehaviourSpec }).restart ?? {};
    this.lbTemplate = structuredClone(r.loadBalancers ?? (spec.hnsPolicyLists.length > 0 ? spec.hnsPolicyLists : defaultLoadBalancers(spec)));
    this.lbSyncMs = r.loadBalancerSyncMs ?? 300;
    this.networkCreateMs = r.networkCreateMs ?? 500;
    this.persistent = new Set((r.persistentNetworks ?? ['External']).map(lower));
    this.flannelNetworks = structuredClone(spec.hnsNetworks.filter((n) => !this.persistent.has(lower(String(n.Name ?? '')))));
    this.flannelWaits = r.flannelWaitsForever === true;
    this.crash = new Map(Object.entries(r.crashAfterMs ?? {}).map(([k, v]) => [lower(k), v]));
    this.kubeProxyNetwork = flag(argsOf(spec, 'kube-proxy'), 'network-name') ?? flag(argsOf(spec, 'kubeproxy'), 'network-name');
  }

  private isKubeProxy(name: string): boolean {
    return lower(name) === 'kube-proxy' || lower(name) === 'kubeproxy';
  }

  /** A service is being stopped (Stop-Service, Restart-Service, or as a dependent). */
  onStop(name: string): void {
    const n = lower(name);
    if (this.isKubeProxy(n)) {
      // kube-proxy removes and reprograms its load balancers when it starts again.
      this.lbDueAt = null;
      this.model.setPolicyLists([]);
    } else if (n === 'hns') {
      this.model.setNetworks(this.model.networks().filter((x) => this.persistent.has(lower(String(x.Name ?? '')))));
      this.model.setEndpoints([]);
      this.model.setPolicyLists([]);
      this.lbDueAt = null;
      this.networkDueAt = null;
    } else if (n === 'flanneld') {
      this.networkDueAt = null;
    }
  }

  /**
   * A service reached Running at `at`. Returns a transition to schedule next (a crash), or null.
   */
  onRunning(name: string, at: number): { to: ServiceStatus; at: number } | null {
    const n = lower(name);
    if (this.isKubeProxy(n)) this.lbDueAt = at + this.lbSyncMs;
    if (n === 'flanneld') {
      const missing = this.flannelNetworks.filter((t) => !this.model.networks().some((x) => lower(String(x.Name ?? '')) === lower(String(t.Name ?? ''))));
      const wanted = this.kubeProxyNetwork ?? String(this.flannelNetworks[0]?.Name ?? 'flannel.4096');
      const known = this.flannelNetworks.some((t) => lower(String(t.Name ?? '')) === lower(wanted));
      if (this.flannelWaits || !known) {
        this.model.appendLog('C:\\k\\flanneld.log', [`I{{ts}}    3004 vxlan_network_windows.go:91] Waiting for the Network (${wanted}) to be created`]);
      } else if (missing.length > 0) {
        this.networkDueAt = at + this.networkCreateMs;
      }
    }
    const crashMs = this.crash.get(n);
    return crashMs !== undefined ? { to: 'Stopped', at: at + crashMs } : null;
  }

  /** Apply what is due before HNS is read. */
  tick(): void {
    this.model.settleServices();
    const t = this.model.now();
    if (this.networkDueAt !== null && t >= this.networkDueAt) {
      this.networkDueAt = null;
      const have = new Set(this.model.networks().map((x) => lower(String(x.Name ?? ''))));
      this.model.setNetworks([...this.model.networks(), ...structuredClone(this.flannelNetworks.filter((x) => !have.has(lower(String(x.Name ?? '')))))]);
    }
    if (this.lbDueAt !== null && t >= this.lbDueAt) {
      const network = this.kubeProxyNetwork;
      const ready = !network || this.model.networks().some((x) => lower(String(x.Name ?? '')) === lower(network));
      if (ready) {
        this.lbDueAt = null;
        this.model.setPolicyLists(structuredClone(this.lbTemplate));
      }
    }
  }
}

export interface DaemonSetReplacerOptions {
  /** Delay before the replacement pod object appears (DaemonSet controller). Default 200 ms. */
  createAfterMs?: number;
  /** Delay from creation to Running and Ready (kubelet starts the HostProcess container). Default 500 ms. */
  readyAfterMs?: number;
  /** Only pods bound to these nodes are replaced (default: all). */
  nodes?: string[];
}

function suffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return Array.from(crypto.randomBytes(5), (b) => alphabet[b % alphabet.length]).join('');
}

/**
 * Replace deleted DaemonSet pods in the API simulator's store: a new pod (new name, new uid) on the same node,
 * Pending first, then Running and Ready. Returns a stop function that cancels pending replacements.
 */
export function startDaemonSetReplacer(store: SimObjectStore, options: DaemonSetReplacerOptions = {}): { stop(): void; replaced: number } {
  const createAfterMs = options.createAfterMs ?? 200;
  const readyAfterMs = options.readyAfterMs ?? 500;
  const timers = new Set<NodeJS.Timeout>();
  const state = { replaced: 0 };
  const later = (ms: number, f: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      try {
        f();
      } catch {
        // The object was changed or removed meanwhile: nothing to do.
      }
    }, ms);
    timers.add(t);
  };
  const sub = store.watch('pods', { fromRv: store.resourceVersion }, (type, obj) => {
    if (type !== 'DELETED') return;
    const meta = (obj.metadata ?? {}) as Record<string, unknown>;
    const owner = ((meta.ownerReferences as Array<Record<string, unknown>> | undefined) ?? []).find((o) => o.kind === 'DaemonSet');
    const nodeName = (obj.spec as Record<string, unknown> | undefined)?.nodeName as string | undefined;
    if (!owner || !nodeName || (options.nodes && !options.nodes.includes(nodeName))) return;
    const namespace = String(meta.namespace ?? 'default');
    later(createAfterMs, () => {
      const fresh: KubeObject = structuredClone(obj);
      const base = typeof meta.generateName === 'string' ? meta.generateName : `${String(owner.name)}-`;
      const {
        uid: _uid,
        creationTimestamp: _created,
        resourceVersion: _rv,
        deletionTimestamp: _deleting,
        deletionGracePeriodSeconds: _grace,
        ...keep
      } = fresh.metadata as Record<string, unknown>;
      fresh.metadata = { ...keep, name: `${base}${suffix()}` };
      const containers = ((fresh.spec?.containers as Array<Record<string, unknown>> | undefined) ?? []).map((c) => String(c.name));
      fresh.status = {
        phase: 'Pending',
        conditions: [
          { type: 'PodScheduled', status: 'True' },
          { type: 'Ready', status: 'False', reason: 'ContainersNotReady' },
        ],
        containerStatuses: containers.map((name) => ({ name, ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } })),
      };
      const created = store.create('pods', fresh);
      state.replaced++;
      later(readyAfterMs, () => {
        store.update('pods', namespace, created.metadata.name, (p) => {
          const started = new Date(store.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
          p.status = {
            ...p.status,
            phase: 'Running',
            startTime: started,
            conditions: [
              { type: 'PodScheduled', status: 'True' },
              { type: 'Initialized', status: 'True' },
              { type: 'ContainersReady', status: 'True' },
              { type: 'Ready', status: 'True' },
            ],
            containerStatuses: containers.map((name) => ({ name, ready: true, started: true, restartCount: 0, state: { running: { startedAt: started } } })),
          };
        });
      });
    });
  });
  const subscription = sub === 'expired' ? null : (sub as WatchSubscription);
  return {
    stop() {
      subscription?.unsubscribe();
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
    get replaced() {
      return state.replaced;
    },
  };
}
