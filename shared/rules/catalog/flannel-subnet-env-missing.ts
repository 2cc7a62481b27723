/** `flannel-subnet-env-missing`: flannel's subnet.env is missing or the CNI plugin cannot read it. */
import { factsOf, type Fact } from '../../logic/facts';
import { hitsPerNode, signalsOf, times } from '../helpers';
import { LINKS } from '../links';
import type { RuleModule } from '../rule';

export const flannelSubnetEnvMissing: RuleModule = {
  id: 'flannel-subnet-env-missing',
  severity: 'error',
  description: '`subnet.env` is missing or the CNI plugin fails to read it.',
  remediation: {
    summary: 'flanneld writes subnet.env once it has a lease; without it every CNI ADD on the node fails.',
    steps: [
      'Check whether flanneld runs on the node and got a subnet lease (its log, the flannel pod status).',
      'If the flannel DaemonSet pod itself needs CNI to start, it can never write subnet.env: run flannel as a HostProcess pod or a host service, not as a normal pod.',
      'Check that the path the CNI config expects (`C:\\run\\flannel\\subnet.env`) is where flanneld writes it.',
    ],
    commands: ['Get-Content C:\\run\\flannel\\subnet.env', 'kubectl -n kube-flannel get pods -o wide --field-selector spec.nodeName=<node>'],
    links: [LINKS.windowsDebug, 'https://github.com/kubernetes-sigs/sig-windows-tools/issues/76'],
  },
  evaluate(facts) {
    const evidence: Fact[] = [...signalsOf(facts, 'subnet-env-missing'), ...factsOf(facts, 'node-file').filter((f) => f.data.role === 'subnet-env' && !f.data.exists)];
    return hitsPerNode(evidence, (list) => `flannel's subnet.env is missing or unreadable${times(list)}`);
  },
};
