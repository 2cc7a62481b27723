import type { Finding } from '../../domain/finding';
import { parseKubernetesVersion } from '../../domain/windows-builds';
import type { ClusterFacts, ClusterRule } from './cluster-facts';

export const VERSION_SKEW_POLICY_URL = 'https://kubernetes.io/releases/version-skew-policy/';

/**
 * How many minor versions a node component may lag the API server: three from v1.28 on, two before
 * (Kubernetes version skew policy, link above). Never newer than the API server.
 */
export function maxNodeLagMinors(apiServerMinor: number): number {
  return apiServerMinor >= 28 ? 3 : 2;
}

/**
 * Skew problem of a node component (`kubelet`, `kube-proxy`) against the API server, as one sentence;
 * null when within policy or when either version is unreadable.
 */
export function componentSkew(component: 'kubelet' | 'kube-proxy', version: string | null | undefined, apiServerVersion: string | null | undefined): string | null {
  const v = parseKubernetesVersion(version);
  const api = parseKubernetesVersion(apiServerVersion);
  if (!v || !api || v.major !== 1 || api.major !== 1) return null;
  if (v.minor > api.minor) {
    return `${component} ${version} is newer than the API server ${apiServerVersion}; node components must not be newer than the API server.`;
  }
  const lag = api.minor - v.minor;
  const max = maxNodeLagMinors(api.minor);
  if (lag > max) {
    return `${component} ${version} is ${lag} minor versions behind the API server ${apiServerVersion}; at most ${max} are supported.`;
  }
  return null;
}

/** kubectl may be one minor version older or newer than the API server. */
export function kubectlSkew(version: string | null | undefined, apiServerVersion: string | null | undefined): string | null {
  const v = parseKubernetesVersion(version);
  const api = parseKubernetesVersion(apiServerVersion);
  if (!v || !api || v.major !== 1 || api.major !== 1) return null;
  const d = v.minor - api.minor;
  if (Math.abs(d) <= 1) return null;
  return `kubectl ${version} is ${Math.abs(d)} minor versions ${d > 0 ? 'newer' : 'older'} than the API server ${apiServerVersion}; kubectl supports one minor version of skew.`;
}

const remediation = (what: string) => ({
  summary: `Bring ${what} within the supported version skew of the API server.`,
  steps: [
    'Upgrade the control plane first, then the nodes, one minor version at a time.',
    'On Windows nodes, replace kubelet.exe and kube-proxy.exe (or the node image) with the matching release and restart the services.',
  ],
  commands: ['kubectl version', 'kubectl get nodes -o wide'],
  links: [VERSION_SKEW_POLICY_URL],
});

/** `version-skew` (warning): kubelet/kube-proxy/kubectl outside the supported skew of the API server. */
export const versionSkewRule: ClusterRule = {
  id: 'version-skew',
  evaluate(facts: ClusterFacts): Finding[] {
    const out: Finding[] = [];
    if (!facts.serverVersion) return out;
    for (const node of facts.nodes) {
      const problems = [
        componentSkew('kubelet', node.kubeletVersion, facts.serverVersion),
        componentSkew('kube-proxy', node.kubeProxyVersion, facts.serverVersion),
      ].filter((p): p is string => p !== null);
      if (problems.length === 0) continue;
      out.push({
        ruleId: 'version-skew',
        severity: 'warning',
        node: node.name,
        title: `${node.name}: node components outside the supported version skew`,
        evidence: problems.map((p) => ({ source: `node/${node.name}`, line: null, excerpt: p })),
        remediation: remediation(`the node components of ${node.name}`),
      });
    }
    const kubectl = kubectlSkew(facts.kubectlVersion, facts.serverVersion);
    if (kubectl) {
      out.push({
        ruleId: 'version-skew',
        severity: 'warning',
        node: null,
        title: 'kubectl outside the supported version skew',
        evidence: [{ source: 'kubectl version', line: null, excerpt: kubectl }],
        remediation: remediation('kubectl'),
      });
    }
    return out;
  },
};
