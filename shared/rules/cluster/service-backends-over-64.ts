import type { Finding } from '../../domain/finding';
import { WINDOWS_INTRO_URL, type ClusterFacts, type ClusterRule, type EndpointSliceObject } from './cluster-facts';

/** Windows load balancing (kube-proxy winkernel / HNS) supports at most this many backends per Service. */
export const WINDOWS_SERVICE_BACKEND_LIMIT = 64;

/** Ready endpoints of one Service across its slices (dual-stack slices are counted per address family, max taken). */
export function countServiceBackends(slices: readonly EndpointSliceObject[]): number {
  const perFamily = new Map<string, number>();
  for (const slice of slices) {
    const family = slice.addressType ?? 'IPv4';
    let n = perFamily.get(family) ?? 0;
    for (const ep of slice.endpoints ?? []) {
      if (!ep || (ep.addresses ?? []).length === 0) continue;
      if (ep.conditions?.ready === false) continue;
      n += 1;
    }
    perFamily.set(family, n);
  }
  return Math.max(0, ...perFamily.values());
}

/** `service-backends-over-64` (warning): a Service reachable from Windows nodes has more than 64 ready endpoints. */
export const serviceBackendsOver64Rule: ClusterRule = {
  id: 'service-backends-over-64',
  evaluate(facts: ClusterFacts): Finding[] {
    if (!facts.nodes.some((n) => n.os === 'windows')) return [];
    const byService = new Map<string, EndpointSliceObject[]>();
    for (const slice of facts.endpointSlices ?? []) {
      const svc = slice.metadata?.labels?.['kubernetes.io/service-name'];
      if (!svc) continue;
      const key = `${slice.metadata?.namespace ?? ''}/${svc}`;
      const list = byService.get(key) ?? [];
      list.push(slice);
      byService.set(key, list);
    }
    const out: Finding[] = [];
    for (const [key, slices] of [...byService].sort(([a], [b]) => a.localeCompare(b))) {
      const count = countServiceBackends(slices);
      if (count <= WINDOWS_SERVICE_BACKEND_LIMIT) continue;
      const [ns, name] = key.split('/') as [string, string];
      out.push({
        ruleId: 'service-backends-over-64',
        severity: 'warning',
        node: null,
        title: `Service ${key} has ${count} backends; Windows nodes load-balance at most ${WINDOWS_SERVICE_BACKEND_LIMIT}`,
        evidence: [{ source: `service/${key}`, line: null, excerpt: `${count} ready endpoints in ${slices.length} EndpointSlice(s)` }],
        remediation: {
          summary: `Windows nodes support at most ${WINDOWS_SERVICE_BACKEND_LIMIT} backend pods per Service; traffic from Windows pods and nodes to this Service may fail or skip backends.`,
          steps: [
            `Keep the Service at ${WINDOWS_SERVICE_BACKEND_LIMIT} or fewer ready pods, or split it into several Services.`,
            'If only Linux clients use this Service, you can ignore this warning.',
          ],
          commands: [`kubectl get endpointslices -n ${ns} -l kubernetes.io/service-name=${name}`],
          links: [`${WINDOWS_INTRO_URL}#networking`],
        },
      });
    }
    return out;
  },
};
