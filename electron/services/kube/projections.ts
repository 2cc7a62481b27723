import type { NodeObject } from '../../../shared/logic/node-model';
import type { WorkloadObject } from '../../../shared/rules/cluster/cluster-facts';

/**
 * What the inventory keeps of each object. A list page is parsed with JSON.parse (the fastest parser there is)
 * and each item is immediately cut down to these fields, so the raw page can be collected; at 150,000 pods the
 * difference is a few tens of MB instead of GBs (bench/inventory.mjs measures it).
 */

// Raw API objects are untyped JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Raw = any;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export interface PodProjection {
  namespace: string;
  name: string;
  uid: string | null;
  node: string | null;
  phase: string | null;
  /** kubectl's STATUS column: waiting/terminated reason, else the phase. */
  status: string | null;
  readyCount: number;
  containerCount: number;
  restarts: number;
  podIP: string | null;
  ownerKind: string | null;
  ownerName: string | null;
  createdAt: string | null;
}

export function projectPod(raw: Raw): PodProjection | null {
  const m = raw?.metadata;
  if (!m || typeof m.name !== 'string') return null;
  const statuses: Raw[] = Array.isArray(raw.status?.containerStatuses) ? raw.status.containerStatuses : [];
  let status: string | null = str(raw.status?.reason) ?? str(raw.status?.phase) ?? null;
  let ready = 0;
  let restarts = 0;
  for (const cs of statuses) {
    if (cs?.ready === true) ready++;
    restarts += Number(cs?.restartCount) || 0;
    const why = str(cs?.state?.waiting?.reason) ?? str(cs?.state?.terminated?.reason);
    if (why) status = why;
  }
  if (m.deletionTimestamp) status = 'Terminating';
  const owner = Array.isArray(m.ownerReferences) ? (m.ownerReferences.find((o: Raw) => o?.controller === true) ?? m.ownerReferences[0]) : undefined;
  return {
    namespace: str(m.namespace) ?? '',
    name: m.name,
    uid: str(m.uid) ?? null,
    node: str(raw.spec?.nodeName) || null,
    phase: str(raw.status?.phase) ?? null,
    status,
    readyCount: ready,
    containerCount: Array.isArray(raw.spec?.containers) ? raw.spec.containers.length : statuses.length,
    restarts,
    podIP: str(raw.status?.podIP) ?? null,
    ownerKind: str(owner?.kind) ?? null,
    ownerName: str(owner?.name) ?? null,
    createdAt: str(m.creationTimestamp) ?? null,
  };
}

export const podKey = (p: PodProjection) => `${p.namespace}/${p.name}`;

/** The Node fields the node model reads (shared/logic/node-model.ts NodeObject): no images, no capacity. */
export function projectNode(raw: Raw): NodeObject | null {
  const m = raw?.metadata;
  if (!m || typeof m.name !== 'string') return null;
  const s = raw.spec ?? {};
  const st = raw.status ?? {};
  return {
    metadata: { name: m.name, uid: str(m.uid), labels: m.labels && typeof m.labels === 'object' ? { ...m.labels } : {}, creationTimestamp: str(m.creationTimestamp) ?? null, resourceVersion: str(m.resourceVersion) },
    spec: {
      podCIDR: str(s.podCIDR) ?? null,
      podCIDRs: Array.isArray(s.podCIDRs) ? s.podCIDRs.filter((c: unknown) => typeof c === 'string') : null,
      providerID: str(s.providerID) ?? null,
      unschedulable: s.unschedulable === true,
      taints: Array.isArray(s.taints) ? s.taints.map((t: Raw) => ({ key: str(t?.key), value: str(t?.value), effect: str(t?.effect) })) : [],
    },
    status: {
      conditions: Array.isArray(st.conditions)
        ? st.conditions.map((c: Raw) => ({ type: str(c?.type), status: str(c?.status), reason: str(c?.reason), message: str(c?.message), lastTransitionTime: str(c?.lastTransitionTime), lastHeartbeatTime: str(c?.lastHeartbeatTime) }))
        : [],
      addresses: Array.isArray(st.addresses) ? st.addresses.map((a: Raw) => ({ type: str(a?.type), address: str(a?.address) })) : [],
      nodeInfo: st.nodeInfo
        ? {
            kernelVersion: str(st.nodeInfo.kernelVersion),
            osImage: str(st.nodeInfo.osImage),
            containerRuntimeVersion: str(st.nodeInfo.containerRuntimeVersion),
            kubeletVersion: str(st.nodeInfo.kubeletVersion),
            kubeProxyVersion: str(st.nodeInfo.kubeProxyVersion),
            operatingSystem: str(st.nodeInfo.operatingSystem),
            architecture: str(st.nodeInfo.architecture),
          }
        : null,
    },
  };
}

export const nodeKey = (n: NodeObject) => n.metadata?.name ?? '';

export interface EventProjection {
  namespace: string;
  name: string;
  objectKind: string | null;
  objectNamespace: string | null;
  objectName: string | null;
  type: string | null;
  reason: string | null;
  message: string | null;
  count: number;
  firstSeen: string | null;
  lastSeen: string | null;
  source: string | null;
}

const MESSAGE_MAX = 4096;

export function projectEvent(raw: Raw): EventProjection | null {
  const m = raw?.metadata;
  if (!m || typeof m.name !== 'string') return null;
  const io = raw.involvedObject ?? raw.regarding ?? {};
  const message = str(raw.message) ?? str(raw.note) ?? null;
  return {
    namespace: str(m.namespace) ?? '',
    name: m.name,
    objectKind: str(io.kind) ?? null,
    objectNamespace: str(io.namespace) ?? null,
    objectName: str(io.name) ?? null,
    type: str(raw.type) ?? null,
    reason: str(raw.reason) ?? null,
    message: message && message.length > MESSAGE_MAX ? `${message.slice(0, MESSAGE_MAX)}...` : message,
    count: Number(raw.count ?? raw.series?.count ?? 1) || 1,
    firstSeen: str(raw.firstTimestamp) ?? str(raw.eventTime) ?? str(m.creationTimestamp) ?? null,
    lastSeen: str(raw.lastTimestamp) ?? str(raw.series?.lastObservedTime) ?? str(raw.eventTime) ?? str(m.creationTimestamp) ?? null,
    source: [str(raw.source?.component) ?? str(raw.reportingController), str(raw.source?.host) ?? str(raw.reportingInstance)].filter(Boolean).join(', ') || null,
  };
}

export const eventKey = (e: EventProjection) => `${e.namespace}/${e.name}`;

/** A workload reduced to what the rules read: kind, metadata (no annotations), pod template (or pod spec). */
export function projectWorkload(kind: string, raw: Raw): WorkloadObject | null {
  const m = raw?.metadata;
  if (!m || typeof m.name !== 'string') return null;
  const meta = {
    name: m.name,
    namespace: str(m.namespace) ?? '',
    uid: str(m.uid),
    labels: m.labels && typeof m.labels === 'object' ? { ...m.labels } : {},
    ownerReferences: Array.isArray(m.ownerReferences) ? m.ownerReferences.map((o: Raw) => ({ kind: str(o?.kind), name: str(o?.name), controller: o?.controller === true })) : [],
  };
  if (kind === 'Pod') return { kind, apiVersion: 'v1', metadata: meta, spec: raw.spec ?? {} };
  const spec = raw.spec ?? {};
  if (kind === 'CronJob') return { kind, apiVersion: str(raw.apiVersion) ?? 'batch/v1', metadata: meta, spec: { jobTemplate: { spec: { template: spec.jobTemplate?.spec?.template ?? null } } } };
  return { kind, apiVersion: str(raw.apiVersion) ?? 'apps/v1', metadata: meta, spec: { template: spec.template ?? null } };
}

/** Bare pods only (pods a controller owns are linted through their controller). */
export function projectBarePod(raw: Raw): WorkloadObject | null {
  const owners: Raw[] = Array.isArray(raw?.metadata?.ownerReferences) ? raw.metadata.ownerReferences : [];
  if (owners.some((o) => o?.controller === true)) return null;
  return projectWorkload('Pod', raw);
}

export const workloadKey = (w: WorkloadObject) => `${w.kind}/${w.metadata?.namespace ?? ''}/${w.metadata?.name ?? ''}`;

export interface DaemonSetProjection {
  namespace: string;
  name: string;
  desired: number;
  current: number;
  ready: number;
  available: number;
  nodeSelector: Record<string, string>;
  images: string[];
  hostProcess: boolean;
  workload: WorkloadObject;
}

export function projectDaemonSet(raw: Raw): DaemonSetProjection | null {
  const workload = projectWorkload('DaemonSet', raw);
  if (!workload) return null;
  const st = raw.status ?? {};
  const tspec = raw.spec?.template?.spec ?? {};
  const containers: Raw[] = Array.isArray(tspec.containers) ? tspec.containers : [];
  return {
    namespace: workload.metadata?.namespace ?? '',
    name: workload.metadata?.name ?? '',
    desired: Number(st.desiredNumberScheduled) || 0,
    current: Number(st.currentNumberScheduled) || 0,
    ready: Number(st.numberReady) || 0,
    available: Number(st.numberAvailable) || 0,
    nodeSelector: tspec.nodeSelector && typeof tspec.nodeSelector === 'object' ? { ...tspec.nodeSelector } : {},
    images: containers.map((c) => str(c?.image)).filter((i): i is string => !!i),
    hostProcess: tspec.securityContext?.windowsOptions?.hostProcess === true || containers.some((c) => c?.securityContext?.windowsOptions?.hostProcess === true),
    workload,
  };
}

export const daemonSetKey = (d: DaemonSetProjection) => `${d.namespace}/${d.name}`;
