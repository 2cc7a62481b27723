import { z } from 'zod';

/**
 * Pure parts of guided restarts (DESIGN.md section 7, WINDOWS-KNOWLEDGE.md sections 1-2): which components may be
 * restarted, the names they carry on different layouts, the order they restart in, what a restart disrupts, the
 * commands a plan shows, and how post-checks become an outcome. No I/O, no node:*, no DOM.
 */

/** The only components Windeck restarts. Anything else is refused before a plan is made. */
export const RESTART_COMPONENTS = ['kubelet', 'kube-proxy', 'flanneld', 'containerd', 'hns'] as const;
export const RestartComponent = z.enum(RESTART_COMPONENTS);
export type RestartComponent = z.infer<typeof RestartComponent>;

/**
 * How a component runs on a node, which decides how (and whether) Windeck restarts it:
 * - `service`: a Windows service (sc.exe / distribution installer): Restart-Service with its dependents;
 * - `nssm-service`: a service wrapped by nssm (arguments in the registry's AppParameters): Restart-Service too;
 * - `daemonset-pod`: a HostProcess DaemonSet pod (kubeadm + sig-windows-tools): delete the pod through the
 *   Kubernetes API and wait for the DaemonSet controller to start its replacement;
 * - `bare-process`: a process started by a script (start.ps1): refused, with the reason;
 * - `supervised`: a child process of a supervisor service (RKE2 `rke2`, Rancher `rancher-wins`): refused, with the
 *   reason (restarting the supervisor restarts every component it runs);
 * - `absent`: nothing of that component runs on the node.
 */
export const RESTART_METHODS = ['service', 'nssm-service', 'daemonset-pod', 'bare-process', 'supervised', 'absent'] as const;
export const RestartMethod = z.enum(RESTART_METHODS);
export type RestartMethod = z.infer<typeof RestartMethod>;

/** Methods Windeck carries out; the others are explained and refused. */
export function isExecutableMethod(method: RestartMethod): boolean {
  return method === 'service' || method === 'nssm-service' || method === 'daemonset-pod';
}

/** Outcome of a restart (DESIGN.md section 10). */
export const RESTART_OUTCOMES = ['succeeded', 'partial', 'failed', 'cancelled'] as const;
export const RestartOutcome = z.enum(RESTART_OUTCOMES);
export type RestartOutcome = z.infer<typeof RestartOutcome>;

/** Parse a component argument (case-insensitive). Null when it is not one of RESTART_COMPONENTS. */
export function parseRestartComponent(text: string): RestartComponent | null {
  const t = text.trim().toLowerCase();
  return (RESTART_COMPONENTS as readonly string[]).includes(t) ? (t as RestartComponent) : null;
}

/** A message for a component argument that is not allowed, with a hint for the common near-misses. */
export function componentRefusal(text: string): string {
  const t = text.trim().toLowerCase();
  const hint =
    t === 'kubeproxy'
      ? ' (the AKS service `kubeproxy` is the component `kube-proxy`)'
      : t === 'flannel'
        ? ' (did you mean `flanneld`?)'
        : t === 'docker'
          ? ' (Windeck does not restart Docker)'
          : '';
  return `Windeck restarts only ${RESTART_COMPONENTS.join(', ')}; "${text}" is not one of them${hint}.`;
}

/**
 * Service names each component carries on the layouts of WINDOWS-KNOWLEDGE.md section 1, most common first.
 * Windows compares service names case-insensitively (`Kubelet` on TKG is `kubelet`).
 */
export const COMPONENT_SERVICE_NAMES: Readonly<Record<RestartComponent, readonly string[]>> = {
  kubelet: ['kubelet'],
  'kube-proxy': ['kube-proxy', 'kubeproxy'],
  flanneld: ['flanneld', 'flannel'],
  containerd: ['containerd'],
  hns: ['hns'],
};

/** Executable names of each component's process (HNS lives inside svchost.exe, so it has none of its own). */
export const COMPONENT_PROCESS_NAMES: Readonly<Record<RestartComponent, readonly string[]>> = {
  kubelet: ['kubelet.exe'],
  'kube-proxy': ['kube-proxy.exe', 'kubeproxy.exe'],
  flanneld: ['flanneld.exe'],
  containerd: ['containerd.exe'],
  hns: [],
};

/** Services that run node components as their own child processes. */
export const SUPERVISORS: ReadonlyArray<{ service: string; process: string; product: string }> = [
  { service: 'rke2', process: 'rke2.exe', product: 'RKE2' },
  { service: 'rancher-wins', process: 'wins.exe', product: 'Rancher (rancher-wins)' },
];

/** Every service name a detection needs to ask the node about. */
export function serviceNamesToQuery(): string[] {
  return [...new Set([...RESTART_COMPONENTS.flatMap((c) => COMPONENT_SERVICE_NAMES[c]), ...SUPERVISORS.map((s) => s.service)])];
}

/** Every process name (without .exe) a detection needs to ask the node about. */
export function processNamesToQuery(): string[] {
  return [
    ...new Set([...RESTART_COMPONENTS.flatMap((c) => COMPONENT_PROCESS_NAMES[c]), ...SUPERVISORS.map((s) => s.process)].map((p) => p.replace(/\.exe$/i, ''))),
  ];
}

/** The component a service name stands for (case-insensitive), or null. */
export function componentOfServiceName(name: string): RestartComponent | null {
  const n = name.trim().toLowerCase();
  for (const c of RESTART_COMPONENTS) if (COMPONENT_SERVICE_NAMES[c].includes(n)) return c;
  return null;
}

/** The component a process name stands for (`kube-proxy.exe`, `kubelet`), or null. */
export function componentOfProcessName(name: string): RestartComponent | null {
  const n = name
    .trim()
    .toLowerCase()
    .replace(/\.exe$/, '');
  for (const c of RESTART_COMPONENTS) if (COMPONENT_PROCESS_NAMES[c].some((p) => p.replace(/\.exe$/, '') === n)) return c;
  return null;
}

/** A supervisor by service or process name (case-insensitive), or null. */
export function supervisorOf(name: string): (typeof SUPERVISORS)[number] | null {
  const n = name.trim().toLowerCase();
  return SUPERVISORS.find((s) => s.service === n || s.process === n || s.process.replace(/\.exe$/, '') === n) ?? null;
}

/** Only kube-proxy and flannel ship as HostProcess DaemonSets (sig-windows-tools); kubelet, containerd and HNS never do. */
export function canRunAsDaemonSet(component: RestartComponent): boolean {
  return component === 'kube-proxy' || component === 'flanneld';
}

/** Whether a DaemonSet pod (by its DaemonSet name, pod name and container names) is this component's. */
export function daemonSetPodMatches(component: RestartComponent, pod: { ownerName: string; name: string; containers: readonly string[] }): boolean {
  if (!canRunAsDaemonSet(component)) return false;
  const re = component === 'kube-proxy' ? /kube-?proxy/i : /flannel/i;
  return re.test(pod.ownerName) || pod.containers.some((c) => re.test(c)) || re.test(pod.name);
}

/**
 * Start order: a component starts only after the ones listed for it are up. kube-proxy depends on kubelet
 * (`DependOnService kubelet`) and, on overlay, needs the network flanneld creates; kubelet needs the runtime
 * (`DependOnService containerd` on kubeadm); everything networked needs HNS.
 */
export const START_AFTER: Readonly<Record<RestartComponent, readonly RestartComponent[]>> = {
  hns: [],
  containerd: ['hns'],
  flanneld: ['hns'],
  kubelet: ['containerd'],
  'kube-proxy': ['kubelet', 'flanneld'],
};

/**
 * Sort components so that each comes after what it starts after, directly or through components not in the list
 * (kube-proxy after HNS via kubelet and containerd). Stable for independent ones.
 */
export function dependencyOrder(components: Iterable<RestartComponent>): RestartComponent[] {
  const wanted = new Set(components);
  const order: RestartComponent[] = [];
  const visited = new Set<RestartComponent>();
  const visit = (c: RestartComponent) => {
    if (visited.has(c)) return;
    visited.add(c);
    for (const before of START_AFTER[c]) visit(before);
    order.push(c);
  };
  for (const c of RESTART_COMPONENTS) if (wanted.has(c)) visit(c);
  return order.filter((c) => wanted.has(c));
}

/** HNS network modes (WINDOWS-KNOWLEDGE.md section 2). */
export type NetworkMode = 'overlay' | 'l2bridge' | 'l2tunnel' | 'transparent' | 'nat' | 'other';

/** The mode of an HNS network from its `Type` (HNS prints `Overlay` or `overlay`, `L2Bridge`...). */
export function networkModeOf(type: string | null | undefined): NetworkMode | null {
  if (!type) return null;
  const t = type.trim().toLowerCase();
  if (t === 'overlay') return 'overlay';
  if (t === 'l2bridge') return 'l2bridge';
  if (t === 'l2tunnel') return 'l2tunnel';
  if (t === 'transparent') return 'transparent';
  if (t === 'nat' || t === 'ics') return 'nat';
  return 'other';
}

export interface SequenceContext {
  /** Components found on the node (as a service or a DaemonSet pod). */
  present: ReadonlySet<RestartComponent>;
  /** The pod network's mode, when known. */
  networkMode: NetworkMode | null;
}

/**
 * The components to restart for `target`, in dependency order: the target, then what does not recover by itself.
 * Restarting HNS drops the networks flanneld made and kube-proxy's load balancers, so both follow it; on overlay,
 * kube-proxy follows flanneld (it needs the recreated network and its source VIP). Service dependents (kube-proxy
 * of kubelet, kubelet of containerd) are restarted by the service manager step itself, not listed here.
 */
export function restartSequence(target: RestartComponent, ctx: SequenceContext): RestartComponent[] {
  const followUps: RestartComponent[] = [];
  if (target === 'hns') followUps.push('flanneld', 'kube-proxy');
  if (target === 'flanneld' && ctx.networkMode === 'overlay') followUps.push('kube-proxy');
  return dependencyOrder([target, ...followUps.filter((c) => ctx.present.has(c))]);
}

/** Services that Windows stops with `target` (transitive `DependOnService` dependents), case-insensitive. */
export function serviceDependents(target: string, services: ReadonlyArray<{ name: string; dependsOn: readonly string[] }>): string[] {
  const out: string[] = [];
  const queue = [target.toLowerCase()];
  while (queue.length > 0) {
    const cur = queue.shift()!;
    for (const s of services) {
      if (
        s.dependsOn.some((d) => d.toLowerCase() === cur) &&
        !out.some((o) => o.toLowerCase() === s.name.toLowerCase()) &&
        s.name.toLowerCase() !== target.toLowerCase()
      ) {
        out.push(s.name);
        queue.push(s.name.toLowerCase());
      }
    }
  }
  return out;
}

/** Restarting these is disruptive enough that the plan recommends cordon (and drain) first. */
export function recommendsCordon(component: RestartComponent): boolean {
  return component === 'hns' || component === 'containerd';
}

/** One sentence on what a restart of `component` does to the node while it runs. */
export function disruptionSummary(component: RestartComponent): string {
  switch (component) {
    case 'kubelet':
      return 'Running pods keep running; the node reports no status and starts no new pods until kubelet is back, and kube-proxy (which depends on kubelet) restarts with it.';
    case 'kube-proxy':
      return 'Service (ClusterIP/NodePort) traffic to and from pods on this node is interrupted while kube-proxy rebuilds its load balancers.';
    case 'flanneld':
      return 'Pod traffic to other nodes is interrupted until flanneld has recreated its network and routes.';
    case 'containerd':
      return 'No container can start or stop until containerd is back; kubelet (and kube-proxy) stop and start with it.';
    case 'hns':
      return 'Every pod on this node loses networking: HNS networks, endpoints and load balancers may be deleted and must be recreated by flanneld and kube-proxy.';
  }
}

export interface PodBrief {
  namespace: string;
  name: string;
  /** HostProcess pods share the host's network and are not cut off by network restarts. */
  hostProcess: boolean;
  hostNetwork: boolean;
  ownerKind: string | null;
}

export interface DisruptedPodBrief {
  namespace: string;
  name: string;
  reason: string;
}

/** The pods on the node a restart of `component` disrupts, and why. `deletedPod` is the pod a DaemonSet restart deletes. */
export function podsDisrupted(
  component: RestartComponent,
  pods: readonly PodBrief[],
  deletedPod: { namespace: string; name: string } | null = null,
): DisruptedPodBrief[] {
  const out: DisruptedPodBrief[] = [];
  for (const p of pods) {
    if (deletedPod && p.namespace === deletedPod.namespace && p.name === deletedPod.name) {
      out.push({ namespace: p.namespace, name: p.name, reason: 'deleted; its DaemonSet starts a replacement' });
      continue;
    }
    const podNetwork = !p.hostProcess && !p.hostNetwork;
    if (component === 'hns' && podNetwork)
      out.push({ namespace: p.namespace, name: p.name, reason: 'loses networking while HNS restarts and its endpoint may have to be recreated' });
    else if (component === 'kube-proxy' && podNetwork)
      out.push({ namespace: p.namespace, name: p.name, reason: 'Service traffic interrupted while load balancers are rebuilt' });
    else if (component === 'flanneld' && podNetwork)
      out.push({ namespace: p.namespace, name: p.name, reason: 'traffic to other nodes interrupted while the network is recreated' });
    else if (component === 'containerd')
      out.push({ namespace: p.namespace, name: p.name, reason: 'cannot be started, stopped or probed by exec while containerd restarts' });
  }
  return out;
}

/** Kinds of step a plan holds, in the order they can appear. */
export const RESTART_STEP_KINDS = ['cordon', 'drain', 'restart-service', 'delete-pod', 'wait-network', 'uncordon'] as const;
export type RestartStepKind = (typeof RESTART_STEP_KINDS)[number];

export interface CommandText {
  via: 'node' | 'kube-api';
  /** Exactly what Windeck sends: a script id and version with its JSON arguments, or an API request. */
  sent: string;
  /** What a person would type for the same effect. */
  equivalent: string;
  mutating: boolean;
}

/** Quote for PowerShell single-quoted strings. Names were validated before; this is for display only. */
function psQuote(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** The restart-service script call and its PowerShell equivalent. */
export function serviceRestartCommands(input: {
  serviceName: string;
  dependents: readonly string[];
  timeoutSeconds: number;
  scriptVersion: number;
}): CommandText[] {
  const args = JSON.stringify({ name: input.serviceName, timeoutSeconds: input.timeoutSeconds });
  const wait = `(Get-Service -Name ${psQuote(input.serviceName)}).WaitForStatus('Running', '${formatTimeSpan(input.timeoutSeconds)}')`;
  const starts = input.dependents.map((d) => `Start-Service -Name ${psQuote(d)}`);
  return [
    {
      via: 'node',
      sent: `restart-service v${input.scriptVersion} ${args}`,
      equivalent: [`Restart-Service -Name ${psQuote(input.serviceName)} -Force`, wait, ...starts].join('; '),
      mutating: true,
    },
  ];
}

function formatTimeSpan(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(s / 3600))}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
}

/** Delete a DaemonSet pod and watch for its replacement. */
export function podRestartCommands(input: { node: string; namespace: string; pod: string; daemonSet: string }): CommandText[] {
  return [
    {
      via: 'kube-api',
      sent: `DELETE /api/v1/namespaces/${input.namespace}/pods/${input.pod}`,
      equivalent: `kubectl delete pod -n ${input.namespace} ${input.pod} --wait=false`,
      mutating: true,
    },
    {
      via: 'kube-api',
      sent: `GET /api/v1/namespaces/${input.namespace}/pods?fieldSelector=spec.nodeName=${input.node}`,
      equivalent: `kubectl get pods -n ${input.namespace} --field-selector spec.nodeName=${input.node} -w   # until a new ${input.daemonSet} pod is Running and Ready`,
      mutating: false,
    },
  ];
}

export function cordonCommands(node: string, unschedulable: boolean): CommandText[] {
  return [
    {
      via: 'kube-api',
      sent: `PATCH /api/v1/nodes/${node} {"spec":{"unschedulable":${unschedulable}}}`,
      equivalent: `kubectl ${unschedulable ? 'cordon' : 'uncordon'} ${node}`,
      mutating: true,
    },
  ];
}

/** One eviction per pod that drain moves away (DaemonSet pods and mirror pods stay, as `kubectl drain --ignore-daemonsets`). */
export function drainCommands(node: string, pods: ReadonlyArray<{ namespace: string; name: string }>): CommandText[] {
  const evictions: CommandText[] = pods.map((p) => ({
    via: 'kube-api',
    sent: `POST /api/v1/namespaces/${p.namespace}/pods/${p.name}/eviction`,
    equivalent: `kubectl evict -n ${p.namespace} ${p.name}   # part of: kubectl drain ${node} --ignore-daemonsets --delete-emptydir-data`,
    mutating: true,
  }));
  return evictions.length > 0
    ? evictions
    : [
        {
          via: 'kube-api',
          sent: `(no pods to evict on ${node})`,
          equivalent: `kubectl drain ${node} --ignore-daemonsets --delete-emptydir-data`,
          mutating: false,
        },
      ];
}

/** Poll the HNS networks until the named ones exist again. */
export function waitNetworkCommands(input: { networks: readonly string[]; scriptVersion: number }): CommandText[] {
  const names = input.networks.map(psQuote).join(', ');
  return [
    {
      via: 'node',
      sent: `hns-networks v${input.scriptVersion} {}   # repeated until ${input.networks.join(', ')} exist`,
      equivalent: `Get-HnsNetwork | Where-Object { @(${names}) -contains $_.Name }`,
      mutating: false,
    },
  ];
}

/** Whether a drained node should lose this pod: DaemonSet pods stay (kubectl drain --ignore-daemonsets), mirror pods stay. */
export function isEvictable(pod: { ownerKind: string | null; mirror: boolean }): boolean {
  return pod.ownerKind !== 'DaemonSet' && !pod.mirror;
}

/**
 * Canonical text of what a plan will do, for its hash: node, component, method, real name and the commands sent,
 * nothing that changes between two looks at an unchanged node (times, pod ages, counts).
 */
export function canonicalPlanText(plan: {
  cluster: string | null;
  node: string;
  component: RestartComponent;
  method: RestartMethod;
  serviceName: string | null;
  options: { cordon: boolean; drain: boolean };
  steps: ReadonlyArray<{ kind: string; target: string; commands: ReadonlyArray<{ sent: string }> }>;
}): string {
  return JSON.stringify([
    'windeck-restart-plan/v1',
    plan.cluster,
    plan.node,
    plan.component,
    plan.method,
    plan.serviceName,
    plan.options.cordon,
    plan.options.drain,
    plan.steps.map((s) => [s.kind, s.target, s.commands.map((c) => c.sent)]),
  ]);
}

/** Post-check ids (stable: they appear in audit rows). */
export const POST_CHECK_IDS = [
  'service-running',
  'service-stays-up',
  'pod-replaced',
  'follow-ups',
  'steps-completed',
  'node-ready',
  'hns-networks',
  'load-balancers',
  'no-new-findings',
] as const;
export type PostCheckId = (typeof POST_CHECK_IDS)[number];

export interface CheckVerdict {
  id: PostCheckId;
  status: 'passed' | 'failed' | 'skipped';
  /** A failed critical check means the component itself did not come back: outcome `failed`. */
  critical: boolean;
}

/**
 * The outcome from what happened: cancelled wins; the component not coming back (its step failed, or a critical
 * check failed) is `failed`; anything else that is still wrong is `partial`; otherwise `succeeded`.
 */
export function classifyOutcome(input: { cancelled: boolean; primaryFailed: boolean; checks: readonly CheckVerdict[] }): RestartOutcome {
  if (input.cancelled) return 'cancelled';
  if (input.primaryFailed) return 'failed';
  if (input.checks.some((c) => c.status === 'failed' && c.critical)) return 'failed';
  if (input.checks.some((c) => c.status === 'failed')) return 'partial';
  return 'succeeded';
}

/** Where each component logs on the common layouts (for "what to do next"). */
export function componentLogHints(component: RestartComponent, serviceName: string | null): string[] {
  switch (component) {
    case 'kubelet':
      return ['C:\\k\\kubelet.log', 'C:\\var\\log\\kubelet\\kubelet.exe.INFO'];
    case 'kube-proxy':
      return [serviceName?.toLowerCase() === 'kubeproxy' ? 'C:\\k\\kubeproxy.log' : 'C:\\k\\kube-proxy.log', 'C:\\var\\log\\kube-proxy\\kube-proxy.exe.INFO'];
    case 'flanneld':
      return ['C:\\k\\flanneld.log', 'C:\\var\\log\\flanneld\\flanneld.exe.INFO'];
    case 'containerd':
      return ['C:\\k\\containerd.log', 'C:\\var\\log\\containerd\\containerd.exe.INFO'];
    case 'hns':
      return ['Event Viewer: Applications and Services Logs > Microsoft > Windows > Host-Network-Service-Admin'];
  }
}

/** What to do next when a post-check failed, in our own words. */
export function nextStepsFor(
  check: PostCheckId,
  ctx: { component: RestartComponent; serviceName: string | null; node: string; networks?: readonly string[] },
): string[] {
  const name = ctx.serviceName ?? ctx.component;
  const logs = componentLogHints(ctx.component, ctx.serviceName);
  switch (check) {
    case 'service-running':
      return [
        `Read why ${name} did not start: the last lines of ${logs[0]} (Get-Content '${logs[0]}' -Tail 50) and the System event log (Service Control Manager events 7000, 7009, 7023, 7034).`,
        `Check its configuration: sc.exe qc ${name}${ctx.component === 'kubelet' ? ' and the kubelet arguments (kubeconfig, certificates, container runtime endpoint)' : ''}.`,
        `Start it by hand once the cause is fixed (Start-Service -Name ${name}), then run windeck diagnose ${ctx.node}.`,
      ];
    case 'service-stays-up':
      return [
        `${name} started but did not stay up: it is crashing after start. Read ${logs[0]} for the last error before it exited.`,
        `Run windeck diagnose ${ctx.node} to see what the node reports now.`,
      ];
    case 'pod-replaced':
      return [
        `The DaemonSet did not start a ready replacement pod: kubectl describe daemonset -n kube-system and kubectl get events -n kube-system --field-selector involvedObject.kind=Pod.`,
        `Check that kubelet and containerd run on ${ctx.node} (HostProcess pods need containerd 1.6+).`,
      ];
    case 'follow-ups':
      return ['A dependent component did not come back; restart it on its own with windeck restart (it is listed in the steps above).'];
    case 'steps-completed':
      return [
        `Not every step ran: read the failed step above, fix what it names, then run windeck restart ${ctx.node} ${ctx.component} again (or restart the skipped components on their own).`,
      ];
    case 'node-ready':
      return [
        `The node is not Ready: kubectl describe node ${ctx.node} (conditions and events), then check kubelet's log ${componentLogHints('kubelet', null)[0]}.`,
      ];
    case 'hns-networks':
      return [
        `An HNS network that existed before is missing${ctx.networks && ctx.networks.length > 0 ? ` (${ctx.networks.join(', ')})` : ''}: flanneld (or the CNI) recreates it at start; restart flanneld with windeck restart ${ctx.node} flanneld and read ${componentLogHints('flanneld', null)[0]}.`,
        'If flanneld logs "Waiting for the Network to be created", check its NODE_NAME environment, the management IP and C:\\run\\flannel\\subnet.env.',
      ];
    case 'load-balancers':
      return [
        `kube-proxy has not rebuilt all its load balancers yet: wait a sync period, then compare again (windeck probe ${ctx.node} --probe hns-policies); if the count stays low, restart kube-proxy and read ${componentLogHints('kube-proxy', null)[0]} for "Policy creation failed".`,
      ];
    case 'no-new-findings':
      return [`New findings appeared after the restart: run windeck diagnose ${ctx.node} and follow their remediation.`];
  }
}

/**
 * Why Windeck will not restart a component that runs as a bare process or under a supervisor, in our own words.
 */
export function refusalFor(
  method: RestartMethod,
  ctx: { component: RestartComponent; node: string; processName?: string | null; commandLine?: string | null; supervisor?: string | null },
): string {
  switch (method) {
    case 'bare-process':
      return [
        `${ctx.component} runs on ${ctx.node} as a bare process (${ctx.processName ?? 'unknown'}), most likely started by a start.ps1 script, not as a Windows service or a DaemonSet pod.`,
        'Windeck will not restart it: stopping the process is easy, but starting it again needs the exact arguments and environment the script used (for flanneld, NODE_NAME and the kubeconfig), and nothing would restart it after a crash or a reboot.',
        `Make it a service instead (for example nssm install ${ctx.component} <exe> <arguments>, with AppEnvironmentExtra for its environment) and restart it with Windeck afterwards; until then, restart it the way it was started, by re-running the start script on the node.`,
      ].join(' ');
    case 'supervised':
      return [
        `${ctx.component} runs on ${ctx.node} as a child of the ${ctx.supervisor ?? 'supervisor'} service, which starts and watches it together with the other node components.`,
        `Windeck will not restart it on its own: killing the child makes the supervisor restart it with its own timing, and restarting the supervisor restarts every component it runs.`,
        "Use the distribution's procedure (for RKE2: Restart-Service rke2 during a maintenance window, after cordoning the node).",
      ].join(' ');
    case 'absent':
      return `${ctx.component} does not run on ${ctx.node}: there is no such service, DaemonSet pod or process (this node may use a different CNI or runtime).`;
    default:
      return '';
  }
}

function ipv4ToNumber(ip: string): number | null {
  const parts = ip.trim().split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    n = n * 256 + v;
  }
  return n;
}

/** Whether IPv4 `ip` lies in `cidr` (`10.244.3.0/24`). Null when either is not IPv4. */
export function ipInCidr(ip: string, cidr: string): boolean | null {
  const [base, bitsText] = cidr.trim().split('/');
  const bits = Number(bitsText);
  const a = ipv4ToNumber(ip);
  const b = ipv4ToNumber(base ?? '');
  if (a === null || b === null || !Number.isInteger(bits) || bits < 0 || bits > 32) return null;
  if (bits === 0) return true;
  const size = 2 ** (32 - bits);
  return Math.floor(a / size) === Math.floor(b / size);
}

export interface SourceVipVerdict {
  status: 'ok' | 'stale' | 'invalid' | 'absent' | 'unknown';
  /** The IP in SourceVip.json, when readable. */
  sourceVip: string | null;
  /** The pod subnet it was compared with (node PodCIDR, else FLANNEL_SUBNET). */
  subnet: string | null;
  detail: string;
}

/**
 * Is `C:\k\SourceVip.json` left over from another pod subnet (WINDOWS-KNOWLEDGE.md section 2: a node removed and
 * re-added gets a new subnet; the old SourceVip files must be deleted before kube-proxy starts again)?
 * `sourceVipJson` null = the file does not exist. Never throws.
 */
export function sourceVipVerdict(input: { sourceVipJson: string | null; subnetEnv: string | null; podCidr: string | null }): SourceVipVerdict {
  if (input.sourceVipJson === null)
    return {
      status: 'absent',
      sourceVip: null,
      subnet: null,
      detail: 'No C:\\k\\SourceVip.json on the node (kube-proxy asks for a new source VIP when it starts).',
    };
  const text = input.sourceVipJson.replace(/^\uFEFF/, '');
  let ip: string | null = null;
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const ip4 = (parsed.ip4 ?? parsed.IP4) as Record<string, unknown> | undefined;
    const raw = ip4 ? (ip4.ip ?? ip4.IP) : undefined;
    if (typeof raw === 'string') ip = raw.split('/')[0]!.trim();
    if (!ip && typeof parsed.code === 'number')
      return { status: 'invalid', sourceVip: null, subnet: null, detail: `C:\\k\\SourceVip.json holds an IPAM error (${String(parsed.msg ?? parsed.code)}).` };
  } catch {
    return { status: 'invalid', sourceVip: null, subnet: null, detail: 'C:\\k\\SourceVip.json is not valid JSON.' };
  }
  if (!ip || ipv4ToNumber(ip) === null)
    return { status: 'invalid', sourceVip: null, subnet: null, detail: 'C:\\k\\SourceVip.json has no IPv4 address in ip4.ip.' };
  let subnet = input.podCidr;
  if (!subnet && input.subnetEnv) {
    const m = /^\s*FLANNEL_SUBNET\s*=\s*([0-9.]+\/\d+)\s*$/m.exec(input.subnetEnv);
    if (m) subnet = m[1]!;
  }
  if (!subnet) return { status: 'unknown', sourceVip: ip, subnet: null, detail: `SourceVip ${ip}: no pod subnet known to compare it with.` };
  const inside = ipInCidr(ip, subnet);
  if (inside === null) return { status: 'unknown', sourceVip: ip, subnet, detail: `SourceVip ${ip} could not be compared with ${subnet}.` };
  return inside
    ? { status: 'ok', sourceVip: ip, subnet, detail: `SourceVip ${ip} lies in the node's pod subnet ${subnet}.` }
    : {
        status: 'stale',
        sourceVip: ip,
        subnet,
        detail: `SourceVip ${ip} is outside the node's pod subnet ${subnet}: the SourceVip files are left over from an earlier subnet.`,
      };
}
