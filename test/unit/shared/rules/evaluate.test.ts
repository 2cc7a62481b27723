import { describe, expect, it } from 'vitest';
import { Finding } from '../../../../shared/domain/finding';
import { makeFact, type Fact } from '../../../../shared/logic/facts';
import { nodeModelFacts } from '../../../../shared/logic/facts-cluster';
import { CATALOG_RULES, CATALOG_RULE_IDS } from '../../../../shared/rules/catalog-rules';
import { evaluate, hasFindingAtOrAbove } from '../../../../shared/rules/evaluate';
import type { RuleModule } from '../../../../shared/rules/rule';

const svc = (name: string, status: string, node: string | null = null): Fact =>
  makeFact('service', { source: 'probe:services', node }, 3, `${name} ${status}`, { name, displayName: null, status, startType: 'Manual', delayedAutoStart: null, format: 'get-service-json' });

/** WINDOWS-KNOWLEDGE.md section 4, minus the cluster-only rules another module owns. */
const FILE_RULES = [
  'windows-build-unsupported', 'service-not-running', 'service-not-automatic', 'component-not-a-service', 'kubelet-priority-class-low', 'kubelet-reserve-missing',
  'kube-proxy-hostname-override-missing', 'runtime-version-unsupported', 'hns-network-missing', 'hns-state-inconsistent', 'hns-management-ip-mismatch', 'hns-adapter-not-found',
  'hns-endpoint-creation-failed', 'vethernet-adapter-missing', 'vethernet-adapter-duplicate', 'flannel-waiting-for-network', 'flannel-subnet-env-missing', 'sourcevip-invalid',
  'sourcevip-stale', 'cni-exceptionlist-misconfigured', 'pause-image-os-mismatch', 'port-forward-wincat-missing', 'dns-cluster-lookup-failed', 'dns-partial-name-unsupported',
  'dns-suffix-list-incomplete', 'icmp-external-unsupported', 'nodeport-local-unsupported', 'secrets-plaintext-on-node', 'version-skew',
];

describe('evaluate', () => {
  it('registers every file/probe rule of the catalogue, each once, with its default severity', () => {
    expect([...CATALOG_RULE_IDS].sort()).toEqual([...FILE_RULES].sort());
    const infos = CATALOG_RULES.filter((r) => r.severity === 'info').map((r) => r.id).sort();
    expect(infos).toEqual(['dns-partial-name-unsupported', 'icmp-external-unsupported', 'nodeport-local-unsupported', 'secrets-plaintext-on-node']);
    const warnings = CATALOG_RULES.filter((r) => r.severity === 'warning').map((r) => r.id).sort();
    expect(warnings).toEqual(['component-not-a-service', 'dns-suffix-list-incomplete', 'kube-proxy-hostname-override-missing', 'kubelet-priority-class-low', 'kubelet-reserve-missing', 'service-not-automatic', 'version-skew', 'vethernet-adapter-duplicate']);
  });

  it('no facts, no findings', () => {
    expect(evaluate([])).toEqual([]);
  });

  it('produces the DESIGN section 10 shape, sorted by severity then rule id', () => {
    const facts = [svc('kubelet', 'Stopped', 'win-1'), svc('kube-proxy', 'Running', 'win-1'), svc('containerd', 'Running')];
    const findings = evaluate(facts);
    for (const f of findings) expect(Finding.parse(f)).toEqual(f);
    expect(findings.map((f) => [f.ruleId, f.severity, f.node])).toEqual([
      ['service-not-running', 'error', 'win-1'],
      ['service-not-automatic', 'warning', null],
      ['service-not-automatic', 'warning', 'win-1'],
      ['service-not-automatic', 'warning', 'win-1'],
    ]);
    expect(findings[0]!.evidence).toEqual([{ source: 'probe:services', line: 3, excerpt: 'kubelet Stopped' }]);
  });

  it('runs other rule sets plugged in (the cluster rules), and survives a rule that throws', () => {
    const errors: string[] = [];
    const cluster: RuleModule = {
      id: 'node-not-ready',
      severity: 'error',
      description: 'test',
      remediation: { summary: 's', steps: ['x'], commands: [], links: ['https://kubernetes.io/'] },
      evaluate: (facts) => facts.filter((f) => f.type === 'node-info' && f.data.ready === false).map((f) => ({ title: 'NotReady', evidence: [f] })),
    };
    const broken: RuleModule = { ...cluster, id: 'broken', evaluate: () => { throw new Error('boom'); } };
    const node = nodeModelFacts({
      name: 'win-2', os: 'windows', ready: false, windowsBuild: 17763, windowsRelease: null, kubeletVersion: 'v1.29.0', containerRuntime: 'containerd://1.7.0', internalIP: '10.0.0.9', podCount: 0, health: 'error', reasons: [], syncedAt: null,
      uid: null, labels: {}, osImage: 'Windows Server 2019 Datacenter', kernelVersion: '10.0.17763.1', kubeProxyVersion: null, architecture: 'amd64', providerID: null, podCIDR: null,
      conditions: [{ type: 'Ready', status: 'False' }], taints: [], addresses: [], unschedulable: false, createdAt: null,
    });
    const findings = evaluate(node, { rules: [...CATALOG_RULES, cluster, broken], onRuleError: (id) => errors.push(id) });
    expect(findings.map((f) => [f.ruleId, f.node])).toEqual([['node-not-ready', 'win-2']]);
    expect(errors).toEqual(['broken']);
  });

  it('--fail-on thresholds', () => {
    const f = evaluate([svc('kubelet', 'Running')]);
    expect(hasFindingAtOrAbove(f, 'warning')).toBe(true);
    expect(hasFindingAtOrAbove(f, 'error')).toBe(false);
  });
});
