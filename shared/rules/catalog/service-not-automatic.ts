/** `service-not-automatic`: a component service does not start automatically. */
import { factsOf } from '../../logic/facts';
import { componentOf } from '../../parse/components';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

export const serviceNotAutomatic: RuleModule = {
  id: 'service-not-automatic',
  severity: 'warning',
  description: 'A component service (kubelet, kube-proxy, flanneld, containerd, docker) does not start automatically (StartType Manual or Disabled); HNS is trigger-started and never flagged.',
  remediation: {
    summary: 'After a reboot the component will not come back by itself, and the node stays NotReady or without networking.',
    steps: ['Set the service to start automatically.', 'For kube-proxy keep the dependency on kubelet (`DependOnService`), so the order survives reboots.'],
    commands: ['Set-Service -Name <name> -StartupType Automatic', 'sc.exe config <name> start= auto', 'sc.exe qc <name>'],
    links: [LINKS.windowsDebug],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    const seen = new Set<string>();
    for (const f of factsOf(facts, 'service')) {
      const comp = componentOf(f.data.name);
      // HNS is a trigger-start service: Manual is its normal start type on Windows Server.
      if (!comp || comp === 'hns' || (f.data.startType !== 'Manual' && f.data.startType !== 'Disabled')) continue;
      const key = `${f.node}|${f.data.name.toLowerCase()}`;
      if (seen.has(key)) continue;
      seen.add(key);
      hits.push({
        title: `Service ${f.data.name} starts ${f.data.startType === 'Manual' ? 'manually' : 'never (Disabled)'}, not automatically`,
        evidence: [f],
        remediation: { commands: [`Set-Service -Name ${f.data.name} -StartupType Automatic`] },
      });
    }
    return hits;
  },
};
