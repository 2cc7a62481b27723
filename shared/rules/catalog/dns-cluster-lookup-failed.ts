/** `dns-cluster-lookup-failed`: cluster names do not resolve, or the DNS server does not answer at all. */
import { factsOf, type Fact } from '../../logic/facts';
import { hitsPerNode } from '../helpers';
import { LINKS } from '../links';
import type { RuleModule } from '../rule';

/** A name with a dot that is not a fully qualified cluster name (`kubernetes.default`): Windows treats it as an FQDN. */
export function isDottedPartialName(query: string): boolean {
  const q = query.replace(/\.$/, '');
  return q.includes('.') && /^[a-z0-9-]+\.[a-z0-9-]+(?:\.svc)?$/i.test(q) && !/\.(com|net|org|io|local|internal|aws|cloud|dev)$/i.test(q);
}

function isClusterName(query: string): boolean {
  return /\.svc(\.|$)|\.cluster\.local\.?$/i.test(query) || /^kubernetes(\.default)?$/i.test(query);
}

export const dnsClusterLookupFailed: RuleModule = {
  id: 'dns-cluster-lookup-failed',
  severity: 'error',
  description: 'Cluster service names do not resolve, or the cluster DNS (kube-dns VIP:53) does not answer.',
  remediation: {
    summary: 'Pods on the node cannot resolve names: either the DNS service VIP is unreachable from the node (kube-proxy load balancing, overlay path, ExceptionList) or cluster names are not served.',
    steps: [
      'From a pod on the node, resolve the full name `kubernetes.default.svc.cluster.local` with Resolve-DnsName (nslookup behaves differently from the Windows resolver).',
      'If requests time out, check kube-proxy runs and programmed the load balancer for the kube-dns service (`hnsdiag list loadbalancers`), and that the service CIDR is in the CNI ExceptionList.',
      'Check that CoreDNS pods run and that the DNS server on the pod endpoint is the kube-dns service IP.',
    ],
    commands: ['Resolve-DnsName kubernetes.default.svc.cluster.local', 'kubectl -n kube-system get svc kube-dns -o wide', 'hnsdiag list loadbalancers', 'Test-NetConnection <kube-dns-ip> -Port 53'],
    links: [LINKS.dnsDebug, LINKS.dnsPodService, LINKS.windowsNetworkingLimits],
  },
  evaluate(facts) {
    const failed: Fact[] = [];
    for (const f of factsOf(facts, 'dns-lookup')) {
      const o = f.data.outcome;
      if (o === 'timeout' || o === 'no-server') failed.push(f);
      else if ((o === 'nxdomain' || o === 'servfail' || o === 'refused') && isClusterName(f.data.query) && !isDottedPartialName(f.data.query)) failed.push(f);
    }
    for (const c of factsOf(facts, 'connectivity')) if (c.data.scope === 'cluster' && c.data.port === 53 && !c.data.ok && c.data.protocol !== 'icmp') failed.push(c);
    return hitsPerNode(failed, (list) => {
      const q = list.map((f) => (f.type === 'dns-lookup' ? f.data.query : f.type === 'connectivity' ? `${f.data.target}:53` : '')).filter((x) => x && x !== '(not shown)');
      const timeout = list.some((f) => f.type === 'dns-lookup' && (f.data.outcome === 'timeout' || f.data.outcome === 'no-server'));
      return timeout ? `The DNS server does not answer${q.length ? ` (${[...new Set(q)].join(', ')})` : ''}: DNS requests time out` : `Cluster names do not resolve: ${[...new Set(q)].join(', ')}`;
    });
  },
};
