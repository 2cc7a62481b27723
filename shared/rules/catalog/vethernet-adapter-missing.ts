/** `vethernet-adapter-missing`: no `vEthernet (<uplink>)` host adapter for the pod network's uplink. */
import { factsOf, type Fact } from '../../logic/facts';
import { norm, sameNode } from '../helpers';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

const SWITCHED_TYPES = /^(overlay|l2bridge|l2tunnel|transparent)$/i;

/** Host adapter names from Get-NetAdapter and host-side ipconfig for a node. */
export function hostAdapterNames(facts: readonly Fact[], node: string | null): { names: string[]; evidence: Fact[] } {
  const names: string[] = [];
  const evidence: Fact[] = [];
  for (const l of sameNode(facts, 'net-adapter-listing', node)) {
    names.push(...l.data.names);
    evidence.push(l);
  }
  for (const i of sameNode(facts, 'ipconfig', node)) {
    if (i.data.view !== 'host') continue;
    names.push(...i.data.adapters.map((a) => a.name));
    evidence.push(i);
  }
  return { names, evidence };
}

export const vethernetAdapterMissing: RuleModule = {
  id: 'vethernet-adapter-missing',
  severity: 'error',
  description: 'No `vEthernet (<uplink>)` host adapter exists for the pod network\'s uplink.',
  remediation: {
    summary: 'An L2Bridge/Overlay network moves the node\'s IP to a `vEthernet (<nic>)` adapter on its vSwitch; without it the switch is broken or bound elsewhere.',
    steps: [
      'Compare the network\'s adapter name with the host adapters.',
      'Remove the HNS network and let the component recreate it on the right NIC; if the vSwitch is stuck, reboot the node.',
    ],
    commands: ['Get-NetAdapter | Format-Table Name, InterfaceDescription, Status', 'Get-HnsNetwork | Select-Object Name, Type, NetworkAdapterName', 'Get-VMSwitch'],
    links: [LINKS.windowsNetworking, LINKS.windowsDebug],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    for (const n of factsOf(facts, 'hns-network')) {
      const uplink = n.data.adapterName;
      if (!uplink || !SWITCHED_TYPES.test(n.data.type ?? '')) continue;
      const { names, evidence } = hostAdapterNames(facts, n.node);
      if (evidence.length === 0) continue;
      const want = norm(`vEthernet (${uplink})`);
      if (names.some((x) => norm(x) === want)) continue;
      hits.push({ title: `No vEthernet (${uplink}) adapter for HNS network ${n.data.name}`, evidence: [n, ...evidence] });
    }
    return hits;
  },
};
