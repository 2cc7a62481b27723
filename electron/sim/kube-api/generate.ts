import clusterEffects from '../scenarios/cluster-effects.json';
import { LINUX_PROFILES, WINDOWS_PROFILES, windowsImageTag, type OsProfile } from './node-profiles';
import type { SimItem, SimObjectStore } from './object-store';
import type { KubeObject } from './resources';

/**
 * Builds a simulated mixed cluster into the object store: nodes, the system DaemonSets, workloads, their pods,
 * Services, EndpointSlices and events. Everything is derived from indexes with a stable hash, so an object
 * renders the same every time it is served, and nothing is kept per object but a small item.
 *
 * Addresses (DESIGN.md section 9): everything is in 127.0.0.0/8. Windows node i has InternalIP
 * 127.0.(10 + i div 240).(11 + i mod 240) (win-1 = 127.0.10.11); Linux nodes 127.1.x.y; pod CIDRs are /24s of
 * 127.64.0.0/10; Service IPs come from 127.128.0.0/16 (DNS 127.128.0.10).
 */

export const SIM_CLUSTER_CIDR = '127.64.0.0/10';
export const SIM_SERVICE_CIDR = '127.128.0.0/16';
export const SIM_DNS_SERVICE_IP = '127.128.0.10';
export const SIMULATED_LABEL = 'windeck.io/simulated';

export interface WindowsNodeOverride {
  name?: string;
  internalIP?: string;
  osImage?: string;
  kernelVersion?: string;
  containerRuntimeVersion?: string;
  /** Windows node scenario name (electron/sim/scenarios); its cluster-side effects apply to this node. */
  scenario?: string;
  /** Carry the `os=windows:NoSchedule` taint (default true except the last Windows node of the demo). */
  tainted?: boolean;
}

export interface ClusterSpec {
  nodes: number;
  windows: number;
  /** Total pods to aim for; default: the demo workload set. */
  pods?: number;
  kubernetesVersion?: string;
  /** `demo`: a small set of workloads with planted problems; `scale`: many uniform deployments. */
  workloads?: 'demo' | 'scale';
  windowsNodes?: WindowsNodeOverride[];
  /** Epoch ms the cluster "was created". */
  createdAt?: number;
}

export interface SimNodeInfo {
  name: string;
  os: 'windows' | 'linux';
  internalIP: string;
  podCIDR: string;
  scenario: string | null;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  tainted: boolean;
}

export interface GeneratedCluster {
  kubernetesVersion: string;
  nodes: SimNodeInfo[];
  clusterCidr: string;
  serviceCidr: string;
  dnsServiceIp: string;
  counts: Record<string, number>;
}

interface ScenarioEffect {
  ready?: { status: string; reason: string; message: string };
  podWaitingReason?: string;
  events?: Array<{ on: 'pod' | 'node'; type: string; reason: string; message: string }>;
}

const EFFECTS = (clusterEffects as { effects: Record<string, ScenarioEffect> }).effects;

/** Cluster-side effects of a Windows node scenario (empty when it has none). */
export function scenarioEffect(name: string | null | undefined): ScenarioEffect {
  return (name && EFFECTS[name]) || {};
}

function fnv(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function hex8(n: number): string {
  return n.toString(16).padStart(8, '0');
}

/** A stable UUID-shaped id from a string. */
export function stableUid(s: string): string {
  const a = fnv(s);
  const b = fnv(s, a);
  const c = fnv(s, b);
  const d = fnv(s, c);
  const h = hex8(a) + hex8(b) + hex8(c) + hex8(d);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const SUFFIX = 'bcdfghjklmnpqrstvwxz2456789';

function suffix(s: string, n: number): string {
  let h = fnv(s);
  let out = '';
  for (let i = 0; i < n; i++) {
    out += SUFFIX[h % SUFFIX.length];
    h = Math.floor(h / SUFFIX.length) || fnv(s + out);
  }
  return out;
}

function iso(ms: number): string {
  const t = new Date(ms).toISOString();
  return `${t.slice(0, 19)}Z`;
}

export function windowsNodeIp(i: number): string {
  return `127.0.${10 + Math.floor(i / 240)}.${11 + (i % 240)}`;
}

export function linuxNodeIp(i: number): string {
  return `127.1.${Math.floor(i / 240)}.${11 + (i % 240)}`;
}

function podCidr(g: number): string {
  return `127.${64 + Math.floor(g / 256)}.${g % 256}.0/24`;
}

function podIp(cidr: string, k: number): string {
  const base = cidr.split('/')[0]!.split('.');
  return `${base[0]}.${base[1]}.${base[2]}.${2 + (k % 250)}`;
}

function serviceIp(n: number): string {
  // .0.1 is the kubernetes Service, .0.10 DNS; the rest count up from .1.0.
  return `127.128.${1 + Math.floor(n / 250)}.${1 + (n % 250)}`;
}

interface NodeGen extends SimNodeInfo {
  index: number;
  createdAt: number;
  profile: OsProfile;
  ready: { status: string; reason: string; message: string };
  controlPlane: boolean;
  podCount: number;
}

interface ContainerGen {
  name: string;
  image: string;
  port?: number;
  securityContext?: KubeObject;
}

interface WorkloadGen {
  kind: 'Deployment' | 'DaemonSet' | 'StatefulSet' | 'Job';
  namespace: string;
  name: string;
  os: 'windows' | 'linux' | null;
  replicas: number;
  createdAt: number;
  labels: Record<string, string>;
  containers: ContainerGen[];
  podSpecExtra: KubeObject;
  /** Nodes the pods were placed on (for DaemonSets: all matching nodes). */
  placed: number;
  ready: number;
  hash: string;
  service?: { name: string; ip: string; port: number; sessionAffinity?: boolean; type?: string };
}

interface PodData {
  w: WorkloadGen;
  i: number;
  node: NodeGen;
  k: number;
}

const WINDOWS_TOLERATION = { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' };

function nodeObject(n: NodeGen, kubernetesVersion: string): KubeObject {
  const windows = n.os === 'windows';
  const build = windows ? n.kernelVersion.split('.').slice(0, 3).join('.') : null;
  const tag = windows ? windowsImageTag(n.kernelVersion) : null;
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': n.os,
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': n.name,
    'kubernetes.io/os': n.os,
    'node.kubernetes.io/instance-type': windows ? 'Standard_D4s_v3' : 'Standard_D2s_v3',
    [SIMULATED_LABEL]: 'true',
  };
  if (build) labels['node.kubernetes.io/windows-build'] = build;
  if (n.controlPlane) labels['node-role.kubernetes.io/control-plane'] = '';
  const t = iso(n.createdAt);
  const heartbeat = iso(n.createdAt + 60_000);
  const images = windows
    ? [
        { names: ['mcr.microsoft.com/windows/servercore@sha256:' + hex8(fnv(tag! + 'sc')).repeat(8), `mcr.microsoft.com/windows/servercore:${tag}`], sizeBytes: 2_370_981_113 },
        { names: ['mcr.microsoft.com/windows/nanoserver@sha256:' + hex8(fnv(tag! + 'ns')).repeat(8), `mcr.microsoft.com/windows/nanoserver:${tag}`], sizeBytes: 120_432_117 },
        { names: ['mcr.microsoft.com/oss/kubernetes/pause@sha256:' + hex8(fnv('pause3.9')).repeat(8), 'mcr.microsoft.com/oss/kubernetes/pause:3.9'], sizeBytes: 127_380_401 },
        { names: [`sigwindowstools/kube-proxy:${kubernetesVersion}-flannel-hostprocess`], sizeBytes: 64_201_347 },
        { names: ['sigwindowstools/flannel:v0.26.1-hostprocess'], sizeBytes: 58_921_230 },
      ]
    : [
        { names: [`registry.k8s.io/kube-proxy:${kubernetesVersion}`], sizeBytes: 30_231_455 },
        { names: ['docker.io/flannel/flannel:v0.26.1'], sizeBytes: 32_710_112 },
        { names: ['registry.k8s.io/pause:3.10'], sizeBytes: 320_368 },
      ];
  const conditions = [
    { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: heartbeat, lastTransitionTime: t, reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
    { type: 'DiskPressure', status: 'False', lastHeartbeatTime: heartbeat, lastTransitionTime: t, reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
    { type: 'PIDPressure', status: 'False', lastHeartbeatTime: heartbeat, lastTransitionTime: t, reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
    { type: 'Ready', status: n.ready.status, lastHeartbeatTime: heartbeat, lastTransitionTime: t, reason: n.ready.reason, message: n.ready.message },
  ];
  return {
    kind: 'Node',
    apiVersion: 'v1',
    metadata: {
      name: n.name,
      uid: stableUid(`node/${n.name}`),
      creationTimestamp: t,
      labels,
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        'windeck.io/simulated': 'This node is simulated by Windeck (electron/sim/kube-api); it is not a real machine.',
      },
    },
    spec: {
      podCIDR: n.podCIDR,
      podCIDRs: [n.podCIDR],
      providerID: `windeck-sim://${n.name}`,
      ...(n.tainted ? { taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] } : {}),
      ...(n.controlPlane ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] } : {}),
    },
    status: {
      capacity: { cpu: windows ? '4' : '2', 'ephemeral-storage': '133703676Ki', memory: windows ? '16776756Ki' : '8141112Ki', pods: '110' },
      allocatable: { cpu: windows ? '4' : '2', 'ephemeral-storage': '123220117626', memory: windows ? '14167604Ki' : '8038712Ki', pods: '110' },
      conditions,
      addresses: [
        { type: 'InternalIP', address: n.internalIP },
        { type: 'Hostname', address: n.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: windows ? `WIN-${suffix(n.name, 11).toUpperCase()}` : hex8(fnv(n.name)).repeat(4),
        systemUUID: stableUid(`system/${n.name}`).toUpperCase(),
        bootID: windows ? '' : stableUid(`boot/${n.name}`),
        kernelVersion: n.kernelVersion,
        osImage: n.osImage,
        containerRuntimeVersion: n.containerRuntimeVersion,
        kubeletVersion: kubernetesVersion,
        kubeProxyVersion: kubernetesVersion,
        operatingSystem: n.os,
        architecture: 'amd64',
      },
      images,
    },
  };
}

const templateCache = new WeakMap<WorkloadGen, KubeObject>();

/** The pod spec of a workload's template. Shared (not copied) by every pod rendered from it: rendered objects are
 * only serialized, and the store clones before it changes one. */
function podTemplateSpec(w: WorkloadGen): KubeObject {
  const cached = templateCache.get(w);
  if (cached) return cached;
  const spec: KubeObject = {
    containers: w.containers.map((c) => ({
      name: c.name,
      image: c.image,
      ...(c.port ? { ports: [{ containerPort: c.port, protocol: 'TCP' }] } : {}),
      resources: { requests: { cpu: '100m', memory: '128Mi' } },
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      imagePullPolicy: 'IfNotPresent',
      ...(c.securityContext ? { securityContext: c.securityContext } : {}),
    })),
    restartPolicy: w.kind === 'Job' ? 'Never' : 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    securityContext: {},
    schedulerName: 'default-scheduler',
    ...w.podSpecExtra,
  };
  if (w.os) spec.nodeSelector = { ...(spec.nodeSelector ?? {}), 'kubernetes.io/os': w.os };
  if (w.os === 'windows') spec.tolerations = [...(spec.tolerations ?? []), WINDOWS_TOLERATION];
  templateCache.set(w, spec);
  return spec;
}

function ownerOf(w: WorkloadGen): { kind: string; name: string; apiVersion: string } {
  if (w.kind === 'Deployment') return { kind: 'ReplicaSet', name: `${w.name}-${w.hash}`, apiVersion: 'apps/v1' };
  if (w.kind === 'Job') return { kind: 'Job', name: w.name, apiVersion: 'batch/v1' };
  return { kind: w.kind, name: w.name, apiVersion: 'apps/v1' };
}

function podName(w: WorkloadGen, i: number, node: NodeGen): string {
  if (w.kind === 'StatefulSet') return `${w.name}-${i}`;
  if (w.kind === 'DaemonSet') return `${w.name}-${suffix(`${w.namespace}/${w.name}/${node.name}`, 5)}`;
  if (w.kind === 'Job') return `${w.name}-${suffix(`${w.namespace}/${w.name}/${i}`, 5)}`;
  return `${w.name}-${w.hash}-${suffix(`${w.namespace}/${w.name}/${i}`, 5)}`;
}

/** Does a Linux image land on a Windows node (a workload without OS selector)? Then it cannot start. */
function wrongOs(w: WorkloadGen, node: NodeGen): boolean {
  return w.os === null && node.os === 'windows' && !w.containers.some((c) => c.image.includes('mcr.microsoft.com/windows'));
}

const ownerUids = new WeakMap<WorkloadGen, string>();

function ownerUid(w: WorkloadGen, owner: { kind: string; name: string }): string {
  let uid = ownerUids.get(w);
  if (!uid) {
    uid = stableUid(`${owner.kind}/${w.namespace}/${owner.name}`);
    ownerUids.set(w, uid);
  }
  return uid;
}

function renderPod(item: SimItem): KubeObject {
  const { w, i, node, k } = item.data as PodData;
  const owner = ownerOf(w);
  const name = item.name;
  const created = Math.max(w.createdAt, node.createdAt) + 120_000 + (i % 600) * 1000;
  const effect = node.os === 'windows' ? scenarioEffect(node.scenario) : {};
  const hostProcess = w.podSpecExtra.hostNetwork === true && node.os === 'windows';
  const podNetworkBroken = effect.podWaitingReason && !hostProcess && w.podSpecExtra.hostNetwork !== true;
  const imageWrong = wrongOs(w, node);
  const waitingReason = podNetworkBroken ? effect.podWaitingReason! : imageWrong ? 'ErrImagePull' : w.kind === 'Job' ? null : null;
  const completed = w.kind === 'Job';
  const ip = w.podSpecExtra.hostNetwork === true ? node.internalIP : podNetworkBroken ? undefined : podIp(node.podCIDR, k);
  const createdText = iso(created);
  const started = iso(created + 5_000);
  const labels: Record<string, string> = { ...w.labels };
  if (w.kind === 'Deployment') labels['pod-template-hash'] = w.hash;
  if (w.kind === 'DaemonSet') labels['controller-revision-hash'] = w.hash;
  if (w.kind === 'StatefulSet') labels['statefulset.kubernetes.io/pod-name'] = name;
  const ready = !waitingReason && !completed;
  const containerStatuses = w.containers.map((c) => ({
    name: c.name,
    image: c.image,
    imageID: waitingReason ? '' : `${c.image.split(':')[0]}@sha256:${hex8(fnv(c.image)).repeat(8)}`,
    containerID: waitingReason ? undefined : `containerd://${hex8(fnv(name + c.name)).repeat(8)}`,
    ready,
    started: ready,
    restartCount: imageWrong ? 0 : (fnv(name) % 17 === 0 ? 1 : 0),
    state: waitingReason
      ? { waiting: { reason: waitingReason, ...(imageWrong ? { message: `failed to pull and unpack image "${c.image}": no matching manifest for windows/amd64 10.0.${node.kernelVersion.split('.')[2]} in the manifest list entries` } : {}) } }
      : completed
        ? { terminated: { exitCode: 0, reason: 'Completed', startedAt: started, finishedAt: iso(created + 65_000), containerID: `containerd://${hex8(fnv(name)).repeat(8)}` } }
        : { running: { startedAt: started } },
    lastState: {},
  }));
  for (const s of containerStatuses) if (s.containerID === undefined) delete (s as KubeObject).containerID;
  const phase = waitingReason ? 'Pending' : completed ? 'Succeeded' : 'Running';
  const condTime = started;
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name,
      ...(w.kind === 'Deployment' || w.kind === 'DaemonSet' || w.kind === 'Job' ? { generateName: name.slice(0, name.length - 5) } : {}),
      namespace: w.namespace,
      uid: stableUid(`pod/${w.namespace}/${name}`),
      creationTimestamp: createdText,
      labels,
      ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: ownerUid(w, owner), controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      ...podTemplateSpec(w),
      nodeName: node.name,
      serviceAccountName: 'default',
      serviceAccount: 'default',
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
      priority: 0,
    },
    status: {
      phase,
      conditions: [
        { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: createdText },
        { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: condTime },
        { type: 'ContainersReady', status: ready ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: condTime, ...(ready ? {} : { reason: 'ContainersNotReady' }) },
        { type: 'Ready', status: ready ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: condTime, ...(ready ? {} : { reason: 'ContainersNotReady' }) },
      ],
      hostIP: node.internalIP,
      hostIPs: [{ ip: node.internalIP }],
      ...(ip ? { podIP: ip, podIPs: [{ ip }] } : {}),
      startTime: createdText,
      containerStatuses,
      qosClass: 'Burstable',
    },
  };
}

function renderWorkload(item: SimItem): KubeObject {
  const w = item.data as WorkloadGen;
  const apiVersion = w.kind === 'Job' ? 'batch/v1' : 'apps/v1';
  const selector = { matchLabels: { ...w.labels } };
  const template = { metadata: { labels: { ...w.labels } }, spec: podTemplateSpec(w) };
  const meta = {
    name: w.name,
    namespace: w.namespace,
    uid: stableUid(`${w.kind}/${w.namespace}/${w.name}`),
    generation: 1,
    creationTimestamp: iso(w.createdAt),
    labels: { ...w.labels },
    annotations: w.kind === 'Deployment' ? { 'deployment.kubernetes.io/revision': '1' } : {},
  };
  const common = { kind: w.kind, apiVersion, metadata: meta };
  switch (w.kind) {
    case 'Deployment':
      return {
        ...common,
        spec: { replicas: w.replicas, selector, template, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } }, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 },
        status: { observedGeneration: 1, replicas: w.replicas, updatedReplicas: w.replicas, readyReplicas: w.ready, availableReplicas: w.ready, ...(w.replicas > w.ready ? { unavailableReplicas: w.replicas - w.ready } : {}) },
      };
    case 'DaemonSet':
      return {
        ...common,
        spec: { selector, template, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, revisionHistoryLimit: 10 },
        status: {
          currentNumberScheduled: w.placed,
          desiredNumberScheduled: w.placed,
          numberMisscheduled: 0,
          numberReady: w.ready,
          updatedNumberScheduled: w.placed,
          numberAvailable: w.ready,
          ...(w.placed > w.ready ? { numberUnavailable: w.placed - w.ready } : {}),
          observedGeneration: 1,
        },
      };
    case 'StatefulSet':
      return {
        ...common,
        spec: { replicas: w.replicas, selector, template, serviceName: w.name, podManagementPolicy: 'OrderedReady', updateStrategy: { type: 'RollingUpdate' } },
        status: { replicas: w.replicas, readyReplicas: w.ready, currentReplicas: w.replicas, updatedReplicas: w.replicas, availableReplicas: w.ready, observedGeneration: 1 },
      };
    case 'Job':
      return {
        ...common,
        spec: { completions: w.replicas, parallelism: 1, backoffLimit: 6, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': meta.uid } }, template },
        status: {
          startTime: iso(w.createdAt),
          completionTime: iso(w.createdAt + 65_000),
          succeeded: w.replicas,
          ready: 0,
          conditions: [{ type: 'Complete', status: 'True', lastProbeTime: iso(w.createdAt + 65_000), lastTransitionTime: iso(w.createdAt + 65_000) }],
        },
      };
  }
}

interface ServiceData {
  w: WorkloadGen | null;
  name: string;
  namespace: string;
  ip: string;
  port: number;
  createdAt: number;
  selector: Record<string, string> | null;
  sessionAffinity?: boolean;
  type?: string;
}

function renderService(item: SimItem): KubeObject {
  const s = item.data as ServiceData;
  return {
    kind: 'Service',
    apiVersion: 'v1',
    metadata: { name: s.name, namespace: s.namespace, uid: stableUid(`svc/${s.namespace}/${s.name}`), creationTimestamp: iso(s.createdAt), labels: s.selector ? { ...s.selector } : { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: s.type ?? 'ClusterIP',
      clusterIP: s.ip,
      clusterIPs: [s.ip],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
      ports: [{ name: s.port === 53 ? 'dns' : 'http', port: s.port, protocol: s.port === 53 ? 'UDP' : 'TCP', targetPort: s.port === 443 ? 6443 : s.port }],
      ...(s.selector ? { selector: { ...s.selector } } : {}),
      sessionAffinity: s.sessionAffinity ? 'ClientIP' : 'None',
      ...(s.sessionAffinity ? { sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } } } : {}),
    },
    status: { loadBalancer: {} },
  };
}

interface SliceData {
  svc: ServiceData;
  pods: Array<{ ip: string; node: string; name: string; ready: boolean }>;
}

function renderSlice(item: SimItem): KubeObject {
  const { svc, pods } = item.data as SliceData;
  return {
    kind: 'EndpointSlice',
    apiVersion: 'discovery.k8s.io/v1',
    metadata: {
      name: item.name,
      namespace: svc.namespace,
      uid: stableUid(`eps/${svc.namespace}/${item.name}`),
      creationTimestamp: iso(svc.createdAt + 1000),
      generateName: `${svc.name}-`,
      labels: { 'kubernetes.io/service-name': svc.name, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: svc.name, uid: stableUid(`svc/${svc.namespace}/${svc.name}`), controller: true, blockOwnerDeletion: true }],
    },
    addressType: 'IPv4',
    endpoints: pods.map((p) => ({
      addresses: [p.ip],
      conditions: { ready: p.ready, serving: p.ready, terminating: false },
      nodeName: p.node,
      targetRef: { kind: 'Pod', namespace: svc.namespace, name: p.name, uid: stableUid(`pod/${svc.namespace}/${p.name}`) },
    })),
    ports: [{ name: svc.port === 53 ? 'dns' : 'http', port: svc.port === 443 ? 6443 : svc.port, protocol: svc.port === 53 ? 'UDP' : 'TCP' }],
  };
}

interface EventData {
  namespace: string;
  kind: string;
  objName: string;
  objNamespace: string;
  type: string;
  reason: string;
  message: string;
  at: number;
  count: number;
  host: string;
}

function renderEvent(item: SimItem): KubeObject {
  const e = item.data as EventData;
  return {
    kind: 'Event',
    apiVersion: 'v1',
    metadata: { name: item.name, namespace: e.namespace, uid: stableUid(`event/${e.namespace}/${item.name}`), creationTimestamp: iso(e.at) },
    involvedObject: {
      kind: e.kind,
      name: e.objName,
      ...(e.objNamespace ? { namespace: e.objNamespace } : {}),
      apiVersion: 'v1',
      uid: stableUid(e.kind === 'Node' ? `node/${e.objName}` : `pod/${e.objNamespace}/${e.objName}`),
    },
    reason: e.reason,
    message: e.message,
    source: { component: 'kubelet', host: e.host },
    firstTimestamp: iso(e.at - (e.count - 1) * 30_000),
    lastTimestamp: iso(e.at),
    count: e.count,
    type: e.type,
    eventTime: null,
    reportingComponent: 'kubelet',
    reportingInstance: e.host,
  };
}

function renderNamespace(item: SimItem): KubeObject {
  const at = item.data as number;
  return {
    kind: 'Namespace',
    apiVersion: 'v1',
    metadata: { name: item.name, uid: stableUid(`ns/${item.name}`), creationTimestamp: iso(at), labels: { 'kubernetes.io/metadata.name': item.name } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

function workload(kind: WorkloadGen['kind'], namespace: string, name: string, os: WorkloadGen['os'], replicas: number, createdAt: number, containers: ContainerGen[], podSpecExtra: KubeObject = {}, extra: Partial<WorkloadGen> = {}): WorkloadGen {
  return { kind, namespace, name, os, replicas, createdAt, labels: { app: name }, containers, podSpecExtra, placed: 0, ready: 0, hash: suffix(`${namespace}/${name}/hash`, 10), ...extra };
}

/** Fill `store` with a cluster per `spec`. Returns the node layout (for the demo and the Windows node simulators). */
export function generateCluster(store: SimObjectStore, spec: ClusterSpec): GeneratedCluster {
  const kubernetesVersion = spec.kubernetesVersion ?? 'v1.32.4';
  const now = store.now();
  const created = spec.createdAt ?? now - 30 * 24 * 3600_000;
  const total = Math.max(0, Math.floor(spec.nodes));
  const windowsCount = Math.min(total, Math.max(0, Math.floor(spec.windows)));
  const linuxCount = total - windowsCount;

  // Nodes.
  const nodes: NodeGen[] = [];
  for (let i = 0; i < linuxCount; i++) {
    const profile = LINUX_PROFILES[i % LINUX_PROFILES.length]!;
    const name = i === 0 ? 'linux-cp-1' : `linux-${i}`;
    nodes.push({
      index: nodes.length,
      name,
      os: 'linux',
      internalIP: linuxNodeIp(i),
      podCIDR: podCidr(nodes.length),
      scenario: null,
      kernelVersion: profile.kernelVersion,
      osImage: profile.osImage,
      containerRuntimeVersion: profile.containerRuntimeVersion,
      tainted: false,
      createdAt: created + i * 45_000,
      profile,
      ready: { status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
      controlPlane: i === 0,
      podCount: 0,
    });
  }
  const demo = (spec.workloads ?? 'demo') === 'demo';
  for (let i = 0; i < windowsCount; i++) {
    const o = spec.windowsNodes?.[i] ?? {};
    // The scale fleet rotates through the real-sample profiles; the demo uses Server 2022 unless told otherwise.
    const profile = demo ? WINDOWS_PROFILES[4]! : WINDOWS_PROFILES[i % WINDOWS_PROFILES.length]!;
    const effect = scenarioEffect(o.scenario);
    const tainted = o.tainted ?? !(demo && windowsCount >= 2 && i === windowsCount - 1);
    nodes.push({
      index: nodes.length,
      name: o.name ?? `win-${i + 1}`,
      os: 'windows',
      internalIP: o.internalIP ?? windowsNodeIp(i),
      podCIDR: podCidr(nodes.length),
      scenario: o.scenario ?? null,
      kernelVersion: o.kernelVersion ?? profile.kernelVersion,
      osImage: o.osImage ?? profile.osImage,
      containerRuntimeVersion: o.containerRuntimeVersion ?? profile.containerRuntimeVersion,
      tainted,
      createdAt: created + (linuxCount + i) * 45_000 + 600_000,
      profile,
      ready: effect.ready ?? { status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
      controlPlane: false,
      podCount: 0,
    });
  }
  const linuxNodes = nodes.filter((n) => n.os === 'linux');
  const linuxWorkers = linuxNodes.filter((n) => !n.controlPlane);
  const linuxTargets = linuxWorkers.length > 0 ? linuxWorkers : linuxNodes;
  const windowsNodes = nodes.filter((n) => n.os === 'windows');

  // Workloads.
  const workloads: WorkloadGen[] = [];
  const wAt = created + 300_000;
  const hostProcess = { hostNetwork: true, securityContext: { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\system' } } };
  workloads.push(workload('DaemonSet', 'kube-system', 'kube-proxy', 'linux', 0, wAt, [{ name: 'kube-proxy', image: `registry.k8s.io/kube-proxy:${kubernetesVersion}`, securityContext: { privileged: true } }], { hostNetwork: true, priorityClassName: 'system-node-critical', tolerations: [{ operator: 'Exists' }] }));
  workloads.push(workload('DaemonSet', 'kube-flannel', 'kube-flannel-ds', 'linux', 0, wAt, [{ name: 'kube-flannel', image: 'docker.io/flannel/flannel:v0.26.1', securityContext: { privileged: false, capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } } }], { hostNetwork: true, priorityClassName: 'system-node-critical', tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }] }));
  workloads.push(workload('DaemonSet', 'kube-system', 'kube-proxy-windows', 'windows', 0, wAt, [{ name: 'kube-proxy', image: `sigwindowstools/kube-proxy:${kubernetesVersion}-flannel-hostprocess` }], hostProcess));
  workloads.push(workload('DaemonSet', 'kube-flannel', 'kube-flannel-ds-windows-amd64', 'windows', 0, wAt, [{ name: 'kube-flannel', image: 'sigwindowstools/flannel:v0.26.1-hostprocess' }], hostProcess));
  if (linuxNodes.length > 0) workloads.push(workload('Deployment', 'kube-system', 'coredns', 'linux', 2, wAt, [{ name: 'coredns', image: 'registry.k8s.io/coredns/coredns:v1.11.3', port: 53 }], { priorityClassName: 'system-cluster-critical', tolerations: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] }, { labels: { 'k8s-app': 'kube-dns' } }));

  const appAt = created + 3 * 24 * 3600_000;
  if (demo) {
    if (windowsNodes.length > 0) {
      const ws = workload('Deployment', 'default', 'win-webserver', 'windows', windowsNodes.length, appAt, [{ name: 'windowswebserver', image: 'mcr.microsoft.com/windows/servercore:ltsc2022', port: 80 }]);
      ws.service = { name: 'win-webserver', ip: serviceIp(1), port: 80, sessionAffinity: true, type: 'NodePort' };
      workloads.push(ws);
    }
    if (linuxNodes.length > 0) {
      const web = workload('Deployment', 'default', 'web', 'linux', 2, appAt, [{ name: 'nginx', image: 'docker.io/library/nginx:1.27', port: 80 }]);
      web.service = { name: 'web', ip: serviceIp(2), port: 80 };
      workloads.push(web);
      // No OS selector, Linux-only settings: lands on the untainted Windows node too (see samples/nodes acs-engine).
      workloads.push(workload('Deployment', 'default', 'legacy-api', null, 3, appAt, [{ name: 'api', image: 'ghcr.io/example/legacy-api:2.4.1', port: 8080, securityContext: { runAsUser: 1000, readOnlyRootFilesystem: true } }], { securityContext: { fsGroup: 2000 } }));
      const fanout = workload('Deployment', 'default', 'fanout', 'linux', 66, appAt, [{ name: 'echo', image: 'registry.k8s.io/e2e-test-images/agnhost:2.52', port: 8080 }]);
      fanout.service = { name: 'fanout', ip: serviceIp(3), port: 8080 };
      workloads.push(fanout);
      workloads.push(workload('DaemonSet', 'monitoring', 'node-exporter', null, 0, appAt, [{ name: 'node-exporter', image: 'quay.io/prometheus/node-exporter:v1.8.2', port: 9100 }], { hostNetwork: true, hostPID: true, tolerations: [{ operator: 'Exists' }] }));
      workloads.push(workload('StatefulSet', 'default', 'db', 'linux', 1, appAt, [{ name: 'postgres', image: 'docker.io/library/postgres:16', port: 5432 }]));
      workloads.push(workload('Job', 'default', 'schema-migrate', 'linux', 1, appAt + 60_000, [{ name: 'migrate', image: 'ghcr.io/example/migrate:1.0' }]));
    }
  } else {
    const dsPods = linuxNodes.length * 2 + windowsNodes.length * 2 + (linuxNodes.length > 0 ? 2 : 0);
    const remaining = Math.max(0, (spec.pods ?? total * 30) - dsPods);
    const perDeployment = 10;
    const deployments = Math.ceil(remaining / perDeployment);
    const winShare = total > 0 ? windowsNodes.length / total : 0;
    let left = remaining;
    for (let d = 0; d < deployments; d++) {
      const replicas = Math.min(perDeployment, left);
      left -= replicas;
      const ns = `team-${String(Math.floor(d / 20)).padStart(3, '0')}`;
      const windows = windowsNodes.length > 0 && (linuxTargets.length === 0 || (d * 7919) % 1000 < winShare * 1000);
      const w = windows
        ? workload('Deployment', ns, `winapp-${d}`, 'windows', replicas, appAt + d * 1000, [{ name: 'app', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2019', port: 80 }])
        : workload('Deployment', ns, `app-${d}`, 'linux', replicas, appAt + d * 1000, [{ name: 'app', image: 'docker.io/library/nginx:1.27', port: 80 }]);
      w.service = { name: w.name, ip: serviceIp(10 + d), port: 80 };
      workloads.push(w);
    }
  }

  // Place pods.
  const podItems: Array<Omit<SimItem, 'key' | 'rv'>> = [];
  const sliceItems: Array<Omit<SimItem, 'key' | 'rv'>> = [];
  const serviceItems: Array<Omit<SimItem, 'key' | 'rv'>> = [];
  const eventItems: Array<Omit<SimItem, 'key' | 'rv'>> = [];
  const cursor = { windows: 0, linux: 0 };
  const nodesFor = (w: WorkloadGen): NodeGen[] => {
    if (w.os === 'windows') return windowsNodes;
    if (w.os === 'linux') return w.kind === 'DaemonSet' ? linuxNodes : linuxTargets;
    // No OS selector: Linux workers plus any Windows node without the os taint (unless tolerated).
    const tolerateAll = (w.podSpecExtra.tolerations ?? []).some((t: KubeObject) => t.operator === 'Exists' && !t.key);
    return [...(w.kind === 'DaemonSet' ? linuxNodes : linuxTargets), ...windowsNodes.filter((n) => !n.tainted || tolerateAll)];
  };
  const eventCount = { n: 0 };
  const addEvent = (e: Omit<EventData, 'count'> & { count?: number }, kind: 'pod' | 'node') => {
    const name = `${e.objName}.${hex8(fnv(`${e.objName}/${e.reason}/${eventCount.n++}`))}${hex8(fnv(e.reason))}`.slice(0, 253);
    eventItems.push({ namespace: e.namespace, name, obj: null, gen: renderEvent, data: { count: kind === 'pod' && e.type === 'Warning' ? 12 : 1, ...e } });
  };

  for (const w of workloads) {
    const targets = nodesFor(w);
    const replicas = w.kind === 'DaemonSet' ? targets.length : targets.length === 0 ? 0 : w.replicas;
    if (w.kind === 'DaemonSet') w.replicas = replicas;
    const endpoints: SliceData['pods'] = [];
    for (let i = 0; i < replicas; i++) {
      let node: NodeGen;
      if (w.kind === 'DaemonSet') node = targets[i]!;
      else if (w.os === 'windows') node = targets[cursor.windows++ % targets.length]!;
      else node = targets[cursor.linux++ % targets.length]!;
      const k = node.podCount++;
      const name = podName(w, i, node);
      podItems.push({ namespace: w.namespace, name, obj: null, gen: renderPod, nodeName: node.name, data: { w, i, node, k } satisfies PodData });
      w.placed++;
      const effect = node.os === 'windows' ? scenarioEffect(node.scenario) : {};
      const broken = (effect.podWaitingReason && w.podSpecExtra.hostNetwork !== true) || wrongOs(w, node);
      if (!broken && w.kind !== 'Job') w.ready++;
      if (w.service) endpoints.push({ ip: w.podSpecExtra.hostNetwork === true ? node.internalIP : podIp(node.podCIDR, k), node: node.name, name, ready: !broken });
      if (node.os === 'windows' && demo) {
        for (const ev of effect.events ?? []) {
          if (ev.on !== 'pod' || w.podSpecExtra.hostNetwork === true) continue;
          const sandbox = hex8(fnv(`${name}/sandbox`)).repeat(8);
          addEvent({ namespace: w.namespace, kind: 'Pod', objName: name, objNamespace: w.namespace, type: ev.type, reason: ev.reason, message: ev.message.replaceAll('{{sandbox}}', sandbox).replaceAll('{{pod}}', name).replaceAll('{{node}}', node.name), at: now - 60_000, host: node.name }, 'pod');
        }
        if (wrongOs(w, node)) {
          const image = w.containers[0]!.image;
          addEvent({ namespace: w.namespace, kind: 'Pod', objName: name, objNamespace: w.namespace, type: 'Warning', reason: 'Failed', message: `Failed to pull image "${image}": rpc error: code = NotFound desc = failed to pull and unpack image "${image}": no match for platform in manifest: not found`, at: now - 90_000, host: node.name }, 'pod');
        }
      }
    }
    if (w.service) {
      const svc: ServiceData = { w, name: w.service.name, namespace: w.namespace, ip: w.service.ip, port: w.service.port, createdAt: w.createdAt, selector: { ...w.labels }, ...(w.service.sessionAffinity ? { sessionAffinity: true } : {}), ...(w.service.type ? { type: w.service.type } : {}) };
      serviceItems.push({ namespace: w.namespace, name: svc.name, obj: null, gen: renderService, data: svc });
      // The EndpointSlice controller puts at most 100 endpoints in one slice.
      for (let s = 0; s * 100 < Math.max(1, endpoints.length); s++) {
        sliceItems.push({ namespace: w.namespace, name: `${svc.name}-${suffix(`${w.namespace}/${svc.name}/${s}`, 5)}`, obj: null, gen: renderSlice, data: { svc, pods: endpoints.slice(s * 100, s * 100 + 100) } satisfies SliceData });
      }
    }
  }
  // The API server's own Service and the cluster DNS Service.
  const kubeSvc: ServiceData = { w: null, name: 'kubernetes', namespace: 'default', ip: '127.128.0.1', port: 443, createdAt: created, selector: null };
  serviceItems.push({ namespace: 'default', name: 'kubernetes', obj: null, gen: renderService, data: kubeSvc });
  sliceItems.push({ namespace: 'default', name: 'kubernetes', obj: null, gen: renderSlice, data: { svc: kubeSvc, pods: [{ ip: '127.0.0.1', node: 'linux-cp-1', name: 'kube-apiserver', ready: true }] } });
  const dns = workloads.find((w) => w.name === 'coredns');
  if (dns) {
    const dnsSvc: ServiceData = { w: dns, name: 'kube-dns', namespace: 'kube-system', ip: SIM_DNS_SERVICE_IP, port: 53, createdAt: created, selector: { 'k8s-app': 'kube-dns' } };
    serviceItems.push({ namespace: 'kube-system', name: 'kube-dns', obj: null, gen: renderService, data: dnsSvc });
  }

  // Node events.
  for (const n of nodes) {
    addEvent({ namespace: 'default', kind: 'Node', objName: n.name, objNamespace: '', type: 'Normal', reason: 'Starting', message: 'Starting kubelet.', at: n.createdAt + 1000, host: n.name }, 'node');
    if (n.os === 'windows') {
      for (const ev of scenarioEffect(n.scenario).events ?? []) {
        if (ev.on !== 'node') continue;
        addEvent({ namespace: 'default', kind: 'Node', objName: n.name, objNamespace: '', type: ev.type, reason: ev.reason, message: ev.message.replaceAll('{{node}}', n.name), at: now - 120_000, host: n.name }, 'node');
      }
    }
  }

  const namespaces = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease', ...workloads.map((w) => w.namespace)]);
  store.addGenerated(
    'namespaces',
    [...namespaces].map((name) => ({ namespace: '', name, obj: null, gen: renderNamespace, data: created })),
  );
  store.addGenerated(
    'nodes',
    nodes.map((n) => {
      const o = nodeObject(n, kubernetesVersion);
      return { namespace: '', name: n.name, obj: null, gen: () => structuredClone(o), data: n };
    }),
  );
  store.addGenerated('pods', podItems);
  const byKind = (k: WorkloadGen['kind']) => workloads.filter((w) => w.kind === k).map((w) => ({ namespace: w.namespace, name: w.name, obj: null, gen: renderWorkload, data: w }));
  store.addGenerated('deployments', byKind('Deployment'));
  store.addGenerated('daemonsets', byKind('DaemonSet'));
  store.addGenerated('statefulsets', byKind('StatefulSet'));
  store.addGenerated('jobs', byKind('Job'));
  store.addGenerated('services', serviceItems);
  store.addGenerated('endpointslices', sliceItems);
  store.addGenerated('events', eventItems);

  return {
    kubernetesVersion,
    nodes: nodes.map((n) => ({
      name: n.name,
      os: n.os,
      internalIP: n.internalIP,
      podCIDR: n.podCIDR,
      scenario: n.scenario,
      kernelVersion: n.kernelVersion,
      osImage: n.osImage,
      containerRuntimeVersion: n.containerRuntimeVersion,
      tainted: n.tainted,
    })),
    clusterCidr: SIM_CLUSTER_CIDR,
    serviceCidr: SIM_SERVICE_CIDR,
    dnsServiceIp: SIM_DNS_SERVICE_IP,
    counts: { nodes: nodes.length, pods: podItems.length, workloads: workloads.length, services: serviceItems.length, endpointslices: sliceItems.length, events: eventItems.length, namespaces: namespaces.size },
  };
}
