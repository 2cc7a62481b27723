import type { NodeLayoutResult } from '../../../../shared/contract/methods/nodes';
import type { ServiceCore } from '../../create-services';
import { detectAll } from '../../restart/detect';
import type { HostProcess, HostService, KubePod } from '../../restart/ports';
import { RESTART_COMPONENTS } from '../../../../shared/logic/restart-plan';
import { PodsRepo } from '../../store/repos/pods';
import { ProbeResultsRepo, type ProbeResultRow } from '../../store/repos/probe-results';

/** Probes the detection reads: states, binaries/nssm, processes. */
const LAYOUT_PROBES = ['services', 'service-config', 'processes'] as const;

const rec = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Stored `services` + `service-config` parsed forms -> the restart engine's HostService, merged by name. */
export function hostServicesOf(services: unknown, configs: unknown): HostService[] {
  const byName = new Map<string, HostService>();
  for (const item of arr(rec(services).services)) {
    const s = rec(item);
    const name = str(s.name);
    if (!name) continue;
    byName.set(name.toLowerCase(), {
      name,
      displayName: str(s.displayName),
      status: str(s.status) ?? 'Unknown',
      startType: str(s.startType),
      dependsOn: [],
      pathName: null,
      nssm: null,
      pid: null,
    });
  }
  for (const item of arr(configs)) {
    const c = rec(item);
    const name = str(c.name);
    if (!name) continue;
    const known = byName.get(name.toLowerCase());
    const n = c.nssm ? rec(c.nssm) : null;
    const pid = typeof c.processId === 'number' && c.processId > 0 ? c.processId : null;
    byName.set(name.toLowerCase(), {
      name: known?.name ?? name,
      displayName: known?.displayName ?? str(c.displayName),
      status: known?.status ?? str(c.state) ?? 'Unknown',
      startType: known?.startType ?? str(c.startType),
      dependsOn: arr(c.dependOnService).map(String),
      pathName: str(c.pathName),
      nssm: n
        ? { application: str(n.application) ?? '', appParameters: str(n.appParameters) ?? '', appEnvironmentExtra: arr(n.appEnvironmentExtra).map(String) }
        : null,
      pid,
    });
  }
  return [...byName.values()];
}

/** Stored `processes` parsed form -> HostProcess (parent 0 = none). */
export function hostProcessesOf(processes: unknown): HostProcess[] {
  return arr(processes).flatMap((item) => {
    const p = rec(item);
    const name = str(p.name);
    const pid = typeof p.pid === 'number' ? p.pid : NaN;
    if (!name || !Number.isFinite(pid)) return [];
    return [{ pid, parentPid: typeof p.parentPid === 'number' && p.parentPid > 0 ? p.parentPid : null, name, commandLine: str(p.commandLine) }];
  });
}

/**
 * The detected layout of a node from what is stored: the restart engine's own detection (restart/detect.ts) over
 * the newest probes and the stored pods bound to the node. Stored pods carry no container names or HostProcess
 * flag, so a DaemonSet pod is recognized by its DaemonSet or pod name.
 */
export function nodeLayout(core: ServiceCore, clusterId: string, node: string, podsSyncedAt: number | null): NodeLayoutResult {
  const latest = new ProbeResultsRepo(core.store.db).latest(clusterId, node);
  const ok = new Map<string, ProbeResultRow>(latest.filter((r) => r.ok && (LAYOUT_PROBES as readonly string[]).includes(r.probeId)).map((r) => [r.probeId, r]));
  const services = ok.get('services');
  if (!services) return { node, probedAt: null, oldestAt: null, podsSyncedAt, missing: [...LAYOUT_PROBES], components: [] };
  const used = [...ok.values()];
  const pods: KubePod[] = new PodsRepo(core.store.db).listByNode(clusterId, node).map((p) => ({
    namespace: p.namespace,
    name: p.name,
    uid: p.uid,
    phase: p.phase,
    ready: p.containerCount > 0 && p.readyCount === p.containerCount,
    ownerKind: p.ownerKind,
    ownerName: p.ownerName,
    hostProcess: false,
    hostNetwork: false,
    containers: [],
    mirror: p.ownerKind === 'Node',
    deleting: false,
  }));
  const detections = detectAll({
    node,
    services: hostServicesOf(services.parsed, ok.get('service-config')?.parsed),
    processes: hostProcessesOf(ok.get('processes')?.parsed),
    pods,
  });
  return {
    node,
    probedAt: Math.max(...used.map((r) => r.startedAt)),
    oldestAt: Math.min(...used.map((r) => r.startedAt)),
    podsSyncedAt,
    missing: LAYOUT_PROBES.filter((id) => !ok.has(id)),
    components: RESTART_COMPONENTS.map((c) => {
      const d = detections[c];
      return { component: c, method: d.method, realName: d.realName, layout: d.layout, refusal: d.refusal };
    }),
  };
}
