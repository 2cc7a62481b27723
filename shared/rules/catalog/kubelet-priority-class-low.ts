/** `kubelet-priority-class-low`: kubelet runs without --windows-priorityclass at ABOVE_NORMAL or higher. */
import { factsOf } from '../../logic/facts';
import { flagValue } from '../../parse/command-line';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

const GOOD = new Set(['ABOVE_NORMAL_PRIORITY_CLASS', 'HIGH_PRIORITY_CLASS', 'REALTIME_PRIORITY_CLASS']);

export const kubeletPriorityClassLow: RuleModule = {
  id: 'kubelet-priority-class-low',
  severity: 'warning',
  description: 'kubelet lacks `--windows-priorityclass` at ABOVE_NORMAL_PRIORITY_CLASS or higher.',
  remediation: {
    summary: 'Windows has no OOM killer; under CPU pressure a kubelet at normal priority competes with pods and the node can go NotReady.',
    steps: ['Add `--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS` to kubelet\'s arguments (service binary path, nssm AppParameters, or the start script).', 'Restart kubelet and check the flag in its start-up log (`FLAG: --windows-priorityclass`).'],
    commands: ['sc.exe qc kubelet', 'nssm get kubelet AppParameters', 'Get-Process kubelet | Select-Object Name, PriorityClass'],
    links: [LINKS.windowsResources, LINKS.kubeletRef],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    for (const f of factsOf(facts, 'component-args')) {
      if (f.data.component !== 'kubelet') continue;
      const v = flagValue(f.data.args, '--windows-priorityclass');
      if (v !== null && GOOD.has(v.toUpperCase())) continue;
      hits.push({ title: v ? `kubelet runs at ${v}, below ABOVE_NORMAL_PRIORITY_CLASS` : 'kubelet runs without --windows-priorityclass (normal priority)', evidence: [f] });
    }
    return hits;
  },
};
