import type { Finding } from '../../domain/finding';
import { checkWindowsBuildSupport } from '../../domain/windows-builds';
import { WINDOWS_INTRO_URL, type ClusterFacts, type ClusterRule } from './cluster-facts';

/**
 * `windows-build-unsupported`: the node's Windows build is not supported by the cluster's Kubernetes version
 * (error), or is newer than the support table lists for it (warning).
 */
export const windowsBuildUnsupportedRule: ClusterRule = {
  id: 'windows-build-unsupported',
  evaluate(facts: ClusterFacts): Finding[] {
    const out: Finding[] = [];
    for (const node of facts.nodes) {
      if (node.os !== 'windows' || node.windowsBuild === null) continue;
      const check = checkWindowsBuildSupport(node.windowsBuild, facts.serverVersion, node.osImage);
      if (!check.severity) continue;
      const labelBuild = node.labels['node.kubernetes.io/windows-build'];
      out.push({
        ruleId: 'windows-build-unsupported',
        severity: check.severity,
        node: node.name,
        title:
          check.verdict === 'not-listed'
            ? `${node.name}: ${node.windowsRelease ?? `build ${node.windowsBuild}`} is not listed upstream for Kubernetes ${facts.serverVersion}`
            : `${node.name}: ${node.windowsRelease ?? `build ${node.windowsBuild}`} is not a supported Windows node build`,
        evidence: [
          {
            source: `node/${node.name}`,
            line: null,
            excerpt: [
              node.kernelVersion ? `kernelVersion ${node.kernelVersion}` : null,
              node.osImage ? `osImage "${node.osImage}"` : null,
              labelBuild ? `node.kubernetes.io/windows-build=${labelBuild}` : null,
              facts.serverVersion ? `API server ${facts.serverVersion}` : null,
            ]
              .filter(Boolean)
              .join(', '),
          },
          ...(check.source ? [{ source: 'support table', line: null, excerpt: check.source }] : []),
        ],
        remediation: {
          summary: check.message,
          steps:
            check.verdict === 'not-listed'
              ? ['Check that your Kubernetes distribution supports this Windows build before relying on the node.', 'Make sure container images (including pause) have a variant for this build.']
              : [
                  'Move the workloads to nodes running a supported Windows Server LTSC build (Windows Server 2019 or 2022).',
                  'Rebuild the node from a supported image, then drain and remove the old node.',
                  'Process-isolated containers need images built for the same build as the host.',
                ],
          commands: [`kubectl get node ${node.name} -o jsonpath='{.status.nodeInfo.kernelVersion}'`, `kubectl drain ${node.name} --ignore-daemonsets`],
          links: [`${WINDOWS_INTRO_URL}#windows-os-version-support`],
        },
      });
    }
    return out;
  },
};
