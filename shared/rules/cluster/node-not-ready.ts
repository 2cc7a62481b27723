import type { Finding } from '../../domain/finding';
import type { ClusterFacts, ClusterRule } from './cluster-facts';

/** `node-not-ready` (error): the Node's Ready condition is False or Unknown. */
export const nodeNotReadyRule: ClusterRule = {
  id: 'node-not-ready',
  evaluate(facts: ClusterFacts): Finding[] {
    const out: Finding[] = [];
    for (const node of facts.nodes) {
      const ready = node.conditions.find((c) => c.type === 'Ready');
      if (!ready || ready.status === 'True') continue;
      const unknown = ready.status !== 'False';
      const detail = [ready.reason, ready.message].filter(Boolean).join(': ');
      const windows = node.os === 'windows';
      out.push({
        ruleId: 'node-not-ready',
        severity: 'error',
        node: node.name,
        title: unknown ? `${node.name} stopped reporting status (Ready=${ready.status})` : `${node.name} is not ready`,
        evidence: [
          {
            source: `node/${node.name}`,
            line: null,
            excerpt: `Ready=${ready.status}${detail ? ` ${detail}` : ''}${ready.lastTransitionTime ? ` since ${ready.lastTransitionTime}` : ''}`,
          },
        ],
        remediation: {
          summary: unknown
            ? 'The kubelet has stopped posting node status: check that the machine is up and the kubelet service runs and reaches the API server.'
            : 'The kubelet reports the node not ready: its reason says which part (runtime, network plugin, kubelet config) is failing.',
          steps: [
            windows ? 'Check the kubelet and container runtime services on the node (Get-Service kubelet, containerd).' : 'Check the kubelet and container runtime services on the node (systemctl status kubelet containerd).',
            windows ? 'Read the kubelet log (C:\\k\\kubelet.log or C:\\var\\log\\kubelet) around the time of the transition.' : 'Read the kubelet log (journalctl -u kubelet) around the time of the transition.',
            'If the reason mentions the network plugin (CNI), check the CNI pods/services on that node.',
          ],
          commands: [`kubectl describe node ${node.name}`, `kubectl get events --field-selector involvedObject.name=${node.name}`],
          links: ['https://kubernetes.io/docs/concepts/architecture/nodes/#condition'],
        },
      });
    }
    return out;
  },
};
