import {
  COMPONENT_PROCESS_NAMES,
  COMPONENT_SERVICE_NAMES,
  RESTART_COMPONENTS,
  canRunAsDaemonSet,
  daemonSetPodMatches,
  processNamesToQuery,
  refusalFor,
  serviceNamesToQuery,
  supervisorOf,
  type RestartComponent,
  type RestartMethod,
} from '../../../shared/logic/restart-plan';
import { splitCommandLine } from '../../../shared/parse/command-line';
import type { HostFile, HostNetwork, HostProcess, HostService, KubeNodeState, KubePod } from './ports';

/**
 * How a component runs on this node and under which real name (WINDOWS-KNOWLEDGE.md section 1): a Windows
 * service (`kubeproxy` on AKS, `Kubelet` on TKG), an nssm service (arguments in AppParameters), a HostProcess
 * DaemonSet pod (kubeadm + sig-windows-tools), a child of a supervisor (RKE2 `rke2`, `rancher-wins`), or a bare
 * process a start.ps1 left running. Decided from what the node and the cluster show, never from a fixed layout.
 */

/** The HostProcess container shim: a process whose parent is this runs in a HostProcess pod. */
export const HOSTPROCESS_SHIM = 'containerd-shim-runhcs-v1.exe';

/** Everything read from the node and the cluster that a plan is made from. */
export interface NodeFacts {
  node: string;
  at: number;
  services: HostService[];
  processes: HostProcess[];
  /** Null: the cluster could not be read. */
  pods: KubePod[] | null;
  /** Undefined: the cluster could not be read; null: the node is not registered. */
  kubeNode: KubeNodeState | null | undefined;
  networks: HostNetwork[] | null;
  loadBalancerCount: number | null;
  files: HostFile[] | null;
  findings: string[] | null;
  /** What could not be read, in words. */
  errors: string[];
}

export interface Detection {
  component: RestartComponent;
  method: RestartMethod;
  /** The real name: service name, or `namespace/pod` for a DaemonSet pod. */
  realName: string | null;
  service: HostService | null;
  pod: KubePod | null;
  process: HostProcess | null;
  supervisor: string | null;
  /** How it runs, in words. */
  layout: string;
  /** Why Windeck will not restart it (null when it will). */
  refusal: string | null;
}

/** Service names the detection asks the node for. */
export function detectionServiceNames(): string[] {
  return serviceNamesToQuery();
}

/** Process names the detection asks the node for (components, supervisors, the HostProcess shim). */
export function detectionProcessNames(): string[] {
  return [...processNamesToQuery(), HOSTPROCESS_SHIM.replace(/\.exe$/, '')];
}

function findService(component: RestartComponent, services: readonly HostService[]): HostService | null {
  for (const candidate of COMPONENT_SERVICE_NAMES[component]) {
    const hit = services.find((s) => s.name.toLowerCase() === candidate);
    if (hit) return hit;
  }
  return null;
}

function findProcess(component: RestartComponent, processes: readonly HostProcess[]): HostProcess | null {
  const names = COMPONENT_PROCESS_NAMES[component];
  return processes.find((p) => names.includes(p.name.toLowerCase()) || names.includes(`${p.name.toLowerCase()}.exe`)) ?? null;
}

function isNssm(service: HostService): boolean {
  return service.nssm !== null || /(^|[\\/"])nssm(\.exe)?("|\s|$)/i.test(service.pathName ?? '');
}

function describeService(service: HostService): string {
  if (isNssm(service)) {
    const app = service.nssm?.application || 'its application';
    const count = service.nssm ? service.nssm.appParameters.split(/\s+/).filter((t) => t !== '').length : 0;
    const env =
      service.nssm && service.nssm.appEnvironmentExtra.length > 0
        ? `, environment ${service.nssm.appEnvironmentExtra.map((e) => e.split('=')[0]).join(', ')}`
        : '';
    return `nssm service "${service.name}" running ${app} (${count} arguments in the registry's AppParameters${env}), start type ${service.startType ?? 'unknown'}`;
  }
  // Only the executable: arguments can carry credentials (tokens, bootstrap files) and plans go to the audit log.
  const args = splitCommandLine(service.pathName ?? '');
  const exe = args[0] ?? 'binary path unknown';
  const more = args.length > 1 ? ` with ${args.length - 1} argument(s)` : '';
  return `Windows service "${service.name}" (${exe}${more}), start type ${service.startType ?? 'unknown'}`;
}

/** Detect how `component` runs on the node described by `facts`. Pure. */
export function detectComponent(component: RestartComponent, facts: Pick<NodeFacts, 'node' | 'services' | 'processes' | 'pods'>): Detection {
  const base = { component, service: null, pod: null, process: null, supervisor: null, refusal: null } as const;

  const service = findService(component, facts.services);
  if (service) {
    const method: RestartMethod = component !== 'hns' && isNssm(service) ? 'nssm-service' : 'service';
    return { ...base, method, realName: service.name, service, layout: describeService(service) };
  }

  // A component process outside every HostProcess shim is not what a DaemonSet pod runs (the shims were asked
  // for too, so their list is complete): a bare or supervised process wins over a pod bound to the node.
  const running = findProcess(component, facts.processes);
  const shims = new Set(facts.processes.filter((p) => p.name.toLowerCase() === HOSTPROCESS_SHIM).map((p) => p.pid));
  const outsideShim = running !== null && !(running.parentPid !== null && shims.has(running.parentPid));
  const dsPod =
    canRunAsDaemonSet(component) && facts.pods
      ? (facts.pods.find(
          (p) =>
            p.ownerKind === 'DaemonSet' &&
            !p.deleting &&
            daemonSetPodMatches(component, { ownerName: p.ownerName ?? '', name: p.name, containers: p.containers }),
        ) ?? null)
      : null;

  if (dsPod && !outsideShim) {
    return {
      ...base,
      method: 'daemonset-pod',
      realName: `${dsPod.namespace}/${dsPod.name}`,
      pod: dsPod,
      layout: `${dsPod.hostProcess ? 'HostProcess ' : ''}pod ${dsPod.namespace}/${dsPod.name} of DaemonSet ${dsPod.ownerName ?? '?'} (${dsPod.phase ?? 'phase unknown'}${dsPod.ready ? ', Ready' : ', not Ready'})`,
    };
  }

  const process = running;
  const podNote = dsPod ? `; the DaemonSet pod ${dsPod.namespace}/${dsPod.name} bound to this node does not run it` : '';
  if (process) {
    const parent = process.parentPid !== null ? (facts.processes.find((p) => p.pid === process.parentPid) ?? null) : null;
    const supervisor = parent ? supervisorOf(parent.name) : null;
    if (supervisor) {
      return {
        ...base,
        method: 'supervised',
        realName: process.name,
        process,
        supervisor: supervisor.service,
        layout: `process ${process.name} (pid ${process.pid}) started by the ${supervisor.product} service "${supervisor.service}"`,
        refusal: refusalFor('supervised', {
          component,
          node: facts.node,
          processName: process.name,
          supervisor: `${supervisor.product} "${supervisor.service}"`,
        }),
      };
    }
    if (parent && parent.name.toLowerCase() === HOSTPROCESS_SHIM && canRunAsDaemonSet(component)) {
      // A HostProcess container whose pod we could not see: restarting needs the pod, so say what is missing.
      return {
        ...base,
        method: 'daemonset-pod',
        realName: null,
        process,
        layout: `process ${process.name} (pid ${process.pid}) inside a HostProcess container, but no matching DaemonSet pod was ${facts.pods ? 'found on this node' : 'readable (the cluster could not be reached)'}`,
        refusal: `Windeck restarts a HostProcess ${component} by deleting its DaemonSet pod, and ${facts.pods ? 'no such pod is bound to this node' : 'the cluster could not be reached to find it'}.`,
      };
    }
    const unsure = facts.pods === null && canRunAsDaemonSet(component) ? ' (the cluster could not be reached, so a DaemonSet pod could not be ruled out)' : '';
    return {
      ...base,
      method: 'bare-process',
      realName: process.name,
      process,
      layout: `bare process ${process.name} (pid ${process.pid}), no "${COMPONENT_SERVICE_NAMES[component].join('"/"')}" service${unsure}${podNote}`,
      refusal: refusalFor('bare-process', { component, node: facts.node, processName: process.name, commandLine: process.commandLine }),
    };
  }

  return {
    ...base,
    method: 'absent',
    realName: null,
    layout: `no ${component} service, DaemonSet pod or process on this node`,
    refusal: refusalFor('absent', { component, node: facts.node }),
  };
}

/** Detection of every restartable component (for follow-ups and the before/after snapshots). */
export function detectAll(facts: Pick<NodeFacts, 'node' | 'services' | 'processes' | 'pods'>): Record<RestartComponent, Detection> {
  return Object.fromEntries(RESTART_COMPONENTS.map((c) => [c, detectComponent(c, facts)])) as Record<RestartComponent, Detection>;
}
