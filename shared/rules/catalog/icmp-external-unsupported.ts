/** `icmp-external-unsupported` (info): ping to outside the cluster fails while TCP works (expected on Windows). */
import { factsOf } from '../../logic/facts';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

export const icmpExternalUnsupported: RuleModule = {
  id: 'icmp-external-unsupported',
  severity: 'info',
  description: 'ICMP to outside the cluster fails while TCP works: a known Windows limitation.',
  remediation: {
    summary: 'Expected behaviour, not a bug: ICMP packets from Windows pods to addresses outside the cluster are not NAT\'ed back. Test egress with TCP (curl, Test-NetConnection -Port).',
    steps: ['Use `curl` or `Test-NetConnection <host> -Port 443` to test external connectivity from Windows pods.'],
    commands: ['Test-NetConnection www.example.com -Port 443', 'curl.exe -sI https://www.example.com'],
    links: [LINKS.windowsNetworkingLimits],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    const c = factsOf(facts, 'connectivity').filter((f) => f.data.scope === 'external');
    for (const ping of c.filter((f) => f.data.protocol === 'icmp' && !f.data.ok)) {
      const tcp = c.find((f) => f.data.protocol !== 'icmp' && f.data.ok && (f.node === ping.node || f.node === null || ping.node === null));
      if (tcp) hits.push({ title: `Ping to ${ping.data.target} fails while TCP to ${tcp.data.target} works (ICMP to outside the cluster is not supported)`, evidence: [ping, tcp] });
    }
    return hits;
  },
};
