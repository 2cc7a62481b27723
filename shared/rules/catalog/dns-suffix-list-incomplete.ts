/**
 * `dns-suffix-list-incomplete`: a pod's DNS suffix search list lacks `svc.<domain>` or `<domain>`. Pod lists come
 * from ipconfig taken inside a container, HNS endpoint DNSSuffix, and the CNI config's dns.Search. A host's
 * ipconfig is never a pod's list.
 */
import { factsOf, type Fact } from '../../logic/facts';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

/** What the list lacks (`svc.cluster.local`, `cluster.local`), empty when complete. */
export function missingSuffixes(list: readonly string[]): string[] {
  const l = list.map((s) => s.trim().toLowerCase().replace(/\.$/, '')).filter((s) => s !== '');
  let domain = 'cluster.local';
  for (const s of l) {
    const m = /(?:^|\.)svc\.(.+)$/.exec(s);
    if (m) {
      domain = m[1]!;
      break;
    }
  }
  return [`svc.${domain}`, domain].filter((want) => !l.includes(want));
}

export const dnsSuffixListIncomplete: RuleModule = {
  id: 'dns-suffix-list-incomplete',
  severity: 'warning',
  description: 'A pod\'s suffix search list lacks `svc.<domain>` or `<domain>`.',
  remediation: {
    summary: 'Short names of services in other namespaces (`svc.ns`) or cluster names will not resolve from pods that get this list.',
    steps: [
      'Put `<namespace>.svc.cluster.local`, `svc.cluster.local` and `cluster.local` into the CNI config\'s dns.Search (or let kubelet pass the pod\'s DNS settings with a CNI that supports runtimeConfig dns).',
      'If the list inside a container is the host\'s (Azure or `localdomain` suffixes), the container is not on the CNI network or the runtime did not apply the endpoint DNS settings: check the container\'s network and the runtime version.',
      'Recreate the pods after the change.',
    ],
    commands: ['kubectl exec <pod> -- ipconfig /all', 'Get-HnsEndpoint | Select-Object Name, DNSSuffix, DNSServerList', 'Get-Content C:\\etc\\cni\\net.d\\*.conf*'],
    links: [LINKS.dnsPodService, LINKS.windowsNetworkingLimits],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    const check = (f: Fact, list: string[], what: string, excerpt?: { line: number | null; text: string }) => {
      const missing = missingSuffixes(list);
      if (missing.length === 0) return;
      const ev = excerpt ? [{ ...f, line: excerpt.line, excerpt: excerpt.text }] : [f];
      hits.push({ title: `${what} lacks ${missing.join(' and ')} (has: ${list.join(', ') || 'nothing'})`, evidence: ev });
    };
    for (const f of factsOf(facts, 'ipconfig')) {
      if (f.data.view !== 'container') continue;
      const list = [...f.data.suffixSearchList, ...f.data.adapters.flatMap((a) => a.suffixSearchList)];
      const all = list.length ? list : f.data.adapters.map((a) => a.connectionSuffix).filter((s): s is string => !!s);
      check(f, [...new Set(all)], `The pod's DNS suffix search list (ipconfig inside the container; ${f.data.viewReason})`);
    }
    for (const f of factsOf(facts, 'hns-endpoint')) {
      if (f.data.isRemote === true || f.data.dnsSuffix === null) continue;
      if (f.data.dnsSuffix.length === 0 && !/^[0-9a-f]{16,}_/i.test(f.data.name)) continue;
      check(f, f.data.dnsSuffix, `HNS endpoint ${f.data.name} DNSSuffix`);
    }
    for (const f of factsOf(facts, 'cni-config')) {
      if (f.data.dnsSearch === null) continue;
      check(f, f.data.dnsSearch, `CNI config${f.data.name ? ` ${f.data.name}` : ''} dns.Search`, f.data.searchLine ? { line: f.data.searchLine, text: `"Search": [${f.data.dnsSearch.map((s) => `"${s}"`).join(', ')}]` } : undefined);
    }
    return hits;
  },
};
