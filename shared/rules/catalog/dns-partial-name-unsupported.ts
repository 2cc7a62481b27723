/** `dns-partial-name-unsupported` (info): a dotted partial name fails while the FQDN works (expected on Windows). */
import { factsOf } from '../../logic/facts';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';
import { isDottedPartialName } from './dns-cluster-lookup-failed';

export const dnsPartialNameUnsupported: RuleModule = {
  id: 'dns-partial-name-unsupported',
  severity: 'info',
  description: 'A dotted partial name (`kubernetes.default`) gets NXDOMAIN (while the FQDN works, when the evidence shows it): Windows treats names with a dot as FQDNs.',
  remediation: {
    summary: 'Expected behaviour on Windows, not a bug: pods get one DNS suffix and names containing a dot are not expanded.',
    steps: ['Use the short service name (same namespace) or the full name `<service>.<namespace>.svc.cluster.local`.'],
    commands: ['Resolve-DnsName <service>.<namespace>.svc.cluster.local'],
    links: [LINKS.windowsNetworkingLimits, LINKS.dnsPodService],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    const lookups = factsOf(facts, 'dns-lookup');
    for (const f of lookups) {
      if (f.data.outcome !== 'nxdomain' || !isDottedPartialName(f.data.query)) continue;
      const prefix = f.data.query.replace(/\.$/, '').toLowerCase();
      const fqdn = lookups.find((g) => g.data.outcome === 'ok' && g.data.query.toLowerCase().startsWith(`${prefix}.`) && (g.node === f.node || g.node === null || f.node === null));
      // The DNS server answered NXDOMAIN: the name was sent as is, not expanded with the search list.
      if (fqdn) hits.push({ title: `"${f.data.query}" does not resolve while "${fqdn.data.query}" does (partial names with a dot are not expanded on Windows)`, evidence: [f, fqdn] });
      else hits.push({ title: `"${f.data.query}" does not resolve: names with a dot are sent as they are on Windows, not expanded with the search list (use the full name)`, evidence: [f] });
    }
    return hits;
  },
};
