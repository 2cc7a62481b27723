import type { TransportKind } from '../../../shared/contract/errors';
import type { ClusterSummary } from '../../../shared/domain/cluster';

/**
 * What the restart engine needs from the world, as ports: a node it can read and restart services on, the
 * Kubernetes API of the node's cluster, and (optionally) the diagnostics engine. The composition (service.ts)
 * plugs in the real transports and kube client; tests plug in the same implementations over the simulators.
 */

/** A Windows service as the engine needs it (from the `services` and `service-config` scripts). */
export interface HostService {
  name: string;
  displayName: string | null;
  /** Normalized: Running, Stopped, StartPending, StopPending, ... */
  status: string;
  startType: string | null;
  dependsOn: string[];
  pathName: string | null;
  nssm: { application: string; appParameters: string; appEnvironmentExtra: string[] } | null;
  /** Null when unknown or 0 (not running). */
  pid: number | null;
}

export interface HostProcess {
  pid: number;
  parentPid: number | null;
  name: string;
  commandLine: string | null;
}

export interface HostNetwork {
  name: string;
  type: string | null;
  managementIp: string | null;
}

export interface HostFile {
  path: string;
  exists: boolean;
  /** UTF-8 text (BOM and UTF-16 decoded), null when absent. */
  text: string | null;
}

/** What the restart-service script reported. */
export interface ServiceRestartReport {
  name: string;
  succeeded: boolean;
  error: string | null;
  statusBefore: string | null;
  statusAfter: string | null;
  /** Dependents that ran before and were started again, with their status after. */
  dependents: Array<{ name: string; status: string | null }>;
  durationMs: number | null;
}

/** A node Windeck can read and restart services on (over SSH or WinRM). Every call honours `signal`. */
export interface RestartNodeHost {
  readonly node: string;
  readonly transport: TransportKind;
  services(names: readonly string[], signal: AbortSignal): Promise<HostService[]>;
  processes(names: readonly string[], signal: AbortSignal): Promise<HostProcess[]>;
  hnsNetworks(signal: AbortSignal): Promise<HostNetwork[]>;
  /** HNS policy lists that carry an ELB policy: kube-proxy's load balancers. */
  loadBalancerCount(signal: AbortSignal): Promise<number>;
  files(paths: readonly string[], signal: AbortSignal): Promise<HostFile[]>;
  /** MUTATING: Restart-Service -Force, wait for Running, start the dependents that ran before. */
  restartService(name: string, timeoutSeconds: number, signal: AbortSignal): Promise<ServiceRestartReport>;
  /**
   * Rule ids the diagnostics engine finds on the node now (probes + rules), for "no new findings". Absent when
   * the engine is not available; the post-check then says it was skipped.
   */
  findings?(signal: AbortSignal): Promise<string[]>;
  /** Version of a shipped script (shown in plans: `restart-service v1 {...}`). */
  scriptVersion(id: 'restart-service' | 'hns-networks'): Promise<number>;
  close(): Promise<void>;
}

export interface KubeNodeState {
  ready: boolean | null;
  readyReason: string | null;
  unschedulable: boolean;
  podCIDR: string | null;
}

export interface KubePod {
  namespace: string;
  name: string;
  uid: string | null;
  phase: string | null;
  ready: boolean;
  ownerKind: string | null;
  ownerName: string | null;
  hostProcess: boolean;
  hostNetwork: boolean;
  containers: string[];
  /** Static (mirror) pods are not evicted by a drain. */
  mirror: boolean;
  deleting: boolean;
}

/** The Kubernetes API of the node's cluster, as the restart engine needs it. */
export interface RestartKube {
  /** Null when the node does not exist in the cluster. */
  node(name: string, signal: AbortSignal): Promise<KubeNodeState | null>;
  podsOnNode(name: string, signal: AbortSignal): Promise<KubePod[]>;
  /** MUTATING */
  deletePod(namespace: string, name: string, signal: AbortSignal): Promise<void>;
  /** MUTATING: cordon (true) or uncordon (false). */
  setUnschedulable(node: string, value: boolean, signal: AbortSignal): Promise<void>;
  /** MUTATING: the Eviction API (honours PodDisruptionBudgets). */
  evictPod(namespace: string, name: string, signal: AbortSignal): Promise<void>;
  /** Release connections (optional). */
  close?(): void;
}

export interface NodeTarget {
  /** The store's cluster id (null: none known). */
  clusterId: string | null;
  cluster: ClusterSummary | null;
  node: string;
  /** How the caller named the cluster (CLI `--kubeconfig`/`--context`), for the API client. */
  kubeconfig?: string | undefined;
  context?: string | undefined;
  /** The transport the caller asked for (`windeck --transport`); default `auto`. */
  transport?: 'auto' | 'ssh' | 'winrm' | undefined;
}

export interface RestartPorts {
  /** Open the node over the configured transport; UNREACHABLE/AUTH_FAILED/HOST_KEY_* when it cannot. */
  openNode(target: NodeTarget, signal: AbortSignal): Promise<RestartNodeHost>;
  /** The cluster's API, or null when there is none to talk to (offline, no cluster). */
  kube(target: NodeTarget): Promise<RestartKube | null>;
}
