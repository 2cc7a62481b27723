/** `sourcevip-stale`: the SourceVip file belongs to a different pod subnet than the node's. */
import { factsOf, type Fact } from '../../logic/facts';
import { inCidr, parseCidr, sameNode } from '../helpers';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

export const sourcevipStale: RuleModule = {
  id: 'sourcevip-stale',
  severity: 'error',
  description: 'SourceVip files belong to a different pod subnet than the node\'s (node removed and re-added with a new subnet).',
  remediation: {
    summary: 'The node got a new pod subnet but kube-proxy still uses the source VIP of the old one, so service traffic from this node is dropped.',
    steps: ['Stop kube-proxy, delete `C:\\k\\SourceVip.json` and `C:\\k\\SourceVipRequest.json`, start kube-proxy, and check the new VIP lies in the node\'s subnet.'],
    commands: ['Get-Content C:\\k\\SourceVip.json', 'Get-Content C:\\run\\flannel\\subnet.env', 'kubectl get node <node> -o jsonpath="{.spec.podCIDR}"'],
    links: [LINKS.windowsDebug],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    for (const v of factsOf(facts, 'source-vip')) {
      if (!v.data.valid || !v.data.ip) continue;
      const subnets: { cidr: string; f: Fact }[] = [];
      for (const s of sameNode(facts, 'subnet-env', v.node)) if (s.data.subnet && parseCidr(s.data.subnet)) subnets.push({ cidr: s.data.subnet, f: s });
      const infos = factsOf(facts, 'node-info').filter((n) => n.data.podCIDR && (v.node ? n.data.name === v.node : n.data.os === 'windows'));
      if (subnets.length === 0 && infos.length === 1) subnets.push({ cidr: infos[0]!.data.podCIDR!, f: infos[0]! });
      if (subnets.length === 0) continue;
      if (subnets.some((s) => inCidr(v.data.ip!, s.cidr))) continue;
      hits.push({ title: `SourceVip ${v.data.ip} is outside the node's pod subnet ${subnets.map((s) => s.cidr).join(', ')}`, evidence: [v, ...subnets.map((s) => s.f)] });
    }
    return hits;
  },
};
