/**
 * `cni-exceptionlist-misconfigured`: the OutBoundNAT ExceptionList is empty, misses the cluster or service CIDR
 * (when the evidence says what they are), or holds an over-broad range. Configs without an OutBoundNAT policy
 * are not judged.
 */
import { factsOf, type Fact } from '../../logic/facts';
import { cidrContains, parseCidr, sameNode, type Cidr } from '../helpers';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

function covered(list: Cidr[], target: Cidr): boolean {
  return list.some((c) => cidrContains(c, target));
}

export const cniExceptionlistMisconfigured: RuleModule = {
  id: 'cni-exceptionlist-misconfigured',
  severity: 'error',
  description: 'OutBoundNAT ExceptionList is empty, misses the cluster or service CIDR, or is over-broad.',
  remediation: {
    summary: 'Traffic to addresses in the ExceptionList is not SNAT\'ed: the cluster CIDR, the service CIDR and the node (management) subnet must be in it, and nothing that should leave NAT\'ed.',
    steps: [
      'Put the cluster CIDR (flannel net-conf `Network`), the service CIDR, and for l2bridge the node subnet into the OutBoundNAT ExceptionList of the CNI config.',
      'Remove broad LAN ranges (for example 10.0.0.0/8) that would stop egress traffic from being NAT\'ed.',
      'Restart the pods (or the node) so endpoints are recreated with the new policy.',
    ],
    commands: ['Get-Content C:\\etc\\cni\\net.d\\*.conf*', 'Get-HnsEndpoint | Select-Object Name -ExpandProperty Policies'],
    links: [LINKS.windowsNetworking, LINKS.windowsDebug],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    for (const f of factsOf(facts, 'cni-config')) {
      if (f.data.outboundNat.length === 0) continue;
      const problems: string[] = [];
      const evidence: Fact[] = [f];
      const lists = f.data.outboundNat.map((n) => n.exceptionList);
      const entries = lists.flatMap((l) => l ?? []);
      const cidrs = entries.map(parseCidr).filter((c): c is Cidr => c !== null);
      if (lists.some((l) => l === null || l.length === 0)) problems.push('the ExceptionList is empty or missing');
      // Cluster CIDR: the net-conf Network (same file first), else subnet.env FLANNEL_NETWORK.
      const netConfs = factsOf(facts, 'flannel-net-conf').filter((n) => n.source === f.source);
      const netConf = netConfs[0] ?? (() => {
        const all = sameNode(facts, 'flannel-net-conf', f.node);
        return all.length === 1 ? all[0] : undefined;
      })();
      const subnetEnv = sameNode(facts, 'subnet-env', f.node)[0];
      const clusterText = netConf?.data.network ?? subnetEnv?.data.network ?? null;
      const cluster = parseCidr(clusterText);
      if (cluster && cidrs.length && !covered(cidrs, cluster)) {
        problems.push(`the cluster CIDR ${cluster.text} is missing`);
        evidence.push((netConf ?? subnetEnv)!);
      }
      // Service CIDR: a ROUTE NeedEncap prefix that holds the DNS server.
      const dns = f.data.dnsNameservers.map((d) => parseCidr(d)).filter((c): c is Cidr => c !== null);
      const serviceRoute = f.data.routes.map((r) => ({ r, c: parseCidr(r.destinationPrefix) })).find((x) => x.c && x.r.needEncap && x.c.prefix < 32 && dns.some((d) => cidrContains(x.c!, d)));
      const service = serviceRoute?.c ?? null;
      if (service && cidrs.length && !covered(cidrs, service)) problems.push(`the service CIDR ${service.text} is missing`);
      // Management address: ROUTE NeedEncap /32 entries (l2bridge) must be excepted too.
      for (const r of f.data.routes) {
        const c = parseCidr(r.destinationPrefix);
        if (c && c.prefix === 32 && r.needEncap && cidrs.length && !covered(cidrs, c)) problems.push(`the node address ${c.text} is not excepted`);
      }
      // Over-broad: /8 or wider that is neither the cluster nor the service CIDR.
      for (const c of cidrs) {
        if (c.prefix > 8) continue;
        const isCluster = cluster !== null && c.base === cluster.base && c.prefix === cluster.prefix;
        const isService = service !== null && c.base === service.base && c.prefix === service.prefix;
        if (!isCluster && !isService) problems.push(`${c.text} is over-broad (traffic to it is never NAT'ed)`);
      }
      if (problems.length) {
        const at = f.data.exceptionListLine;
        hits.push({ title: `OutBoundNAT ExceptionList${f.data.name ? ` of CNI network ${f.data.name}` : ''}: ${problems.join('; ')}`, evidence: at ? [{ ...f, line: at, excerpt: `ExceptionList: ${entries.join(', ') || '(empty)'}` }, ...evidence.slice(1)] : evidence });
      }
    }
    return hits;
  },
};
