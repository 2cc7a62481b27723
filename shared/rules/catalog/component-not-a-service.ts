/** `component-not-a-service`: a node component runs as a bare process, not as a Windows service. */
import { factsOf } from '../../logic/facts';
import { componentOf } from '../../parse/components';
import { sameNode } from '../helpers';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

export const componentNotAService: RuleModule = {
  id: 'component-not-a-service',
  severity: 'warning',
  description: 'A component (kubelet, kube-proxy, flanneld, containerd) runs as a bare process with no service behind it.',
  remediation: {
    summary: 'A component started from a console or a script dies with the session or the next reboot; services restart it and keep the start order.',
    steps: [
      'Register the component as a service (`sc.exe create` or `nssm install`), with automatic start and its dependencies (kube-proxy on kubelet, kubelet on the runtime).',
      'Stop the bare process and start the service.',
      'If kube-proxy or flannel are meant to run as HostProcess DaemonSet pods (kubeadm + sig-windows-tools), make sure the process belongs to that pod and not to a leftover script.',
    ],
    commands: ['Get-CimInstance Win32_Process -Filter "Name=\'kubelet.exe\'" | Select-Object ProcessId, ParentProcessId, CommandLine', 'nssm install kubelet C:\\k\\kubelet.exe', 'sc.exe create kubelet binPath= "C:\\k\\kubelet.exe ..." start= auto'],
    links: [LINKS.windowsDebug, LINKS.sigWindowsTools],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    for (const p of factsOf(facts, 'process')) {
      const comp = componentOf(p.data.name.replace(/\.exe$/i, ''));
      if (!comp || comp === 'hns' || comp === 'docker') continue;
      if (p.data.parentName && /containerd-shim|hcsshim|runhcs|wininit/i.test(p.data.parentName)) continue;
      // HostProcess containers (kubeadm + sig-windows-tools layout) run components from the pod's mount.
      if (p.data.commandLine && /\\hpc\\|CONTAINER_SANDBOX_MOUNT_POINT|\\C\\[0-9a-f]{64}\\/i.test(p.data.commandLine)) continue;
      const listings = sameNode(facts, 'service-listing', p.node).filter((l) => l.data.complete);
      if (listings.length === 0) continue;
      const hasService = listings.some((l) => l.data.names.some((n) => componentOf(n) === comp));
      if (hasService) continue;
      hits.push({ title: `${p.data.name} runs as a process, but no ${comp} service exists`, evidence: [p, ...listings] });
    }
    return hits;
  },
};
