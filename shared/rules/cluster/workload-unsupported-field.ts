import type { Finding } from '../../domain/finding';
import {
  lintableWorkloads,
  objectRef,
  podTemplateOf,
  selectorMatches,
  windowsNodesFor,
  WINDOWS_INTRO_URL,
  type ClusterFacts,
  type ClusterRule,
  type ContainerLike,
  type PodSpecLike,
  type SecurityContextLike,
  type WorkloadObject,
} from './cluster-facts';

/** One use of a field Windows does not support (WINDOWS-KNOWLEDGE.md section 3). */
export interface UnsupportedFieldUse {
  /** Path in the object, e.g. `spec.template.spec.containers[web].securityContext.runAsUser`. */
  path: string;
  /** The field's short name from the list (`runAsUser`, `emptyDir.medium: Memory`, ...). */
  field: string;
  /** What to use instead, when there is something. */
  hint?: string;
}

const DEFAULT_TERMINATION_MESSAGE_PATH = '/dev/termination-log';

function specPath(kind: string | undefined): string {
  if (kind === 'Pod') return 'spec';
  if (kind === 'CronJob') return 'spec.jobTemplate.spec.template.spec';
  return 'spec.template.spec';
}

function isSet(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value as object).length > 0;
  return true;
}

function securityContextUses(sc: SecurityContextLike | null | undefined, base: string, podLevel: boolean): UnsupportedFieldUse[] {
  if (!sc) return [];
  const out: UnsupportedFieldUse[] = [];
  const add = (field: string, hint?: string) => out.push({ path: `${base}.securityContext.${field}`, field, ...(hint ? { hint } : {}) });
  if (sc.privileged === true) add('privileged', 'use a HostProcess container (securityContext.windowsOptions.hostProcess) for node-level work');
  if (sc.allowPrivilegeEscalation === true) add('allowPrivilegeEscalation');
  if (isSet(sc.runAsUser)) add('runAsUser', 'use securityContext.windowsOptions.runAsUserName');
  if (isSet(sc.runAsGroup)) add('runAsGroup');
  if (sc.runAsNonRoot === true) add('runAsNonRoot', 'on Windows set windowsOptions.runAsUserName to a non-administrator account instead');
  if (isSet(sc.seLinuxOptions)) add('seLinuxOptions');
  if (isSet(sc.capabilities?.add) || isSet(sc.capabilities?.drop)) add('capabilities');
  if (isSet(sc.procMount) && sc.procMount !== 'Default') add('procMount');
  if (sc.readOnlyRootFilesystem === true) add('readOnlyRootFilesystem');
  if (podLevel) {
    if (isSet(sc.fsGroup)) add('fsGroup');
    if (isSet(sc.supplementalGroups)) add('supplementalGroups');
    if (isSet(sc.sysctls)) add('sysctls');
  }
  return out;
}

function isHostProcess(spec: PodSpecLike): boolean {
  if (spec.securityContext?.windowsOptions?.hostProcess === true) return true;
  return [...(spec.containers ?? []), ...(spec.initContainers ?? [])].some((c) => c?.securityContext?.windowsOptions?.hostProcess === true);
}

function containerUses(c: ContainerLike, base: string, dockerRuntime: boolean): UnsupportedFieldUse[] {
  const out = securityContextUses(c.securityContext, base, false);
  for (const [i, m] of (c.volumeMounts ?? []).entries()) {
    if (!m) continue;
    const at = `${base}.volumeMounts[${m.name ?? i}]`;
    if (isSet(m.mountPropagation) && m.mountPropagation !== 'None') out.push({ path: `${at}.mountPropagation`, field: 'mountPropagation' });
    if (dockerRuntime && (isSet(m.subPath) || isSet(m.subPathExpr))) out.push({ path: `${at}.subPath`, field: 'subPath mounts (Docker runtime)', hint: 'move the node to containerd, which supports subPath' });
  }
  if (isSet(c.volumeDevices)) out.push({ path: `${base}.volumeDevices`, field: 'volumeDevices' });
  if (isSet(c.terminationMessagePath) && c.terminationMessagePath !== DEFAULT_TERMINATION_MESSAGE_PATH) {
    out.push({ path: `${base}.terminationMessagePath`, field: 'terminationMessagePath', hint: 'Windows cannot map single files; keep the default' });
  }
  for (const part of ['requests', 'limits'] as const) {
    for (const key of Object.keys(c.resources?.[part] ?? {})) {
      if (key.startsWith('hugepages-')) out.push({ path: `${base}.resources.${part}.${key}`, field: 'hugepages' });
    }
  }
  return out;
}

/** Every use of a Windows-unsupported field in a pod spec (paths relative to the workload object). */
export function unsupportedFieldUses(workload: WorkloadObject, options: { dockerRuntime?: boolean } = {}): UnsupportedFieldUse[] {
  const template = podTemplateOf(workload);
  const spec = template?.spec;
  if (!spec) return [];
  const base = specPath(workload.kind);
  const out: UnsupportedFieldUse[] = [];
  const hostProcess = isHostProcess(spec);
  if (spec.hostNetwork === true && !hostProcess) out.push({ path: `${base}.hostNetwork`, field: 'hostNetwork', hint: 'only HostProcess pods may use the host network on Windows' });
  if (spec.hostPID === true) out.push({ path: `${base}.hostPID`, field: 'hostPID' });
  if (spec.hostIPC === true) out.push({ path: `${base}.hostIPC`, field: 'hostIPC' });
  if (spec.shareProcessNamespace === true) out.push({ path: `${base}.shareProcessNamespace`, field: 'shareProcessNamespace' });
  if (spec.dnsPolicy === 'ClusterFirstWithHostNet') out.push({ path: `${base}.dnsPolicy`, field: 'dnsPolicy: ClusterFirstWithHostNet' });
  out.push(...securityContextUses(spec.securityContext, base, true));
  for (const [list, name] of [
    [spec.initContainers, 'initContainers'],
    [spec.containers, 'containers'],
  ] as const) {
    for (const [i, c] of (list ?? []).entries()) {
      if (c) out.push(...containerUses(c, `${base}.${name}[${c.name ?? i}]`, options.dockerRuntime === true));
    }
  }
  for (const [i, v] of (spec.volumes ?? []).entries()) {
    if (!v) continue;
    const at = `${base}.volumes[${v.name ?? i}]`;
    if (v.emptyDir?.medium === 'Memory') out.push({ path: `${at}.emptyDir.medium`, field: 'emptyDir.medium: Memory' });
    if (isSet(v.nfs)) out.push({ path: `${at}.nfs`, field: 'NFS volumes' });
    for (const source of ['secret', 'configMap', 'projected', 'downwardAPI'] as const) {
      const s = v[source] as { defaultMode?: number | null; items?: Array<{ mode?: number | null }> | null } | null | undefined;
      if (!s) continue;
      if (isSet(s.defaultMode)) out.push({ path: `${at}.${source}.defaultMode`, field: 'volume defaultMode', hint: 'Windows does not apply POSIX file modes' });
      if ((s.items ?? []).some((it) => isSet(it?.mode))) out.push({ path: `${at}.${source}.items[].mode`, field: 'volume defaultMode', hint: 'Windows does not apply POSIX file modes' });
    }
  }
  return out;
}

const MAX_EVIDENCE = 25;

/**
 * `workload-unsupported-field` (error): a workload whose pods can be scheduled onto a Windows node uses a
 * field Windows does not support; also Services in front of such pods that set
 * `sessionAffinityConfig.clientIP.timeoutSeconds`.
 */
export const workloadUnsupportedFieldRule: ClusterRule = {
  id: 'workload-unsupported-field',
  evaluate(facts: ClusterFacts): Finding[] {
    const out: Finding[] = [];
    const windowsNodes = facts.nodes.filter((n) => n.os === 'windows');
    if (windowsNodes.length === 0) return out;
    const landing: Array<{ workload: WorkloadObject; labels: Record<string, string> }> = [];
    for (const w of lintableWorkloads(facts.workloads ?? [])) {
      const targets = windowsNodesFor(w, windowsNodes);
      if (targets.length === 0) continue;
      landing.push({ workload: w, labels: podTemplateOf(w)?.metadata?.labels ?? {} });
      const docker = targets.some((n) => (n.containerRuntime ?? '').startsWith('docker://'));
      const uses = unsupportedFieldUses(w, { dockerRuntime: docker });
      if (uses.length === 0) continue;
      const ref = objectRef(w.kind, w.metadata);
      const fields = [...new Set(uses.map((u) => u.field))];
      out.push({
        ruleId: 'workload-unsupported-field',
        severity: 'error',
        node: null,
        title: `${w.kind ?? 'Workload'} ${w.metadata?.namespace ? `${w.metadata.namespace}/` : ''}${w.metadata?.name ?? ''} can run on Windows nodes but uses ${fields.join(', ')}`,
        evidence: uses.slice(0, MAX_EVIDENCE).map((u) => ({ source: ref, line: null, excerpt: `${u.path}${u.hint ? ` (${u.hint})` : ''}` })),
        remediation: {
          summary: `Windows does not support ${fields.join(', ')}; pods of this workload fail or behave differently on the ${targets.length} Windows node(s) they can land on (${targets
            .slice(0, 5)
            .map((n) => n.name)
            .join(', ')}${targets.length > 5 ? ', ...' : ''}).`,
          steps: [
            'If the workload is Linux-only, add nodeSelector kubernetes.io/os: linux (or spec.os.name: linux) so it never lands on Windows.',
            'If it must run on Windows, remove the listed fields; use securityContext.windowsOptions.runAsUserName instead of runAsUser.',
          ],
          commands: [`kubectl get ${(w.kind ?? 'pod').toLowerCase()} ${w.metadata?.name ?? ''}${w.metadata?.namespace ? ` -n ${w.metadata.namespace}` : ''} -o yaml`],
          links: [`${WINDOWS_INTRO_URL}#compatibility-v1-pod`],
        },
      });
    }
    for (const svc of facts.services ?? []) {
      const timeout = svc.spec?.sessionAffinityConfig?.clientIP?.timeoutSeconds;
      if (timeout === undefined || timeout === null) continue;
      const selected = landing.filter((l) => (l.workload.metadata?.namespace ?? '') === (svc.metadata?.namespace ?? '') && selectorMatches(svc.spec?.selector, l.labels));
      if (selected.length === 0) continue;
      const ref = objectRef('Service', svc.metadata);
      out.push({
        ruleId: 'workload-unsupported-field',
        severity: 'error',
        node: null,
        title: `Service ${svc.metadata?.namespace ?? ''}/${svc.metadata?.name ?? ''} sets a session affinity timeout, which Windows does not support`,
        evidence: [{ source: ref, line: null, excerpt: `spec.sessionAffinityConfig.clientIP.timeoutSeconds: ${timeout} (selects ${selected.map((l) => objectRef(l.workload.kind, l.workload.metadata)).join(', ')})` }],
        remediation: {
          summary: 'Windows load balancing ignores sessionAffinityConfig.clientIP.timeoutSeconds.',
          steps: ['Remove timeoutSeconds (keep sessionAffinity: ClientIP if you need affinity), or keep the backends off Windows nodes.'],
          commands: [`kubectl get service ${svc.metadata?.name ?? ''} -n ${svc.metadata?.namespace ?? 'default'} -o yaml`],
          links: [`${WINDOWS_INTRO_URL}#networking`],
        },
      });
    }
    return out;
  },
};
