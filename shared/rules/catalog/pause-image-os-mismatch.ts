/** `pause-image-os-mismatch`: the sandbox cannot start because the pause image's OS build differs from the host. */
import { hitsPerNode, signalsOf, times } from '../helpers';
import { LINKS } from '../links';
import type { RuleModule } from '../rule';

export const pauseImageOsMismatch: RuleModule = {
  id: 'pause-image-os-mismatch',
  severity: 'error',
  description: 'Sandbox creation fails because the container OS does not match the host OS (0xc0370101).',
  remediation: {
    summary: 'Process-isolated containers need an image built for the host\'s Windows build; the failure is on the pod sandbox, so the pause (infra) image is the one that does not match.',
    steps: [
      'Find the node\'s build (`[Environment]::OSVersion` or the node\'s KERNEL-VERSION) and the pause image the runtime uses (containerd `sandbox_image`, kubelet `--pod-infra-container-image`).',
      'Use a multi-arch pause image that includes the node\'s build, such as registry.k8s.io/pause:3.6 or later (or mcr.microsoft.com/oss/kubernetes/pause:3.6), and restart the runtime and kubelet.',
      'If workload images fail the same way, rebuild or pull them for the node\'s build too.',
    ],
    commands: ['[Environment]::OSVersion.Version', 'Select-String -Path C:\\etc\\containerd\\config.toml -Pattern sandbox_image', 'crictl pull registry.k8s.io/pause:3.6'],
    links: [LINKS.windowsUserGuide, LINKS.windowsIntro, LINKS.windowsDebug],
  },
  evaluate(facts) {
    return hitsPerNode(signalsOf(facts, 'pause-os-mismatch'), (list) => `Pod sandbox failed: the container OS does not match the host OS (pause image)${times(list)}`);
  },
};
