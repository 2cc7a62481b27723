/** `kubelet-reserve-missing`: kubelet reserves no resources for the system. */
import { factsOf } from '../../logic/facts';
import { flagValue } from '../../parse/command-line';
import { sameNode } from '../helpers';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

export const kubeletReserveMissing: RuleModule = {
  id: 'kubelet-reserve-missing',
  severity: 'warning',
  description: 'kubelet has no `--system-reserved`/`--kube-reserved` (nor systemReserved/kubeReserved in its config file).',
  remediation: {
    summary: 'Without reservations pods can take all memory; Windows has no OOM killer and the node starts paging or stalls. Reserve at least 2 GiB.',
    steps: ['Add `--system-reserved=memory=2Gi` (and/or `--kube-reserved`) to kubelet, or set systemReserved/kubeReserved in its KubeletConfiguration file.', 'Restart kubelet and check the node\'s Allocatable memory dropped accordingly.'],
    commands: ['kubectl describe node <node> | Select-String -Pattern Allocatable -Context 0,6', 'sc.exe qc kubelet'],
    links: [LINKS.windowsResources, LINKS.reserveCompute],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    for (const f of factsOf(facts, 'component-args')) {
      if (f.data.component !== 'kubelet') continue;
      const reserved = [flagValue(f.data.args, '--system-reserved'), flagValue(f.data.args, '--kube-reserved')].some((v) => v !== null && v !== '' && v !== 'map[]');
      if (reserved) continue;
      const configFlag = flagValue(f.data.args, '--config');
      const configs = sameNode(facts, 'kubelet-config', f.node);
      if (configFlag) {
        // The reservation may live in the config file; judge only when we have it.
        if (configs.length === 0 || configs.some((c) => c.data.systemReserved || c.data.kubeReserved)) continue;
        hits.push({ title: 'kubelet reserves no memory for the system (no --system-reserved/--kube-reserved, none in its config file)', evidence: [f, ...configs] });
        continue;
      }
      hits.push({ title: 'kubelet reserves no memory for the system (no --system-reserved or --kube-reserved)', evidence: [f] });
    }
    return hits;
  },
};
