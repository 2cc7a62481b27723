import type { Finding } from '../../domain/finding';
import {
  canLandOn,
  lintableWorkloads,
  objectRef,
  podTemplateOf,
  windowsNodesFor,
  WINDOWS_INTRO_URL,
  type ClusterFacts,
  type ClusterRule,
  type PodSpecLike,
} from './cluster-facts';

const OS_KEYS = new Set(['kubernetes.io/os', 'beta.kubernetes.io/os']);

/** True when a pod spec says which OS it needs (spec.os, an OS nodeSelector, or OS in every required affinity term). */
export function hasOsTargeting(spec: PodSpecLike | null | undefined): boolean {
  if (!spec) return false;
  if (spec.os?.name) return true;
  if (Object.keys(spec.nodeSelector ?? {}).some((k) => OS_KEYS.has(k))) return true;
  const terms = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  return terms.length > 0 && terms.every((t) => (t?.matchExpressions ?? []).some((e) => OS_KEYS.has(e?.key ?? '')));
}

/**
 * `workload-os-selector-missing` (warning): in a mixed cluster, a workload with no OS node selector or
 * affinity can be scheduled onto both Linux and Windows nodes (the Windows nodes carry no taint it lacks a
 * toleration for), so its pods may land on the wrong OS.
 */
export const workloadOsSelectorMissingRule: ClusterRule = {
  id: 'workload-os-selector-missing',
  evaluate(facts: ClusterFacts): Finding[] {
    const windows = facts.nodes.filter((n) => n.os === 'windows');
    const linux = facts.nodes.filter((n) => n.os === 'linux');
    if (windows.length === 0 || linux.length === 0) return [];
    const out: Finding[] = [];
    for (const w of lintableWorkloads(facts.workloads ?? [])) {
      const spec = podTemplateOf(w)?.spec;
      if (hasOsTargeting(spec)) continue;
      const onWindows = windowsNodesFor(w, windows);
      if (onWindows.length === 0) continue;
      const onLinux = linux.filter((n) => canLandOn(spec, n));
      if (onLinux.length === 0) continue;
      const ref = objectRef(w.kind, w.metadata);
      const untainted = onWindows.filter((n) => !n.taints.some((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute'));
      out.push({
        ruleId: 'workload-os-selector-missing',
        severity: 'warning',
        node: null,
        title: `${w.kind ?? 'Workload'} ${w.metadata?.namespace ? `${w.metadata.namespace}/` : ''}${w.metadata?.name ?? ''} has no OS selector and can land on Linux and Windows nodes`,
        evidence: [
          { source: ref, line: null, excerpt: `no spec.os, no kubernetes.io/os nodeSelector or required node affinity (nodeSelector: ${JSON.stringify(spec?.nodeSelector ?? {})})` },
          {
            source: `node/${(untainted[0] ?? onWindows[0])!.name}`,
            line: null,
            excerpt:
              untainted.length === onWindows.length
                ? `${untainted.length} of ${windows.length} Windows node(s) carry no NoSchedule/NoExecute taint (e.g. ${untainted[0]!.name})`
                : `the workload tolerates the taints of ${onWindows.length - untainted.length} Windows node(s)${untainted.length ? `; ${untainted.length} carry no taint at all` : ''}`,
          },
        ],
        remediation: {
          summary: 'Pods without an OS selector can be scheduled onto a node of the wrong OS, where their images cannot run.',
          steps: [
            'Add nodeSelector kubernetes.io/os: linux (or windows) to the pod template, or set spec.os.name.',
            'Taint the Windows nodes (for example os=windows:NoSchedule) and add the toleration only to Windows workloads.',
          ],
          commands: [
            `kubectl patch ${(w.kind ?? 'deployment').toLowerCase()} ${w.metadata?.name ?? ''}${w.metadata?.namespace ? ` -n ${w.metadata.namespace}` : ''} --type merge -p '{"spec":{"template":{"spec":{"nodeSelector":{"kubernetes.io/os":"linux"}}}}}'`,
            `kubectl taint nodes ${onWindows[0]!.name} os=windows:NoSchedule`,
          ],
          links: ['https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host', WINDOWS_INTRO_URL],
        },
      });
    }
    return out;
  },
};
