/** `flannel-waiting-for-network`: flanneld (or its start script) waits for the network to be created. */
import { hitsPerNode, signalsOf, times } from '../helpers';
import { LINKS } from '../links';
import type { RuleModule } from '../rule';

export const flannelWaitingForNetwork: RuleModule = {
  id: 'flannel-waiting-for-network',
  severity: 'error',
  description: 'flanneld is stuck at "Waiting for the Network to be created".',
  remediation: {
    summary: 'The flannel network (vxlan0/flannel.4096 or cbr0) has not been created, so kubelet and kube-proxy cannot set up pod networking.',
    steps: [
      'Check that flanneld runs and reaches the API server (its kubeconfig, the node name in NODE_NAME, the net-conf.json ConfigMap).',
      'Check the flanneld log for the error that stops it before it creates the network (adapter not found, parameter incorrect, IP forward entry exists).',
      'Make sure the backend in net-conf.json (vxlan with VNI 4096 and port 4789 on Windows, or host-gw) matches the Linux side.',
      'Once the network exists, restart kubelet and kube-proxy.',
    ],
    commands: ['Get-HnsNetwork | Select-Object Name, Type, ManagementIP', 'Get-Content C:\\etc\\kube-flannel\\net-conf.json', 'kubectl -n kube-flannel logs -l app=flannel --tail=100'],
    links: [LINKS.windowsDebug, LINKS.windowsNetworking],
  },
  evaluate(facts) {
    return hitsPerNode(signalsOf(facts, 'flannel-waiting-for-network'), (list) => {
      const net = list.map((f) => (f.type === 'log-signal' ? f.data.captures['network'] : undefined)).find((x) => x);
      return `flanneld is waiting for the network${net ? ` ${net}` : ''} to be created${times(list)}`;
    });
  },
};
