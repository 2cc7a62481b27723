/** `service-not-running`: a node component service is not Running. */
import { factsOf } from '../../logic/facts';
import { componentOf } from '../../parse/components';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

export const serviceNotRunning: RuleModule = {
  id: 'service-not-running',
  severity: 'error',
  description: 'kubelet, kube-proxy/kubeproxy, flanneld, containerd, docker or hns is not Running (stopped or stuck pending).',
  remediation: {
    summary: 'A node component is not running, so the node cannot run or network pods as expected.',
    steps: [
      'Read the component\'s log for the reason it stopped or cannot finish starting (kubelet/kube-proxy/flanneld logs, `Get-WinEvent -LogName System` for the Service Control Manager).',
      'Check its dependencies first: kube-proxy depends on kubelet, kubelet on the container runtime; HNS must be running for any of them.',
      'Start it again (`windeck restart <node> <component>` plans and audits the restart) and confirm it stays Running.',
    ],
    commands: ['Get-Service kubelet, kube-proxy, kubeproxy, flanneld, containerd, docker, hns -ErrorAction SilentlyContinue', 'Get-WinEvent -LogName System -MaxEvents 50 | Where-Object ProviderName -eq "Service Control Manager"', 'Start-Service <name>'],
    links: [LINKS.windowsDebug],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    const seen = new Set<string>();
    for (const f of factsOf(facts, 'service')) {
      const comp = componentOf(f.data.name);
      if (!comp || f.data.status === null || f.data.status === 'Running') continue;
      const key = `${f.node}|${f.data.name.toLowerCase()}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const same = factsOf(facts, 'service').filter((g) => g.node === f.node && g.data.name.toLowerCase() === f.data.name.toLowerCase() && g.data.status !== null && g.data.status !== 'Running');
      hits.push({ title: `Service ${f.data.name} is ${f.data.status}, not Running`, evidence: same, remediation: { commands: [`Get-Service ${f.data.name} | Format-List *`, `Start-Service ${f.data.name}`] } });
    }
    return hits;
  },
};
