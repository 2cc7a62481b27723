/**
 * `version-skew` from file or probe evidence: `kubectl version` client vs server (kubectl's own +/-1 minor), and
 * kubelet/kube-proxy of a node vs the API server version the same evidence states. The cluster-side rule (live
 * Node objects) lives with the cluster rules; both use this id.
 */
import { factsOf } from '../../logic/facts';
import { parseVersion, serverVersionOf } from '../helpers';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

export const versionSkew: RuleModule = {
  id: 'version-skew',
  severity: 'warning',
  description: 'kubelet, kube-proxy or kubectl is outside the supported version skew of the API server.',
  remediation: {
    summary: 'Components outside the skew policy are untested against this API server; behaviour can differ or break.',
    steps: [
      'kubectl: use a client within one minor version of the API server.',
      'kubelet and kube-proxy: never newer than the API server, and at most three minor versions older (two before Kubernetes 1.28). Upgrade the node (or the control plane first, then the nodes).',
    ],
    commands: ['kubectl version', 'kubectl get nodes -o wide'],
    links: [LINKS.versionSkew],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    for (const f of factsOf(facts, 'kube-version')) {
      const c = parseVersion(f.data.clientVersion);
      const s = parseVersion(f.data.serverVersion);
      if (f.data.skewWarning || (c && s && c.major === s.major && Math.abs(c.minor - s.minor) > 1)) {
        hits.push({ title: `kubectl ${f.data.clientVersion} is more than one minor version away from the API server ${f.data.serverVersion}`, evidence: [f] });
      }
    }
    const server = serverVersionOf(facts);
    const s = parseVersion(server);
    if (s) {
      const maxOld = s.minor >= 28 ? 3 : 2;
      for (const f of factsOf(facts, 'node-info')) {
        for (const [what, text] of [['kubelet', f.data.kubeletVersion], ['kube-proxy', f.data.kubeProxyVersion]] as const) {
          const v = parseVersion(text);
          if (!v || v.major !== s.major) continue;
          if (v.minor > s.minor) hits.push({ title: `${what} ${text} on ${f.data.name ?? 'the node'} is newer than the API server ${server}`, evidence: [f, ...factsOf(facts, 'kube-version').filter((k) => k.data.serverVersion)] });
          else if (s.minor - v.minor > maxOld) hits.push({ title: `${what} ${text} on ${f.data.name ?? 'the node'} is ${s.minor - v.minor} minor versions older than the API server ${server}`, evidence: [f, ...factsOf(facts, 'kube-version').filter((k) => k.data.serverVersion)] });
        }
      }
    }
    return hits;
  },
};
