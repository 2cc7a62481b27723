/** `port-forward-wincat-missing`: port-forward fails because the sandbox image has no wincat.exe. */
import { hitsPerNode, signalsOf, times } from '../helpers';
import { LINKS } from '../links';
import type { RuleModule } from '../rule';

export const portForwardWincatMissing: RuleModule = {
  id: 'port-forward-wincat-missing',
  severity: 'error',
  description: 'port-forward fails because wincat.exe is not in the pause image.',
  remediation: {
    summary: 'kubectl port-forward to Windows pods runs wincat.exe inside the pod sandbox; pause images before 3.4.1 (and some custom ones) do not carry it.',
    steps: [
      'Check which sandbox (pause) image the node uses.',
      'Switch to registry.k8s.io/pause:3.6 or later (or Microsoft\'s signed mcr.microsoft.com/oss/kubernetes/pause:3.6), restart the runtime, and recreate the pod.',
    ],
    commands: ['Select-String -Path C:\\etc\\containerd\\config.toml -Pattern sandbox_image', 'crictl inspectp <pod-id> | Select-String image'],
    links: [LINKS.portForward, LINKS.windowsIntro, 'https://github.com/Azure/AKS/issues/5460'],
  },
  evaluate(facts) {
    return hitsPerNode(signalsOf(facts, 'wincat-missing'), (list) => `Port-forward failed: wincat.exe is missing from the pod sandbox image${times(list)}`);
  },
};
