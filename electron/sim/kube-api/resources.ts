/**
 * The resources the simulated API server serves: discovery facts, supported field selectors and the
 * server-side Table columns (shaped like kube-apiserver's printers, so the real `kubectl get` prints them).
 */

// The simulator handles arbitrary JSON objects; this alias keeps the intent readable.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type KubeObject = Record<string, any>;

export interface ColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

export interface ResourceDef {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Field selectors this resource supports beyond metadata.name/metadata.namespace. */
  fields: Record<string, (o: KubeObject) => string | undefined>;
  columns: ColumnDefinition[];
  row(o: KubeObject, now: number): unknown[];
}

const col = (name: string, type: ColumnDefinition['type'] = 'string', priority = 0, format = ''): ColumnDefinition => ({
  name,
  type,
  format,
  description: `${name} column`,
  priority,
});
const nameCol: ColumnDefinition = { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 };

/** Kubernetes' HumanDuration (k8s.io/apimachinery/pkg/util/duration), as kubectl prints ages. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const years = Math.floor(hours / 24 / 365);
  if (hours < 24 * 365 * 8) return `${years}y${Math.floor(hours / 24) % 365}d`;
  return `${years}y`;
}

function age(o: KubeObject, now: number): string {
  const t = Date.parse(o.metadata?.creationTimestamp ?? '');
  return Number.isFinite(t) ? humanDuration(now - t) : '<unknown>';
}

function since(ts: string | undefined, now: number): string {
  const t = Date.parse(ts ?? '');
  return Number.isFinite(t) ? humanDuration(now - t) : '<unknown>';
}

const orNone = (s: string | undefined | null) => (s === undefined || s === null || s === '' ? '<none>' : s);

function containersOf(o: KubeObject): KubeObject[] {
  return o.spec?.template?.spec?.containers ?? o.spec?.jobTemplate?.spec?.template?.spec?.containers ?? [];
}

function selectorText(sel: KubeObject | undefined): string {
  if (!sel) return '<none>';
  const parts = Object.entries(sel.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of sel.matchExpressions ?? []) parts.push(`${e.key} ${String(e.operator).toLowerCase()} (${(e.values ?? []).join(',')})`);
  return parts.length ? parts.join(',') : '<none>';
}

function nodeRoles(o: KubeObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries<string>(o.metadata?.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) roles.add(k.slice('node-role.kubernetes.io/'.length));
    if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

function nodeStatus(o: KubeObject): string {
  const ready = (o.status?.conditions ?? []).find((c: KubeObject) => c.type === 'Ready');
  const base = !ready ? 'Unknown' : ready.status === 'True' ? 'Ready' : ready.status === 'False' ? 'NotReady' : 'Unknown';
  return o.spec?.unschedulable ? `${base},SchedulingDisabled` : base;
}

function addr(o: KubeObject, type: string): string {
  return orNone((o.status?.addresses ?? []).find((a: KubeObject) => a.type === type)?.address);
}

/** Pod STATUS column: reason of the first waiting/terminated container, else the phase (as kubectl prints it). */
export function podStatusText(o: KubeObject): string {
  if (o.metadata?.deletionTimestamp) return 'Terminating';
  let reason: string = o.status?.reason ?? o.status?.phase ?? 'Unknown';
  for (const cs of o.status?.containerStatuses ?? []) {
    const w = cs.state?.waiting?.reason;
    const t = cs.state?.terminated?.reason;
    if (w) reason = w;
    else if (t) reason = t;
  }
  return reason;
}

function podReady(o: KubeObject): string {
  const total = (o.spec?.containers ?? []).length;
  const ready = (o.status?.containerStatuses ?? []).filter((c: KubeObject) => c.ready).length;
  return `${ready}/${total}`;
}

function podRestarts(o: KubeObject): string {
  let n = 0;
  for (const cs of o.status?.containerStatuses ?? []) n += Number(cs.restartCount ?? 0);
  return String(n);
}

function servicePorts(o: KubeObject): string {
  const ports = (o.spec?.ports ?? []).map((p: KubeObject) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`);
  return ports.length ? ports.join(',') : '<none>';
}

function jobStatus(o: KubeObject): string {
  for (const c of o.status?.conditions ?? []) {
    if (c.status !== 'True') continue;
    if (c.type === 'Complete') return 'Complete';
    if (c.type === 'Failed') return 'Failed';
    if (c.type === 'Suspended') return 'Suspended';
  }
  return 'Running';
}

function jobDuration(o: KubeObject, now: number): string {
  const start = Date.parse(o.status?.startTime ?? '');
  if (!Number.isFinite(start)) return '';
  const end = Date.parse(o.status?.completionTime ?? '');
  return humanDuration((Number.isFinite(end) ? end : now) - start);
}

function images(o: KubeObject): string {
  return containersOf(o)
    .map((c) => c.image)
    .join(',');
}

function names(o: KubeObject): string {
  return containersOf(o)
    .map((c) => c.name)
    .join(',');
}

const meta = (o: KubeObject) => o.metadata ?? {};

export const RESOURCES: readonly ResourceDef[] = [
  {
    group: '',
    version: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    singular: 'namespace',
    namespaced: false,
    shortNames: ['ns'],
    categories: [],
    fields: { 'status.phase': (o) => o.status?.phase },
    columns: [nameCol, col('Status'), col('Age')],
    row: (o, now) => [meta(o).name, o.status?.phase ?? 'Active', age(o, now)],
  },
  {
    group: '',
    version: 'v1',
    kind: 'Node',
    plural: 'nodes',
    singular: 'node',
    namespaced: false,
    shortNames: ['no'],
    categories: [],
    fields: { 'spec.unschedulable': (o) => String(o.spec?.unschedulable === true) },
    columns: [
      nameCol,
      col('Status'),
      col('Roles'),
      col('Age'),
      col('Version'),
      col('Internal-IP', 'string', 1),
      col('External-IP', 'string', 1),
      col('OS-Image', 'string', 1),
      col('Kernel-Version', 'string', 1),
      col('Container-Runtime', 'string', 1),
    ],
    row: (o, now) => {
      const info = o.status?.nodeInfo ?? {};
      return [
        meta(o).name,
        nodeStatus(o),
        nodeRoles(o),
        age(o, now),
        info.kubeletVersion ?? '',
        addr(o, 'InternalIP'),
        addr(o, 'ExternalIP'),
        orNone(info.osImage),
        orNone(info.kernelVersion),
        orNone(info.containerRuntimeVersion),
      ];
    },
  },
  {
    group: '',
    version: 'v1',
    kind: 'Pod',
    plural: 'pods',
    singular: 'pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    fields: {
      'spec.nodeName': (o) => o.spec?.nodeName ?? '',
      'spec.restartPolicy': (o) => o.spec?.restartPolicy,
      'spec.schedulerName': (o) => o.spec?.schedulerName,
      'spec.serviceAccountName': (o) => o.spec?.serviceAccountName,
      'spec.hostNetwork': (o) => String(o.spec?.hostNetwork === true),
      'status.phase': (o) => o.status?.phase,
      'status.podIP': (o) => o.status?.podIP ?? '',
      'status.nominatedNodeName': (o) => o.status?.nominatedNodeName ?? '',
    },
    columns: [
      nameCol,
      col('Ready'),
      col('Status'),
      col('Restarts'),
      col('Age'),
      col('IP', 'string', 1),
      col('Node', 'string', 1),
      col('Nominated Node', 'string', 1),
      col('Readiness Gates', 'string', 1),
    ],
    row: (o, now) => [meta(o).name, podReady(o), podStatusText(o), podRestarts(o), age(o, now), orNone(o.status?.podIP), orNone(o.spec?.nodeName), '<none>', '<none>'],
  },
  {
    group: '',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    singular: 'event',
    namespaced: true,
    shortNames: ['ev'],
    categories: [],
    fields: {
      'involvedObject.kind': (o) => o.involvedObject?.kind,
      'involvedObject.namespace': (o) => o.involvedObject?.namespace ?? '',
      'involvedObject.name': (o) => o.involvedObject?.name,
      'involvedObject.uid': (o) => o.involvedObject?.uid,
      'involvedObject.apiVersion': (o) => o.involvedObject?.apiVersion,
      'involvedObject.resourceVersion': (o) => o.involvedObject?.resourceVersion,
      'involvedObject.fieldPath': (o) => o.involvedObject?.fieldPath ?? '',
      reason: (o) => o.reason,
      reportingComponent: (o) => o.reportingComponent ?? '',
      source: (o) => o.source?.component ?? '',
      type: (o) => o.type,
    },
    columns: [
      col('Last Seen'),
      col('Type'),
      col('Reason'),
      col('Object'),
      col('Subobject', 'string', 1),
      col('Source', 'string', 1),
      col('Message'),
      col('First Seen', 'string', 1),
      col('Count', 'string', 1),
      col('Name', 'string', 1),
    ],
    row: (o, now) => [
      since(o.lastTimestamp ?? o.eventTime ?? meta(o).creationTimestamp, now),
      o.type ?? '',
      o.reason ?? '',
      `${String(o.involvedObject?.kind ?? '').toLowerCase()}/${o.involvedObject?.name ?? ''}`,
      o.involvedObject?.fieldPath ?? '',
      [o.source?.component, o.source?.host].filter(Boolean).join(', '),
      o.message ?? '',
      since(o.firstTimestamp ?? o.eventTime ?? meta(o).creationTimestamp, now),
      String(o.count ?? 1),
      meta(o).name,
    ],
  },
  {
    group: '',
    version: 'v1',
    kind: 'Service',
    plural: 'services',
    singular: 'service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    fields: { 'spec.clusterIP': (o) => o.spec?.clusterIP, 'spec.type': (o) => o.spec?.type },
    columns: [nameCol, col('Type'), col('Cluster-IP'), col('External-IP'), col('Port(s)'), col('Age'), col('Selector', 'string', 1)],
    row: (o, now) => [
      meta(o).name,
      o.spec?.type ?? 'ClusterIP',
      orNone(o.spec?.clusterIP),
      orNone((o.status?.loadBalancer?.ingress ?? []).map((i: KubeObject) => i.ip).join(',') || (o.spec?.externalIPs ?? []).join(',')),
      servicePorts(o),
      age(o, now),
      Object.entries(o.spec?.selector ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(',') || '<none>',
    ],
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    plural: 'deployments',
    singular: 'deployment',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    fields: {},
    columns: [nameCol, col('Ready'), col('Up-to-date', 'integer'), col('Available', 'integer'), col('Age'), col('Containers', 'string', 1), col('Images', 'string', 1), col('Selector', 'string', 1)],
    row: (o, now) => [
      meta(o).name,
      `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 0}`,
      o.status?.updatedReplicas ?? 0,
      o.status?.availableReplicas ?? 0,
      age(o, now),
      names(o),
      images(o),
      selectorText(o.spec?.selector),
    ],
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'DaemonSet',
    plural: 'daemonsets',
    singular: 'daemonset',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    fields: {},
    columns: [
      nameCol,
      col('Desired', 'integer'),
      col('Current', 'integer'),
      col('Ready', 'integer'),
      col('Up-to-date', 'integer'),
      col('Available', 'integer'),
      col('Node Selector'),
      col('Age'),
      col('Containers', 'string', 1),
      col('Images', 'string', 1),
      col('Selector', 'string', 1),
    ],
    row: (o, now) => [
      meta(o).name,
      o.status?.desiredNumberScheduled ?? 0,
      o.status?.currentNumberScheduled ?? 0,
      o.status?.numberReady ?? 0,
      o.status?.updatedNumberScheduled ?? 0,
      o.status?.numberAvailable ?? 0,
      Object.entries(o.spec?.template?.spec?.nodeSelector ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(',') || '<none>',
      age(o, now),
      names(o),
      images(o),
      selectorText(o.spec?.selector),
    ],
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'StatefulSet',
    plural: 'statefulsets',
    singular: 'statefulset',
    namespaced: true,
    shortNames: ['sts'],
    categories: ['all'],
    fields: {},
    columns: [nameCol, col('Ready'), col('Age'), col('Containers', 'string', 1), col('Images', 'string', 1)],
    row: (o, now) => [meta(o).name, `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 0}`, age(o, now), names(o), images(o)],
  },
  {
    group: 'batch',
    version: 'v1',
    kind: 'Job',
    plural: 'jobs',
    singular: 'job',
    namespaced: true,
    shortNames: [],
    categories: ['all'],
    fields: { 'status.successful': (o) => String(o.status?.succeeded ?? 0) },
    columns: [nameCol, col('Status'), col('Completions'), col('Duration'), col('Age'), col('Containers', 'string', 1), col('Images', 'string', 1), col('Selector', 'string', 1)],
    row: (o, now) => [
      meta(o).name,
      jobStatus(o),
      `${o.status?.succeeded ?? 0}/${o.spec?.completions ?? 1}`,
      jobDuration(o, now),
      age(o, now),
      names(o),
      images(o),
      selectorText(o.spec?.selector),
    ],
  },
  {
    group: 'discovery.k8s.io',
    version: 'v1',
    kind: 'EndpointSlice',
    plural: 'endpointslices',
    singular: 'endpointslice',
    namespaced: true,
    shortNames: [],
    categories: [],
    fields: { addressType: (o) => o.addressType },
    columns: [nameCol, col('AddressType'), col('Ports'), col('Endpoints'), col('Age')],
    row: (o, now) => {
      const addrs = (o.endpoints ?? []).flatMap((e: KubeObject) => e.addresses ?? []);
      const shown = addrs.slice(0, 3).join(',') + (addrs.length > 3 ? ` + ${addrs.length - 3} more...` : '');
      const ports = (o.ports ?? []).map((p: KubeObject) => String(p.port)).join(',');
      return [meta(o).name, o.addressType ?? 'IPv4', ports || '<unset>', shown || '<unset>', age(o, now)];
    },
  },
];

/** `apps/v1`, or `v1` for the core group. */
export function groupVersion(def: ResourceDef): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

export function resourceKey(def: ResourceDef): string {
  return `${groupVersion(def)}/${def.plural}`;
}

export const VERBS = ['get', 'list', 'watch'];
