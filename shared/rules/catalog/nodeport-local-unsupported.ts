/** `nodeport-local-unsupported` (info): NodePort fails from the node itself only (expected on Windows). */
import { factsOf } from '../../logic/facts';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

export const nodeportLocalUnsupported: RuleModule = {
  id: 'nodeport-local-unsupported',
  severity: 'info',
  description: 'A NodePort service fails from the node itself but works from elsewhere: a known Windows limitation.',
  remediation: {
    summary: 'Expected behaviour, not a bug: a Windows node cannot reach NodePort services through its own address.',
    steps: ['Test NodePort services from another machine, or use the ClusterIP from pods.'],
    commands: ['Test-NetConnection <other-node-ip> -Port <nodePort>'],
    links: [LINKS.windowsNetworkingLimits],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    const c = factsOf(facts, 'connectivity');
    for (const local of c.filter((f) => f.data.scope === 'nodeport-local' && !f.data.ok)) {
      const remote = c.find((f) => f.data.scope === 'nodeport-remote' && f.data.ok && (local.data.port === null || f.data.port === local.data.port));
      if (remote) hits.push({ title: `NodePort ${local.data.port ?? ''} fails from the node itself but works from elsewhere`.replace('  ', ' '), evidence: [local, remote] });
    }
    return hits;
  },
};
