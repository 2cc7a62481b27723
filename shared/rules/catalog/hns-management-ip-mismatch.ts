/** `hns-management-ip-mismatch`: the HNS network's ManagementIP is not the node's address (or flanneld cannot find it). */
import { factsOf, type Fact } from '../../logic/facts';
import { hitsPerNode, nodeAddresses, signalsOf, times } from '../helpers';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

const POD_NETWORK_TYPES = /^(overlay|l2bridge|l2tunnel|transparent)$/i;

export const hnsManagementIpMismatch: RuleModule = {
  id: 'hns-management-ip-mismatch',
  severity: 'error',
  description: 'The network\'s ManagementIP is not the node\'s address, or flanneld cannot find the network by its management IP.',
  remediation: {
    summary: 'The pod network was bound to the wrong NIC (a second adapter, a NAT or VPN interface); traffic leaves the wrong way and flanneld cannot match the network to the node.',
    steps: [
      'Compare the network\'s ManagementIP with the node\'s InternalIP (`kubectl get nodes -o wide`).',
      'Set the interface explicitly (flanneld `--iface`, start.ps1 `-InterfaceName`, Calico `IP_AUTODETECTION_METHOD`/`KUBE_NETWORK`) and recreate the network.',
      'Remove the wrongly bound network (and reboot if the vSwitch stays) before the component recreates it.',
    ],
    commands: ['Get-HnsNetwork | Select-Object Name, Type, ManagementIP, NetworkAdapterName', 'Get-NetIPAddress -AddressFamily IPv4 | Format-Table InterfaceAlias, IPAddress', 'kubectl get nodes -o wide'],
    links: [LINKS.windowsNetworking, LINKS.windowsDebug],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    for (const h of hitsPerNode(signalsOf(facts, 'management-ip-not-found'), (list) => `flanneld cannot find the HNS network by the node's management IP${times(list)}`)) hits.push(h);
    const candidates: { f: Fact; ip: string; what: string }[] = [];
    for (const n of factsOf(facts, 'hns-network')) if (n.data.managementIP && POD_NETWORK_TYPES.test(n.data.type ?? '')) candidates.push({ f: n, ip: n.data.managementIP, what: `HNS network ${n.data.name}` });
    for (const m of factsOf(facts, 'management-ip')) candidates.push({ f: m, ip: m.data.ip, what: 'the vSwitch' });
    for (const c of candidates) {
      const { addresses, evidence } = nodeAddresses(facts, c.f.node);
      if (addresses.size === 0 || addresses.has(c.ip)) continue;
      hits.push({ title: `ManagementIP ${c.ip} of ${c.what} is not one of the node's addresses (${[...addresses].join(', ')})`, evidence: [c.f, ...evidence] });
    }
    return hits;
  },
};
