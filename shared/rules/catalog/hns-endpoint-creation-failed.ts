/** `hns-endpoint-creation-failed`: creating or finding an HNS endpoint fails. */
import { hitsPerNode, signalsOf, times } from '../helpers';
import { LINKS } from '../links';
import type { RuleModule } from '../rule';

export const hnsEndpointCreationFailed: RuleModule = {
  id: 'hns-endpoint-creation-failed',
  severity: 'error',
  description: 'Endpoint creation or lookup fails (failed to find HNSEndpoint, Remote endpoint creation failed, hot attach of the bridge endpoint failed, 0x490 Element not found).',
  remediation: {
    summary: 'Pods or services cannot get their HNS endpoints, so sandboxes fail to start or services have no remote endpoints.',
    steps: [
      'Compare the versions of the CNI plugins, flannel and the container runtime: containerd needs CNI plugins that create the endpoint themselves (older flannel expected a pre-created endpoint, the Docker-era flow).',
      'If a bridge endpoint (`cbr0_ep`) or a stale endpoint survived a reboot or OS update, remove it (or reset HNS) and restart flanneld, kubelet and kube-proxy.',
      'For remote endpoints created by kube-proxy, make sure the OS build is supported (Windows Server 2019 or later) and the HNS network is healthy.',
    ],
    commands: ['Get-HnsEndpoint | Select-Object Name, IPAddress, IsRemoteEndpoint, VirtualNetworkName', 'hnsdiag list endpoints', 'Get-HnsEndpoint | Where-Object Name -like "*_ep" | Remove-HnsEndpoint'],
    links: [LINKS.windowsDebug, LINKS.windowsNetworking, 'https://github.com/kubernetes/kubernetes/issues/94924', 'https://github.com/flannel-io/flannel/issues/1112'],
  },
  evaluate(facts) {
    return hitsPerNode(signalsOf(facts, 'hns-endpoint-failed'), (list) => {
      const ep = list.map((f) => (f.type === 'log-signal' ? f.data.captures['endpoint'] : undefined)).find((x) => x);
      return `HNS endpoint creation or lookup failed${ep ? ` (${ep})` : ''}${times(list)}`;
    });
  },
};
