/** `kube-proxy-hostname-override-missing`: kube-proxy runs without --hostname-override. */
import { factsOf } from '../../logic/facts';
import { flagValue } from '../../parse/command-line';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

export const kubeProxyHostnameOverrideMissing: RuleModule = {
  id: 'kube-proxy-hostname-override-missing',
  severity: 'warning',
  description: 'kube-proxy runs without `--hostname-override`.',
  remediation: {
    summary: 'Without the node name kube-proxy on Windows cannot tell local from remote endpoints; container vNICs and HNS endpoints get deleted and services break.',
    steps: ['Pass `--hostname-override=<node name>` (exactly as `kubectl get nodes` shows it) to kube-proxy, or set hostnameOverride in its configuration file.', 'Restart kube-proxy.'],
    commands: ['sc.exe qc kube-proxy', 'nssm get kube-proxy AppParameters', 'kubectl get nodes -o wide'],
    links: [LINKS.windowsDebug, LINKS.kubeProxyRef],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    for (const f of factsOf(facts, 'component-args')) {
      if (f.data.component !== 'kube-proxy') continue;
      const v = flagValue(f.data.args, '--hostname-override');
      if (v !== null && v !== '') continue;
      if (flagValue(f.data.args, '--config')) continue;
      hits.push({ title: 'kube-proxy runs without --hostname-override', evidence: [f] });
    }
    return hits;
  },
};
