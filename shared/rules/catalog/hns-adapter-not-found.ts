/** `hns-adapter-not-found`: HNS, flanneld or a CNI plugin reports "An adapter was not found". */
import { factsOf, type Fact } from '../../logic/facts';
import { hitsPerNode, signalsOf, times } from '../helpers';
import { LINKS } from '../links';
import type { RuleModule } from '../rule';

export const hnsAdapterNotFound: RuleModule = {
  id: 'hns-adapter-not-found',
  severity: 'error',
  description: 'HNS, flanneld or the CNI plugin reports "An adapter was not found" (HNS error 0x803B0006) while creating a network.',
  remediation: {
    summary: 'HNS could not bind the network to the adapter it was given: the name does not exist, or the NIC is already owned by another virtual switch.',
    steps: [
      'List the node\'s adapters and compare the names with the adapter the network was created for (flanneld/start.ps1 `InterfaceName`, `New-HnsNetwork -AdapterName`, the HNS request body `NetworkAdapterName`).',
      'If the physical NIC already sits behind a `vEthernet (<nic>)` switch (an older Transparent/L2Bridge network), use that network or remove the conflicting one before creating the new network.',
      'HNS cannot bind to team, WireGuard/TUN or other non-Ethernet adapters: use a physical or Hyper-V bindable NIC.',
      'Restart the network setup (flanneld pod or service) after fixing the name, and check the HNS network list again.',
    ],
    commands: ['Get-NetAdapter | Format-Table Name, InterfaceDescription, Status, MacAddress', 'Get-HnsNetwork | Select-Object Name, Type, NetworkAdapterName, ManagementIP', 'Get-VMSwitch | Format-List Name, NetAdapterInterfaceDescription'],
    links: [LINKS.windowsNetworking, LINKS.windowsDebug, 'https://github.com/microsoft/SDN/issues/269'],
  },
  evaluate(facts) {
    const evidence: Fact[] = [...signalsOf(facts, 'hns-adapter-not-found'), ...factsOf(facts, 'hns-request').filter((f) => /adapter was not found/i.test(f.data.error ?? '') || f.data.errorCode === 2151350278)];
    return hitsPerNode(evidence, (list) => {
      const req = list.find((f) => f.type === 'hns-request');
      const name = req && req.type === 'hns-request' ? req.data.name : null;
      return `HNS could not find the network adapter${name ? ` while creating network "${name}"` : ''}${times(list)}`;
    });
  },
};
