import type { NodeAddress, NodeCondition, NodeHealth, NodeModel, NodeOs, NodeSummary, NodeTaint } from '../domain/node';
import { checkWindowsBuildSupport, parseWindowsVersion, windowsReleaseName } from '../domain/windows-builds';
import { componentSkew } from '../rules/cluster/version-skew';

/**
 * The part of a Kubernetes Node object Windeck keeps (the inventory projects every Node to this shape before
 * storing it; a whole Node object from a bundle or a test fits it too). Everything optional: real objects
 * miss fields, and nothing here may throw on them.
 */
export interface NodeObject {
  metadata?: {
    name?: string;
    uid?: string;
    labels?: Record<string, string> | null;
    annotations?: Record<string, string> | null;
    creationTimestamp?: string | null;
    resourceVersion?: string;
  } | null;
  spec?: {
    podCIDR?: string | null;
    podCIDRs?: string[] | null;
    providerID?: string | null;
    unschedulable?: boolean | null;
    taints?: Array<{ key?: string; value?: string; effect?: string }> | null;
  } | null;
  status?: {
    conditions?: Array<{ type?: string; status?: string; reason?: string; message?: string; lastTransitionTime?: string; lastHeartbeatTime?: string }> | null;
    addresses?: Array<{ type?: string; address?: string }> | null;
    nodeInfo?: {
      kernelVersion?: string;
      osImage?: string;
      containerRuntimeVersion?: string;
      kubeletVersion?: string;
      kubeProxyVersion?: string;
      operatingSystem?: string;
      architecture?: string;
    } | null;
  } | null;
}

/** What the model needs besides the Node object itself. */
export interface NodeModelContext {
  /** Pods bound to this node (from the pod inventory), 0 when unknown. */
  podCount?: number;
  /** Epoch ms of the sync that saw this object, null when it came from elsewhere (a bundle). */
  syncedAt?: number | null;
  /** API server gitVersion (e.g. `v1.32.4`), for the build support and skew checks; null when unknown. */
  kubernetesVersion?: string | null;
}

const OS_LABELS = ['kubernetes.io/os', 'beta.kubernetes.io/os'];
const WINDOWS_BUILD_LABEL = 'node.kubernetes.io/windows-build';
const PRESSURE_CONDITIONS = new Set(['MemoryPressure', 'DiskPressure', 'PIDPressure', 'NetworkUnavailable', 'OutOfDisk']);

function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** OS of a node: the `kubernetes.io/os` label (or its beta twin), else nodeInfo.operatingSystem. */
export function nodeOs(node: NodeObject): NodeOs {
  const labels = node.metadata?.labels ?? {};
  const raw = OS_LABELS.map((k) => labels[k]).find((v) => typeof v === 'string' && v !== '') ?? node.status?.nodeInfo?.operatingSystem ?? '';
  const os = String(raw).toLowerCase();
  if (os === 'windows') return 'windows';
  if (os === 'linux') return 'linux';
  return 'unknown';
}

/** Windows build of a node: from nodeInfo.kernelVersion (which has the UBR), else the windows-build label. */
export function nodeWindowsBuild(node: NodeObject): { build: number; ubr: number | null } | null {
  const fromKernel = parseWindowsVersion(node.status?.nodeInfo?.kernelVersion);
  if (fromKernel) return { build: fromKernel.build, ubr: fromKernel.ubr };
  const fromLabel = parseWindowsVersion(node.metadata?.labels?.[WINDOWS_BUILD_LABEL]);
  if (fromLabel) return { build: fromLabel.build, ubr: fromLabel.ubr };
  return null;
}

function conditions(node: NodeObject): NodeCondition[] {
  const out: NodeCondition[] = [];
  for (const c of node.status?.conditions ?? []) {
    if (!c || typeof c.type !== 'string') continue;
    out.push({
      type: c.type,
      status: typeof c.status === 'string' ? c.status : 'Unknown',
      ...(str(c.reason) ? { reason: c.reason } : {}),
      ...(str(c.message) ? { message: c.message } : {}),
      ...(str(c.lastTransitionTime) ? { lastTransitionTime: c.lastTransitionTime } : {}),
    });
  }
  return out;
}

function taints(node: NodeObject): NodeTaint[] {
  const out: NodeTaint[] = [];
  for (const t of node.spec?.taints ?? []) {
    if (!t || typeof t.key !== 'string' || typeof t.effect !== 'string') continue;
    out.push({ key: t.key, effect: t.effect, ...(typeof t.value === 'string' && t.value !== '' ? { value: t.value } : {}) });
  }
  return out;
}

function addresses(node: NodeObject): NodeAddress[] {
  const out: NodeAddress[] = [];
  for (const a of node.status?.addresses ?? []) {
    if (!a || typeof a.type !== 'string' || typeof a.address !== 'string') continue;
    out.push({ type: a.type, address: a.address });
  }
  return out;
}

/** One-line description of a condition for a reason list. */
function describeCondition(c: NodeCondition): string {
  const why = [c.reason, c.message].filter((s) => s && s !== '').join(': ');
  return why ? `${c.type}=${c.status} (${why})` : `${c.type}=${c.status}`;
}

const HEALTH_RANK: Record<NodeHealth, number> = { healthy: 0, unknown: 1, warning: 2, unreachable: 3, error: 4 };

/** The worse of two health states. */
export function worseHealth(a: NodeHealth, b: NodeHealth): NodeHealth {
  return HEALTH_RANK[b] > HEALTH_RANK[a] ? b : a;
}

/**
 * Turn a Node object into the stored model with health and reasons. Health from API data only:
 * error = not Ready (False/Unknown) or a Windows build that is not supported; warning = pressure conditions,
 * cordoned, a build not listed upstream, kubelet/kube-proxy outside the version skew; unknown = no Ready
 * condition at all. Host probes may lower it further elsewhere.
 */
export function toNodeModel(node: NodeObject, context: NodeModelContext = {}): NodeModel {
  const info = node.status?.nodeInfo ?? {};
  const os = nodeOs(node);
  const win = os === 'windows' ? nodeWindowsBuild(node) : null;
  const osImage = str(info.osImage);
  const conds = conditions(node);
  const ready = conds.find((c) => c.type === 'Ready');
  const addrs = addresses(node);
  const reasons: string[] = [];
  let health: NodeHealth = 'healthy';

  if (!ready) {
    health = 'unknown';
    reasons.push('The node reports no Ready condition.');
  } else if (ready.status !== 'True') {
    health = 'error';
    reasons.push(`Not ready: ${describeCondition(ready)}`);
  }
  for (const c of conds) {
    if (PRESSURE_CONDITIONS.has(c.type) && c.status === 'True') {
      health = worseHealth(health, 'warning');
      reasons.push(describeCondition(c));
    }
  }
  if (node.spec?.unschedulable === true) {
    health = worseHealth(health, 'warning');
    reasons.push('Cordoned: scheduling is disabled on this node.');
  }
  if (os === 'windows') {
    if (!win) {
      health = worseHealth(health, 'warning');
      reasons.push('Windows node without a readable build (no kernelVersion or node.kubernetes.io/windows-build label).');
    } else {
      // Without the cluster's version only the never-supported cases (old builds, client SKUs) can be judged.
      const check = checkWindowsBuildSupport(win.build, context.kubernetesVersion ?? null, osImage);
      if (check.severity) {
        health = worseHealth(health, check.severity);
        reasons.push(check.message);
      }
    }
  }
  if (context.kubernetesVersion) {
    for (const [component, version] of [
      ['kubelet', str(info.kubeletVersion)],
      ['kube-proxy', str(info.kubeProxyVersion)],
    ] as const) {
      const skew = componentSkew(component, version, context.kubernetesVersion);
      if (skew) {
        health = worseHealth(health, 'warning');
        reasons.push(skew);
      }
    }
  }

  return {
    name: node.metadata?.name ?? '',
    os,
    ready: ready ? ready.status === 'True' : null,
    windowsBuild: win ? win.build : null,
    windowsRelease: win ? windowsReleaseName(win.build, osImage) : null,
    kubeletVersion: str(info.kubeletVersion),
    containerRuntime: str(info.containerRuntimeVersion),
    internalIP: addrs.find((a) => a.type === 'InternalIP')?.address ?? null,
    podCount: context.podCount ?? 0,
    health,
    reasons,
    syncedAt: context.syncedAt ?? null,
    uid: str(node.metadata?.uid),
    labels: { ...(node.metadata?.labels ?? {}) },
    osImage,
    kernelVersion: str(info.kernelVersion),
    kubeProxyVersion: str(info.kubeProxyVersion),
    architecture: str(info.architecture),
    providerID: str(node.spec?.providerID),
    podCIDR: str(node.spec?.podCIDR) ?? node.spec?.podCIDRs?.find((c) => typeof c === 'string') ?? null,
    conditions: conds,
    taints: taints(node),
    addresses: addrs,
    unschedulable: node.spec?.unschedulable === true,
    createdAt: str(node.metadata?.creationTimestamp),
  };
}

/** The `windeck nodes --json` row of a model (DESIGN.md section 10), in that key order. */
export function toNodeSummary(model: NodeModel): NodeSummary {
  return {
    name: model.name,
    os: model.os,
    ready: model.ready,
    windowsBuild: model.windowsBuild,
    windowsRelease: model.windowsRelease,
    kubeletVersion: model.kubeletVersion,
    containerRuntime: model.containerRuntime,
    internalIP: model.internalIP,
    podCount: model.podCount,
    health: model.health,
    reasons: [...model.reasons],
    syncedAt: model.syncedAt,
  };
}
