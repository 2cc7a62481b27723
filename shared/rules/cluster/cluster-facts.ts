import type { Finding } from '../../domain/finding';
import type { NodeModel } from '../../domain/node';

/**
 * Input of the cluster-only rules: API data, no host probes. Objects are as the API returns them (or a
 * projection with at least the fields read here); every field is optional because real objects miss fields,
 * and a rule never throws on odd input.
 */
export interface ClusterFacts {
  /** API server gitVersion (`v1.32.4`), null when unknown. */
  serverVersion: string | null;
  /** `kubectl version --client` gitVersion when known (for the kubectl skew check). */
  kubectlVersion?: string | null;
  nodes: readonly NodeModel[];
  /** Deployments, DaemonSets, StatefulSets, Jobs, CronJobs, ReplicaSets and Pods (with `kind` set). */
  workloads?: readonly WorkloadObject[];
  services?: readonly ServiceObject[];
  endpointSlices?: readonly EndpointSliceObject[];
}

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string> | null;
  ownerReferences?: Array<{ kind?: string; name?: string; controller?: boolean }> | null;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

export interface NodeSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[] | null;
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[] | null;
  matchFields?: NodeSelectorRequirement[] | null;
}

export interface SecurityContextLike {
  privileged?: boolean | null;
  allowPrivilegeEscalation?: boolean | null;
  runAsUser?: number | null;
  runAsGroup?: number | null;
  runAsNonRoot?: boolean | null;
  fsGroup?: number | null;
  supplementalGroups?: number[] | null;
  seLinuxOptions?: unknown;
  capabilities?: { add?: string[] | null; drop?: string[] | null } | null;
  procMount?: string | null;
  readOnlyRootFilesystem?: boolean | null;
  sysctls?: Array<{ name?: string; value?: string }> | null;
  windowsOptions?: { hostProcess?: boolean | null; runAsUserName?: string | null } | null;
}

export interface ContainerLike {
  name?: string;
  securityContext?: SecurityContextLike | null;
  volumeMounts?: Array<{ name?: string; mountPath?: string; subPath?: string; subPathExpr?: string; mountPropagation?: string }> | null;
  volumeDevices?: Array<{ name?: string; devicePath?: string }> | null;
  terminationMessagePath?: string | null;
  resources?: { requests?: Record<string, unknown> | null; limits?: Record<string, unknown> | null } | null;
}

export interface VolumeLike {
  name?: string;
  emptyDir?: { medium?: string } | null;
  nfs?: unknown;
  secret?: { defaultMode?: number | null; items?: Array<{ mode?: number | null }> | null } | null;
  configMap?: { defaultMode?: number | null; items?: Array<{ mode?: number | null }> | null } | null;
  projected?: { defaultMode?: number | null } | null;
  downwardAPI?: { defaultMode?: number | null; items?: Array<{ mode?: number | null }> | null } | null;
}

export interface PodSpecLike {
  nodeSelector?: Record<string, string> | null;
  nodeName?: string | null;
  affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] | null } | null } | null } | null;
  tolerations?: Toleration[] | null;
  os?: { name?: string } | null;
  hostNetwork?: boolean | null;
  hostPID?: boolean | null;
  hostIPC?: boolean | null;
  shareProcessNamespace?: boolean | null;
  dnsPolicy?: string | null;
  securityContext?: SecurityContextLike | null;
  containers?: ContainerLike[] | null;
  initContainers?: ContainerLike[] | null;
  volumes?: VolumeLike[] | null;
}

export interface PodTemplateLike {
  metadata?: { labels?: Record<string, string> | null } | null;
  spec?: PodSpecLike | null;
}

export interface WorkloadObject {
  kind?: string;
  apiVersion?: string;
  metadata?: ObjectMeta | null;
  spec?: {
    template?: PodTemplateLike | null;
    jobTemplate?: { spec?: { template?: PodTemplateLike | null } | null } | null;
  } & PodSpecLike | null;
}

export interface ServiceObject {
  metadata?: ObjectMeta | null;
  spec?: {
    type?: string;
    selector?: Record<string, string> | null;
    sessionAffinity?: string;
    sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number | null } | null } | null;
  } | null;
}

export interface EndpointSliceObject {
  metadata?: ObjectMeta | null;
  addressType?: string;
  endpoints?: Array<{ addresses?: string[] | null; conditions?: { ready?: boolean | null } | null }> | null;
}

/** A cluster-only rule: a stable id (WINDOWS-KNOWLEDGE.md section 4) and a pure evaluation. */
export interface ClusterRule {
  id: string;
  evaluate(facts: ClusterFacts): Finding[];
}

/** `Deployment default/web`-style reference used as evidence source. */
export function objectRef(kind: string | undefined, meta: ObjectMeta | null | undefined): string {
  const k = (kind ?? 'object').toLowerCase();
  const ns = meta?.namespace;
  const name = meta?.name ?? '(unnamed)';
  return ns ? `${k}/${ns}/${name}` : `${k}/${name}`;
}

/** The pod template (labels + spec) of a workload object, null when it has none. */
export function podTemplateOf(workload: WorkloadObject): PodTemplateLike | null {
  const kind = workload.kind ?? '';
  if (kind === 'Pod') return { metadata: { labels: workload.metadata?.labels ?? null }, spec: workload.spec ?? null };
  if (kind === 'CronJob') return workload.spec?.jobTemplate?.spec?.template ?? null;
  return workload.spec?.template ?? null;
}

/**
 * Workloads worth linting on their own: controllers, plus Pods and ReplicaSets that no controller owns
 * (owned ones are covered by their owner).
 */
export function lintableWorkloads(workloads: readonly WorkloadObject[]): WorkloadObject[] {
  return workloads.filter((w) => {
    if (w.kind !== 'Pod' && w.kind !== 'ReplicaSet' && w.kind !== 'Job') return true;
    const owners = w.metadata?.ownerReferences ?? [];
    return !owners.some((o) => o && o.controller === true);
  });
}

function tolerates(tolerations: readonly Toleration[], taint: { key: string; value?: string; effect: string }): boolean {
  return tolerations.some((t) => {
    if (!t) return false;
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

function matchRequirement(req: NodeSelectorRequirement, get: (key: string) => string | undefined): boolean {
  const key = req.key ?? '';
  const value = get(key);
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const n = Number(value);
      const bound = Number(values[0]);
      if (value === undefined || !Number.isFinite(n) || !Number.isFinite(bound)) return false;
      return req.operator === 'Gt' ? n > bound : n < bound;
    }
    default:
      return false;
  }
}

/**
 * Whether a pod with `spec` could be scheduled onto `node` by labels, OS, affinity and taints (scheduling
 * filters only: no resources, no transient condition taints).
 */
export function canLandOn(spec: PodSpecLike | null | undefined, node: NodeModel): boolean {
  const s = spec ?? {};
  if (s.nodeName) return s.nodeName === node.name;
  const osName = s.os?.name;
  if (osName && node.os !== 'unknown' && osName !== node.os) return false;
  for (const [k, v] of Object.entries(s.nodeSelector ?? {})) {
    if (node.labels[k] !== v) return false;
  }
  const terms = s.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (terms.length > 0) {
    const labelOf = (k: string) => node.labels[k];
    const fieldOf = (k: string) => (k === 'metadata.name' ? node.name : undefined);
    const any = terms.some((term) => {
      const exprs = term?.matchExpressions ?? [];
      const fields = term?.matchFields ?? [];
      if (exprs.length === 0 && fields.length === 0) return false;
      return exprs.every((e) => matchRequirement(e, labelOf)) && fields.every((f) => matchRequirement(f, fieldOf));
    });
    if (!any) return false;
  }
  // Condition taints (node.kubernetes.io/not-ready, unreachable, *-pressure, unschedulable) are transient
  // states, not placement policy; DaemonSet pods tolerate them anyway. Only placement taints decide here.
  for (const taint of node.taints) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (taint.key.startsWith('node.kubernetes.io/')) continue;
    if (!tolerates(s.tolerations ?? [], taint)) return false;
  }
  return true;
}

/** Windows nodes a workload's pods could be scheduled onto. */
export function windowsNodesFor(workload: WorkloadObject, nodes: readonly NodeModel[]): NodeModel[] {
  const template = podTemplateOf(workload);
  if (!template) return [];
  return nodes.filter((n) => n.os === 'windows' && canLandOn(template.spec, n));
}

/** True when a Service's selector selects pods with `labels`. An empty selector selects nothing (manual endpoints). */
export function selectorMatches(selector: Record<string, string> | null | undefined, labels: Record<string, string> | null | undefined): boolean {
  const entries = Object.entries(selector ?? {});
  if (entries.length === 0) return false;
  const l = labels ?? {};
  return entries.every(([k, v]) => l[k] === v);
}

/** Link to the upstream page that explains the Windows limitations these rules rest on. */
export const WINDOWS_INTRO_URL = 'https://kubernetes.io/docs/concepts/windows/intro/';
