/** `vethernet-adapter-duplicate`: more than one `vEthernet (<uplink>)` adapter (a stale vSwitch). */
import { factsOf, type Fact } from '../../logic/facts';
import { byNode } from '../helpers';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

const VETH = /^vEthernet \((.+)\)(?: \d+)?$/i;

export const vethernetAdapterDuplicate: RuleModule = {
  id: 'vethernet-adapter-duplicate',
  severity: 'warning',
  description: 'More than one `vEthernet (<uplink>)` adapter exists (for example `vEthernet (Ethernet) 2`): a stale switch.',
  remediation: {
    summary: 'A previous vSwitch on the same uplink was not cleaned up; the node\'s IP may sit on the wrong one and HNS networks bind unpredictably.',
    steps: ['List the virtual switches and adapters; remove the stale switch (and its HNS network).', 'Reboot if the adapter does not go away, then let the CNI recreate its network.'],
    commands: ['Get-NetAdapter -Name "vEthernet*" | Format-Table Name, InterfaceDescription, Status, MacAddress', 'Get-VMSwitch', 'Get-HnsNetwork | Select-Object Name, Type, NetworkAdapterName'],
    links: [LINKS.windowsNetworking],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    const sources: Fact[] = [...factsOf(facts, 'net-adapter-listing'), ...factsOf(facts, 'ipconfig').filter((i) => i.data.view === 'host')];
    for (const [node, list] of byNode(sources)) {
      for (const f of list) {
        const names = f.type === 'net-adapter-listing' ? f.data.names : f.type === 'ipconfig' ? f.data.adapters.map((a) => a.name) : [];
        const groups = new Map<string, string[]>();
        for (const n of names) {
          const m = VETH.exec(n.trim());
          if (!m) continue;
          const key = m[1]!.toLowerCase();
          groups.set(key, [...(groups.get(key) ?? []), n]);
        }
        for (const [, g] of groups) if (g.length > 1) hits.push({ title: `Duplicate vEthernet adapters: ${g.join(', ')}`, evidence: [f], node });
      }
    }
    return hits;
  },
};
