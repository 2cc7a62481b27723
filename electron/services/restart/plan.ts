import crypto from 'node:crypto';
import { WindeckError, isWindeckError, type TransportKind } from '../../../shared/contract/errors';
import type { NodeSnapshot, PlannedStep, PreCheck, RestartPlan } from '../../../shared/contract/methods/restarts';
import { flagValue, splitCommandLine } from '../../../shared/parse/command-line';
import {
  START_AFTER,
  canonicalPlanText,
  cordonCommands,
  disruptionSummary,
  drainCommands,
  isEvictable,
  isExecutableMethod,
  networkModeOf,
  podRestartCommands,
  podsDisrupted,
  recommendsCordon,
  restartSequence,
  serviceDependents,
  serviceRestartCommands,
  sourceVipVerdict,
  waitNetworkCommands,
  type NetworkMode,
  type RestartComponent,
} from '../../../shared/logic/restart-plan';
import { detectAll, detectionProcessNames, detectionServiceNames, type Detection, type NodeFacts } from './detect';
import type { RestartKube, RestartNodeHost } from './ports';
import type { RestartTunables } from './tunables';

/**
 * Pre-checks and plans (DESIGN.md section 7): read the node and the cluster (read-only), detect how each
 * component runs, and lay out the ordered steps with every command they send. The plan hash covers what will be
 * done (not the volatile observations), so `restarts:execute` can prove it runs what the user confirmed.
 */

export const SOURCE_VIP_PATH = 'C:\\k\\SourceVip.json';
export const SOURCE_VIP_REQUEST_PATH = 'C:\\k\\SourceVipRequest.json';
export const SUBNET_ENV_PATH = 'C:\\run\\flannel\\subnet.env';

/** Networks HNS keeps that are not pod networks. */
const NON_POD_NETWORKS = new Set(['external', 'nat', 'default switch']);

function message(error: unknown): string {
  return isWindeckError(error) ? error.message : error instanceof Error ? error.message : String(error);
}

function withTimeout(signal: AbortSignal, ms: number): AbortSignal {
  return AbortSignal.any([signal, AbortSignal.timeout(ms)]);
}

/**
 * Read what a plan (or a before/after snapshot) needs. Services and processes are required (the node could not be
 * read otherwise: the error is thrown); HNS, files, the cluster and findings are best effort, their failures listed
 * in `errors`.
 */
export async function gatherFacts(input: {
  node: string;
  host: RestartNodeHost;
  kube: RestartKube | null;
  signal: AbortSignal;
  readTimeoutMs: number;
  now: () => number;
  withFiles?: boolean;
  withFindings?: boolean;
}): Promise<NodeFacts> {
  const { host, kube, node, signal } = input;
  const errors: string[] = [];
  const read = () => withTimeout(signal, input.readTimeoutMs);
  const at = input.now();

  const kubeReads = (async () => {
    if (!kube) {
      errors.push('No cluster to ask (offline, or no kubeconfig for this node): node state and pods are unknown.');
      return { kubeNode: undefined, pods: null };
    }
    try {
      const [kubeNode, pods] = await Promise.all([kube.node(node, read()), kube.podsOnNode(node, read())]);
      return { kubeNode, pods };
    } catch (error) {
      if (signal.aborted) throw error;
      errors.push(`The cluster could not be read: ${message(error)}`);
      return { kubeNode: undefined, pods: null };
    }
  })();

  const services = await host.services(detectionServiceNames(), read());
  const processes = await host.processes(detectionProcessNames(), read());
  const optional = async <T>(what: string, f: () => Promise<T>): Promise<T | null> => {
    try {
      return await f();
    } catch (error) {
      if (signal.aborted) throw error;
      errors.push(`${what} could not be read: ${message(error)}`);
      return null;
    }
  };
  const networks = await optional('HNS networks', () => host.hnsNetworks(read()));
  const loadBalancerCount = await optional('HNS load balancers', () => host.loadBalancerCount(read()));
  const files = input.withFiles
    ? await optional('SourceVip and subnet.env files', () => host.files([SOURCE_VIP_PATH, SOURCE_VIP_REQUEST_PATH, SUBNET_ENV_PATH], read()))
    : null;
  const findings =
    input.withFindings && host.findings ? await optional('Diagnostics', () => host.findings!(withTimeout(signal, input.readTimeoutMs * 4))) : null;
  const { kubeNode, pods } = await kubeReads;
  return { node, at, services, processes, pods, kubeNode, networks, loadBalancerCount, files, findings, errors };
}

/** The pod network: kube-proxy's `--network-name`, else the first HNS network that is not External/nat. */
export function podNetworkOf(
  facts: Pick<NodeFacts, 'networks'>,
  detections: Record<RestartComponent, Detection>,
): { name: string; mode: NetworkMode | null } | null {
  if (!facts.networks) return null;
  const kp = detections['kube-proxy'];
  const args = kp.service?.nssm
    ? splitCommandLine(kp.service.nssm.appParameters)
    : kp.process?.commandLine
      ? splitCommandLine(kp.process.commandLine)
      : kp.service?.pathName
        ? splitCommandLine(kp.service.pathName)
        : [];
  const named = flagValue(args, 'network-name');
  const byName = named ? facts.networks.find((n) => n.name.toLowerCase() === named.toLowerCase()) : undefined;
  if (named) {
    if (byName) return { name: byName.name, mode: networkModeOf(byName.type) };
    // The network is gone; kube-proxy's own flags still say overlay (a source VIP, the WinOverlay gate).
    const overlay = flagValue(args, 'source-vip') !== null || /WinOverlay=true/i.test(flagValue(args, 'feature-gates') ?? '');
    return { name: named, mode: overlay ? 'overlay' : null };
  }
  const first = facts.networks.find((n) => !NON_POD_NETWORKS.has(n.name.toLowerCase()));
  return first ? { name: first.name, mode: networkModeOf(first.type) } : null;
}

/** A snapshot for the plan and the result (what the node looked like). */
export function snapshotOf(facts: NodeFacts, target: Detection): NodeSnapshot {
  const detections = detectAll(facts);
  const services = Object.values(detections)
    .filter((d) => d.service !== null)
    .map((d) => ({ name: d.service!.name, status: d.service!.status, startType: d.service!.startType, pid: d.service!.pid }));
  const pod = target.method === 'daemonset-pod' && facts.pods ? (target.pod ? (facts.pods.find((p) => p.uid === target.pod!.uid) ?? target.pod) : null) : null;
  return {
    at: facts.at,
    nodeReady: facts.kubeNode ? facts.kubeNode.ready : null,
    unschedulable: facts.kubeNode ? facts.kubeNode.unschedulable : null,
    services,
    hnsNetworks: facts.networks ? facts.networks.map((n) => ({ name: n.name, type: n.type })) : null,
    loadBalancerCount: facts.loadBalancerCount,
    pod: pod ? { namespace: pod.namespace, name: pod.name, uid: pod.uid, phase: pod.phase, ready: pod.ready } : null,
    podCount: facts.pods ? facts.pods.length : null,
    findings: facts.findings,
    errors: [...facts.errors],
  };
}

export interface BuildPlanInput {
  /** The store's cluster id (null: none). */
  clusterId: string | null;
  node: string;
  component: RestartComponent;
  options: { cordon: boolean; drain: boolean };
  facts: NodeFacts;
  versions: { restartService: number; hnsNetworks: number };
  tunables: Pick<RestartTunables, 'serviceTimeoutMs' | 'podReplaceTimeoutMs' | 'networkWaitMs' | 'drainTimeoutMs' | 'readTimeoutMs' | 'planTtlMs'>;
  /** The transport the facts were read over. */
  transport: TransportKind;
  now: number;
  /** Other mutating work on this node (a blocker). */
  busy?: string | null;
}

/** Lay out the plan from the facts. Pure except for the hash. */
export function buildPlan(input: BuildPlanInput): RestartPlan {
  const { facts, component, node } = input;
  const detections = detectAll(facts);
  const target = detections[component];
  const preChecks: PreCheck[] = [];
  const add = (id: string, status: PreCheck['status'], title: string, detail: string) => preChecks.push({ id, status, title, detail });
  const executable = new Set<RestartComponent>(
    Object.values(detections)
      .filter((d) => isExecutableMethod(d.method) && d.refusal === null)
      .map((d) => d.component),
  );
  const podNet = podNetworkOf(facts, detections);

  // How it runs.
  add('layout', target.refusal ? 'blocker' : 'ok', `How ${component} runs`, target.refusal ? `${target.layout}. ${target.refusal}` : target.layout);
  if (input.busy) add('one-at-a-time', 'blocker', 'Other work on this node', input.busy);
  if (target.service) {
    const s = target.service;
    add(
      'state',
      s.status === 'Running' ? 'ok' : 'info',
      `${s.name} is ${s.status}`,
      s.status === 'Running' ? `Running as pid ${s.pid ?? '?'}.` : `It is ${s.status} now; the restart starts it.`,
    );
    if (s.startType === 'Disabled') {
      add(
        'start-type',
        'blocker',
        `${s.name} is Disabled`,
        `Windeck does not change start types. Enable it first (Set-Service -Name ${s.name} -StartupType Automatic) if it should run.`,
      );
    }
  }
  if (target.pod)
    add(
      'state',
      target.pod.ready ? 'ok' : 'info',
      `Pod ${target.pod.name}`,
      `${target.pod.phase ?? 'phase unknown'}, ${target.pod.ready ? 'Ready' : 'not Ready'}.`,
    );

  // The node in the cluster.
  if (facts.kubeNode === undefined) {
    add(
      'node-ready',
      target.method === 'daemonset-pod' ? 'blocker' : 'warning',
      'Node state unknown',
      `The cluster could not be read, so the node's Ready state and its pods are unknown.${target.method === 'daemonset-pod' ? ' A DaemonSet pod can only be restarted through the cluster.' : ''}`,
    );
  } else if (facts.kubeNode === null) {
    add(
      'node-ready',
      target.method === 'daemonset-pod' ? 'blocker' : 'warning',
      `${node} is not registered`,
      `The cluster has no Node "${node}"${component === 'kubelet' ? '; restarting kubelet may register it.' : '.'}`,
    );
  } else {
    const ready = facts.kubeNode.ready;
    add(
      'node-ready',
      ready ? 'ok' : 'warning',
      ready ? 'Node Ready' : 'Node not Ready',
      ready
        ? `${node} is Ready.`
        : `${node} is ${ready === false ? 'NotReady' : 'Unknown'}${facts.kubeNode.readyReason ? ` (${facts.kubeNode.readyReason})` : ''}; the post-check expects it Ready after the restart.`,
    );
    if (facts.kubeNode.unschedulable) add('cordoned', 'info', 'Node already cordoned', `${node} is unschedulable already; Windeck leaves it that way.`);
  }

  // Dependencies (kube-proxy depends on kubelet; flanneld before kube-proxy on overlay).
  for (const before of START_AFTER[component]) {
    const d = detections[before];
    if (d.method === 'absent') continue;
    const state = d.service ? d.service.status : d.pod ? (d.pod.ready ? 'Running' : (d.pod.phase ?? 'unknown')) : d.process ? 'Running' : 'unknown';
    const declared = target.service?.dependsOn.some((x) => x.toLowerCase() === (d.service?.name ?? before).toLowerCase()) ?? false;
    if (state === 'Running') add(`depends-on-${before}`, 'ok', `${component} needs ${before}`, `${d.realName ?? before} is running.`);
    else
      add(
        `depends-on-${before}`,
        'warning',
        `${component} needs ${before}`,
        `${d.realName ?? before} is ${state}.${declared ? ` Windows starts it first because ${target.realName} depends on it.` : ` Start ${before} first, or ${component} may not come up properly.`}`,
      );
  }
  if (
    component === 'kube-proxy' &&
    podNet &&
    podNet.mode === 'overlay' &&
    facts.networks &&
    !facts.networks.some((n) => n.name.toLowerCase() === podNet.name.toLowerCase())
  ) {
    add(
      'pod-network',
      'warning',
      `Network ${podNet.name} is missing`,
      `kube-proxy programs its load balancers on ${podNet.name}, which does not exist; restart flanneld instead (Windeck restarts kube-proxy after it).`,
    );
  }

  // HNS and kube-proxy's load balancers.
  if (facts.networks)
    add('hns-networks', 'info', `${facts.networks.length} HNS network(s)`, facts.networks.map((n) => `${n.name} (${n.type ?? '?'})`).join(', ') || 'none');
  if (facts.loadBalancerCount !== null)
    add('load-balancers', 'info', `${facts.loadBalancerCount} load balancer(s)`, 'HNS policy lists with an ELB policy, compared after the restart.');

  // Stale SourceVip (flannel overlay; kube-proxy reads it at start).
  if (facts.files && (component === 'flanneld' || component === 'kube-proxy' || component === 'hns')) {
    const text = (p: string) => facts.files!.find((f) => f.path.toLowerCase() === p.toLowerCase())?.text ?? null;
    const verdict = sourceVipVerdict({ sourceVipJson: text(SOURCE_VIP_PATH), subnetEnv: text(SUBNET_ENV_PATH), podCidr: facts.kubeNode?.podCIDR ?? null });
    if (verdict.status === 'stale' || verdict.status === 'invalid') {
      add(
        'sourcevip',
        'warning',
        verdict.status === 'stale' ? 'Stale SourceVip files' : 'Unusable SourceVip file',
        `${verdict.detail} kube-proxy will keep failing after a restart until they are removed: Remove-Item ${SOURCE_VIP_PATH}, ${SOURCE_VIP_REQUEST_PATH} (then restart kube-proxy).`,
      );
    } else if (verdict.status === 'ok') add('sourcevip', 'ok', 'SourceVip matches the pod subnet', verdict.detail);
  }

  // flanneld needs NODE_NAME in its environment (WINDOWS-KNOWLEDGE.md section 1); nssm keeps it in AppEnvironmentExtra.
  const flannel = detections.flanneld.service;
  if (flannel?.nssm && (component === 'flanneld' || component === 'hns') && !flannel.nssm.appEnvironmentExtra.some((e) => /^NODE_NAME=./i.test(e))) {
    add(
      'flanneld-node-name',
      'warning',
      'flanneld has no NODE_NAME',
      `The nssm service "${flannel.name}" sets no NODE_NAME in AppEnvironmentExtra; flanneld will not find its node after the restart. Set it first: nssm set ${flannel.name} AppEnvironmentExtra NODE_NAME=${node}`,
    );
  }

  for (const e of facts.errors) add('read-error', 'warning', 'Not everything could be read', e);

  // The sequence and its steps.
  // Nothing runs (not even follow-ups) when the target itself cannot be restarted.
  const sequence =
    target.refusal === null && isExecutableMethod(target.method) ? restartSequence(component, { present: executable, networkMode: podNet?.mode ?? null }) : [];
  const steps: PlannedStep[] = [];
  const push = (s: Omit<PlannedStep, 'index'>) => steps.push({ ...s, index: steps.length });
  const cordonWanted = input.options.cordon || input.options.drain;
  const alreadyCordoned = facts.kubeNode?.unschedulable === true;
  const cordonSteps = cordonWanted && !alreadyCordoned && sequence.length > 0;
  if (cordonSteps) {
    push({
      kind: 'cordon',
      component: null,
      target: node,
      title: `Cordon ${node}`,
      commands: cordonCommands(node, true),
      timeoutMs: input.tunables.readTimeoutMs,
    });
  }
  if (input.options.drain && sequence.length > 0) {
    const evict = (facts.pods ?? []).filter((p) => !p.deleting && isEvictable({ ownerKind: p.ownerKind, mirror: p.mirror }));
    push({
      kind: 'drain',
      component: null,
      target: node,
      title: `Drain ${node} (${evict.length} pod(s) evicted, DaemonSet pods stay)`,
      commands: drainCommands(node, evict),
      timeoutMs: input.tunables.drainTimeoutMs,
    });
  }
  const restartedServices: string[] = [];
  for (const c of sequence) {
    const d = detections[c];
    if (!isExecutableMethod(d.method) || d.refusal) {
      if (c !== component)
        add(`follow-up-${c}`, 'warning', `${c} must follow, but Windeck cannot restart it`, `${d.layout}. Restart it yourself after this restart.`);
      continue;
    }
    if (d.service) {
      const dependents = serviceDependents(d.service.name, facts.services).filter((n) => facts.services.find((s) => s.name === n)?.status === 'Running');
      restartedServices.push(d.service.name, ...dependents);
      const timeoutSeconds = Math.max(1, Math.min(600, Math.round(input.tunables.serviceTimeoutMs / 1000)));
      push({
        kind: 'restart-service',
        component: c,
        target: d.service.name,
        title: `Restart ${d.service.name}${dependents.length > 0 ? ` (and its dependents ${dependents.join(', ')})` : ''}`,
        commands: serviceRestartCommands({ serviceName: d.service.name, dependents, timeoutSeconds, scriptVersion: input.versions.restartService }),
        timeoutMs: timeoutSeconds * 1000 + 30_000,
      });
      if (c !== component || dependents.length > 0)
        add(
          `also-${c}`,
          'info',
          `${c} restarts too`,
          c === component
            ? `${dependents.join(', ')} depend(s) on ${d.service.name}: Windows stops them with it and Windeck starts them again.`
            : `${c} follows ${component} in dependency order.`,
        );
    } else if (d.pod) {
      push({
        kind: 'delete-pod',
        component: c,
        target: `${d.pod.namespace}/${d.pod.name}`,
        title: `Delete pod ${d.pod.namespace}/${d.pod.name} and wait for its DaemonSet to start a Ready replacement`,
        commands: podRestartCommands({ node, namespace: d.pod.namespace, pod: d.pod.name, daemonSet: d.pod.ownerName ?? '?' }),
        timeoutMs: input.tunables.podReplaceTimeoutMs,
      });
    }
    if (c === 'flanneld' && podNet) {
      push({
        kind: 'wait-network',
        component: null,
        target: podNet.name,
        title: `Wait for HNS network ${podNet.name}`,
        commands: waitNetworkCommands({ networks: [podNet.name], scriptVersion: input.versions.hnsNetworks }),
        timeoutMs: input.tunables.networkWaitMs,
      });
    }
  }
  if (cordonSteps) {
    push({
      kind: 'uncordon',
      component: null,
      target: node,
      title: `Uncordon ${node} once the restart recovered`,
      commands: cordonCommands(node, false),
      timeoutMs: input.tunables.readTimeoutMs,
    });
  }

  // Who is disrupted.
  const podsBrief = (facts.pods ?? []).map((p) => ({
    namespace: p.namespace,
    name: p.name,
    hostProcess: p.hostProcess,
    hostNetwork: p.hostNetwork,
    ownerKind: p.ownerKind,
  }));
  const deleted = sequence.map((c) => detections[c].pod).filter((p) => p !== null);
  const disruptedPods = [
    ...podsDisrupted(component, podsBrief, deleted[0] ? { namespace: deleted[0].namespace, name: deleted[0].name } : null),
    ...deleted.slice(1).map((p) => ({ namespace: p!.namespace, name: p!.name, reason: 'deleted; its DaemonSet starts a replacement' })),
  ];
  if (facts.pods) {
    add(
      'pods',
      disruptedPods.length > 0 ? 'info' : 'ok',
      `${facts.pods.length} pod(s) on the node`,
      disruptedPods.length > 0 ? `${disruptedPods.length} disrupted: ${disruptionSummary(component)}` : 'None is disrupted by this restart.',
    );
  }
  if (recommendsCordon(component) && !cordonWanted)
    add('cordon', 'warning', 'Consider cordon and drain', `Restarting ${component} disrupts every pod on the node; cordon (and drain) it first.`);

  const blockers = preChecks.filter((p) => p.status === 'blocker');
  const canExecute = isExecutableMethod(target.method) && target.refusal === null && blockers.length === 0 && steps.some((s) => s.component === component);
  const refusal = canExecute ? null : (target.refusal ?? (blockers.map((b) => b.detail).join(' ') || `Windeck found nothing it can restart for ${component}.`));

  const base = {
    cluster: input.clusterId,
    node,
    component,
    method: target.method,
    serviceName: target.realName,
    options: { cordon: cordonWanted, drain: input.options.drain },
    steps,
  };
  return {
    ...base,
    planHash: hashPlan(base),
    layout: target.layout,
    transport: input.transport,
    canExecute,
    refusal,
    preChecks,
    disruption: { summary: disruptionSummary(component), services: [...new Set(restartedServices)], pods: disruptedPods },
    before: snapshotOf(facts, target),
    createdAt: input.now,
    expiresAt: input.now + input.tunables.planTtlMs,
  };
}

/** sha256 over the canonical text; a drain's evicted pods are left out (they change as pods come and go). */
export function hashPlan(plan: Parameters<typeof canonicalPlanText>[0]): string {
  const steps = plan.steps.map((s) => (s.kind === 'drain' ? { ...s, commands: [] } : s));
  return crypto
    .createHash('sha256')
    .update(canonicalPlanText({ ...plan, steps }))
    .digest('hex');
}

/** Refuse a plan that cannot run, with its reason (UNSUPPORTED). */
export function assertExecutable(plan: RestartPlan): void {
  if (!plan.canExecute)
    throw new WindeckError('UNSUPPORTED', plan.refusal ?? `Windeck cannot restart ${plan.component} on ${plan.node}.`, { node: plan.node, step: 'plan' });
}
