/**
 * `windows-build-unsupported`: the node's Windows build is not supported for the cluster's Kubernetes version
 * (never for builds below 17763 or client editions; `warning` for builds newer than the table lists).
 * The support table lives in shared/domain/windows-builds.ts (WINDOWS-KNOWLEDGE.md section 1).
 */
import { checkWindowsBuildSupport } from '../../domain/windows-builds';
import { factsOf, type Fact } from '../../logic/facts';
import { parseVersion, serverVersionOf, windowsNodeInfos } from '../helpers';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

export const windowsBuildUnsupported: RuleModule = {
  id: 'windows-build-unsupported',
  severity: 'error',
  description: 'The node\'s Windows build is not supported by the cluster\'s Kubernetes version (or never supported: below 17763, client SKUs).',
  remediation: {
    summary: 'Kubernetes supports Windows Server 2019 (17763) and Server 2022 (20348) LTSC nodes (plus some SAC builds per version); older builds and Windows 10/11 client editions are not supported nodes.',
    steps: [
      'Rebuild the node on a supported Windows Server build for your Kubernetes version (the build number decides, not the product name: Windows 11 reports itself as Windows 10).',
      'Use container images (including the pause image) that match the new host build.',
      'For a build newer than the upstream table lists, check your distribution\'s support statement.',
    ],
    commands: ['[Environment]::OSVersion.Version', 'Get-CimInstance Win32_OperatingSystem | Select-Object Caption, BuildNumber, ProductType', 'kubectl get nodes -o wide'],
    links: [LINKS.windowsOsSupport, LINKS.windowsIntro],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    const serverVersion = serverVersionOf(facts);
    const winNodes = windowsNodeInfos(facts);
    const judge = (f: Fact, build: number | null, osName: string | null, isClient: boolean | null, k8s: string | null, node: string | null) => {
      if (build === null) return;
      const image = isClient === true && !/\bWindows (10|11)\b/i.test(osName ?? '') ? `Windows ${build >= 22000 ? '11' : '10'} (${osName ?? 'client edition'})` : isClient === false ? (osName ?? 'Windows Server') : osName;
      const check = checkWindowsBuildSupport(build, k8s, image);
      if (check.severity === null) return;
      hits.push({ title: check.message, evidence: [f], severity: check.severity, node, remediation: check.source ? { steps: [`Support table used: ${check.source}.`] } : {} });
    };
    for (const f of winNodes) {
      const kernel = /^10\.0\.(\d{4,5})/.exec(f.data.kernelVersion ?? '');
      const k8s = serverVersion ?? f.data.kubeletVersion;
      judge(f, kernel ? Number(kernel[1]) : null, f.data.osImage, null, k8s, f.data.name);
    }
    for (const f of factsOf(facts, 'os-info')) {
      // The cluster version, when the evidence has one: the API server, else the only Windows node's kubelet.
      const k8s = serverVersion ?? (winNodes.length === 1 ? winNodes[0]!.data.kubeletVersion : null);
      judge(f, f.data.build, f.data.productName, f.data.isClient, k8s && parseVersion(k8s) ? k8s : null, f.node);
    }
    return hits;
  },
};
