/**
 * `hns-network-missing`: the HNS network a component needs does not exist. Evidence: a log saying so
 * ("Network flannel.4096 not found", "network host not found"), or an HNS listing that lacks the network named by
 * the CNI config / net-conf / flanneld. Without a listing or such a log, it never fires.
 */
import { factsOf, type Fact } from '../../logic/facts';
import { byNode, hitsPerNode, norm, sameNode, signalsOf, times } from '../helpers';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

export const hnsNetworkMissing: RuleModule = {
  id: 'hns-network-missing',
  severity: 'error',
  description: 'The HNS network named by the CNI config (or needed by the pod network) does not exist.',
  remediation: {
    summary: 'Pods cannot be attached: the HNS network the CNI plugin or runtime looks for is not there (not created yet, lost after a reboot, or named differently).',
    steps: [
      'List the HNS networks and compare their names with the CNI config `name` and the flannel net-conf Backend `name` (they must match).',
      'If the network is created by flanneld, look at why flanneld did not create it (its log: adapter not found, IP forward entry exists, API access).',
      'With Docker, a NAT network named `host` lost after a reboot can be recreated with `docker network create -d nat host`.',
      'Restart kubelet and kube-proxy once the network exists.',
    ],
    commands: ['Get-HnsNetwork | Select-Object Name, Type, ManagementIP', 'hnsdiag list networks', 'Get-Content C:\\etc\\cni\\net.d\\*.conf*'],
    links: [LINKS.windowsDebug, LINKS.windowsNetworking, 'https://github.com/kubernetes-sigs/sig-windows-tools/issues/186'],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    for (const h of hitsPerNode(signalsOf(facts, 'hns-network-not-found'), (list) => {
      const nets = [...new Set(list.map((f) => (f.type === 'log-signal' ? f.data.captures['network'] : undefined)).filter((x): x is string => !!x))];
      return `HNS network ${nets.length ? nets.join(', ') : ''} not found${times(list)}`.replace(/\s+/g, ' ');
    }))
      hits.push(h);
    // Listing-based: complete listings of a node lack a network the node is configured to use. Several listings
    // for one node (a folder with old and new outputs): missing only when none of them has it.
    for (const [node, listings] of byNode(factsOf(facts, 'hns-network-listing').filter((l) => !l.data.truncated))) {
      const have = new Set(listings.flatMap((l) => l.data.names.map(norm)));
      const wanted = new Map<string, Fact[]>();
      const want = (name: string | null | undefined, f: Fact) => {
        if (!name) return;
        const list = wanted.get(name) ?? [];
        list.push(f);
        wanted.set(name, list);
      };
      for (const f of sameNode(facts, 'flannel-net-conf', node)) want(f.data.backendName, f);
      for (const f of sameNode(facts, 'cni-config', node)) if (f.data.type === 'flannel') want(f.data.name, f);
      for (const f of signalsOf(facts, 'flannel-waiting-for-network')) if (f.node === node || f.node === null || node === null) want(f.data.captures['network'], f);
      for (const [name, ev] of wanted) {
        if (have.has(norm(name))) continue;
        const names = [...new Set(listings.flatMap((l) => l.data.names))];
        hits.push({ title: `HNS network ${name} does not exist (the node has ${names.join(', ') || 'no networks'})`, evidence: [...listings, ...ev], node });
      }
    }
    return hits;
  },
};
