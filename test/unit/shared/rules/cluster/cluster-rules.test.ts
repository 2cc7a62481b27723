import { describe, expect, it } from 'vitest';
import { Finding } from '../../../../../shared/domain/finding';
import type { NodeModel } from '../../../../../shared/domain/node';
import { toNodeModel } from '../../../../../shared/logic/node-model';
import type { ClusterFacts, WorkloadObject } from '../../../../../shared/rules/cluster/cluster-facts';
import { CLUSTER_RULES, evaluateClusterRules } from '../../../../../shared/rules/cluster/cluster-rules';
import { nodeNotReadyRule } from '../../../../../shared/rules/cluster/node-not-ready';
import { serviceBackendsOver64Rule } from '../../../../../shared/rules/cluster/service-backends-over-64';
import { versionSkewRule } from '../../../../../shared/rules/cluster/version-skew';
import { windowsBuildUnsupportedRule } from '../../../../../shared/rules/cluster/windows-build-unsupported';
import { workloadOsSelectorMissingRule } from '../../../../../shared/rules/cluster/workload-os-selector-missing';
import { unsupportedFieldUses, workloadUnsupportedFieldRule } from '../../../../../shared/rules/cluster/workload-unsupported-field';

function node(name: string, os: 'windows' | 'linux', o: { ready?: string; build?: string; kubelet?: string; taint?: boolean; labels?: Record<string, string>; runtime?: string } = {}): NodeModel {
  return toNodeModel({
    metadata: { name, labels: { 'kubernetes.io/os': os, ...(o.labels ?? {}) } },
    spec: { taints: o.taint ? [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] : [] },
    status: {
      conditions: [{ type: 'Ready', status: o.ready ?? 'True', reason: o.ready === 'False' ? 'KubeletNotReady' : 'KubeletReady', message: 'container runtime network not ready' }],
      nodeInfo: {
        kernelVersion: os === 'windows' ? (o.build ?? '10.0.17763.1') : '6.1.0',
        kubeletVersion: o.kubelet ?? 'v1.32.4',
        kubeProxyVersion: o.kubelet ?? 'v1.32.4',
        containerRuntimeVersion: o.runtime ?? 'containerd://1.7.20',
        osImage: os === 'windows' ? 'Windows Server 2019 Datacenter' : 'Debian GNU/Linux 12',
      },
    },
  });
}

function deploy(name: string, spec: Record<string, unknown>, labels: Record<string, string> = { app: name }): WorkloadObject {
  return { kind: 'Deployment', apiVersion: 'apps/v1', metadata: { name, namespace: 'default' }, spec: { template: { metadata: { labels }, spec: { containers: [{ name: 'c' }], ...spec } } } } as WorkloadObject;
}

const base = (over: Partial<ClusterFacts> = {}): ClusterFacts => ({ serverVersion: 'v1.32.4', nodes: [node('linux-1', 'linux'), node('win-1', 'windows')], ...over });

function valid(findings: Finding[]): Finding[] {
  for (const f of findings) expect(Finding.safeParse(f).success, JSON.stringify(f)).toBe(true);
  return findings;
}

describe('node-not-ready', () => {
  it('fires for False and Unknown only', () => {
    const facts = base({ nodes: [node('a', 'windows', { ready: 'False' }), node('b', 'windows', { ready: 'Unknown' }), node('c', 'windows')] });
    const f = valid(nodeNotReadyRule.evaluate(facts));
    expect(f.map((x) => [x.node, x.severity])).toEqual([
      ['a', 'error'],
      ['b', 'error'],
    ]);
    expect(f[0]!.evidence[0]!.excerpt).toMatch(/Ready=False KubeletNotReady: container runtime network not ready/);
  });
});

describe('windows-build-unsupported', () => {
  it('errors on 14393, warns on 26100, silent on 17763/20348 with v1.32', () => {
    const facts = base({
      nodes: [node('w2016', 'windows', { build: '10.0.14393.1' }), node('w2025', 'windows', { build: '10.0.26100.1' }), node('w2019', 'windows'), node('w2022', 'windows', { build: '10.0.20348.1' }), node('l', 'linux')],
    });
    const f = valid(windowsBuildUnsupportedRule.evaluate(facts));
    expect(f.map((x) => [x.node, x.severity])).toEqual([
      ['w2016', 'error'],
      ['w2025', 'warning'],
    ]);
    expect(f[1]!.remediation.summary).toMatch(/not listed upstream/);
    expect(f[0]!.evidence.some((e) => e.source === 'support table')).toBe(true);
  });
  it('errors on a SAC build dropped for the version', () => {
    const f = windowsBuildUnsupportedRule.evaluate(base({ serverVersion: 'v1.25.0', nodes: [node('sac', 'windows', { build: '10.0.19041.804' })] }));
    expect(f[0]?.severity).toBe('error');
  });
});

describe('version-skew', () => {
  it('warns on kubelet too old or newer, and on kubectl', () => {
    const facts = base({ kubectlVersion: 'v1.29.0', nodes: [node('old', 'windows', { kubelet: 'v1.28.9' }), node('new', 'linux', { kubelet: 'v1.33.0' }), node('ok', 'windows', { kubelet: 'v1.29.0' })] });
    const f = valid(versionSkewRule.evaluate(facts));
    expect(f.map((x) => x.node)).toEqual(['old', 'new', null]);
    expect(f.every((x) => x.severity === 'warning')).toBe(true);
  });
  it('uses the two-minor policy before v1.28', () => {
    expect(versionSkewRule.evaluate(base({ serverVersion: 'v1.27.0', nodes: [node('n', 'linux', { kubelet: 'v1.24.0' })] }))).toHaveLength(1);
    expect(versionSkewRule.evaluate(base({ serverVersion: 'v1.27.0', nodes: [node('n', 'linux', { kubelet: 'v1.25.0' })] }))).toHaveLength(0);
  });
});

describe('workload-os-selector-missing', () => {
  it('warns when a workload can land on untainted Windows and on Linux', () => {
    const facts = base({ workloads: [deploy('web', {}), deploy('lin', { nodeSelector: { 'kubernetes.io/os': 'linux' } }), deploy('os', { os: { name: 'windows' } })] });
    const f = valid(workloadOsSelectorMissingRule.evaluate(facts));
    expect(f.map((x) => x.title)).toEqual([expect.stringContaining('default/web')]);
    expect(f[0]!.severity).toBe('warning');
  });
  it('is silent when Windows nodes are tainted, or the cluster is not mixed', () => {
    expect(workloadOsSelectorMissingRule.evaluate(base({ nodes: [node('l', 'linux'), node('w', 'windows', { taint: true })], workloads: [deploy('web', {})] }))).toEqual([]);
    expect(workloadOsSelectorMissingRule.evaluate(base({ nodes: [node('w', 'windows')], workloads: [deploy('web', {})] }))).toEqual([]);
  });
  it('fires when the workload tolerates the Windows taint but has no OS selector', () => {
    const w = deploy('tol', { tolerations: [{ operator: 'Exists' }] });
    expect(workloadOsSelectorMissingRule.evaluate(base({ nodes: [node('l', 'linux'), node('w', 'windows', { taint: true })], workloads: [w] }))).toHaveLength(1);
  });
  it('accepts required node affinity on the OS label and skips owned pods', () => {
    const aff = deploy('aff', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }] } } } });
    const owned: WorkloadObject = { kind: 'Pod', metadata: { name: 'p', namespace: 'default', ownerReferences: [{ kind: 'ReplicaSet', name: 'rs', controller: true }] }, spec: { containers: [{ name: 'c' }] } };
    expect(workloadOsSelectorMissingRule.evaluate(base({ workloads: [aff, owned] }))).toEqual([]);
  });
});

describe('workload-unsupported-field', () => {
  const bad = deploy('bad', {
    hostNetwork: true,
    hostPID: true,
    dnsPolicy: 'ClusterFirstWithHostNet',
    securityContext: { runAsUser: 1000, fsGroup: 2000, sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] },
    containers: [
      {
        name: 'app',
        securityContext: { privileged: true, capabilities: { add: ['NET_ADMIN'] }, readOnlyRootFilesystem: true, allowPrivilegeEscalation: true },
        volumeMounts: [{ name: 'data', mountPath: '/d', mountPropagation: 'HostToContainer', subPath: 'x' }],
        terminationMessagePath: '/tmp/term',
        resources: { limits: { 'hugepages-2Mi': '100Mi' } },
      },
    ],
    volumes: [{ name: 'mem', emptyDir: { medium: 'Memory' } }, { name: 'n', nfs: { server: 's', path: '/' } }, { name: 's', secret: { secretName: 'x', defaultMode: 0o400 } }],
  });

  it('lists every unsupported field with its path', () => {
    const fields = unsupportedFieldUses(bad, { dockerRuntime: true }).map((u) => u.field);
    for (const f of [
      'hostNetwork',
      'hostPID',
      'dnsPolicy: ClusterFirstWithHostNet',
      'runAsUser',
      'fsGroup',
      'sysctls',
      'privileged',
      'capabilities',
      'readOnlyRootFilesystem',
      'allowPrivilegeEscalation',
      'mountPropagation',
      'subPath mounts (Docker runtime)',
      'terminationMessagePath',
      'hugepages',
      'emptyDir.medium: Memory',
      'NFS volumes',
      'volume defaultMode',
    ]) {
      expect(fields).toContain(f);
    }
    expect(unsupportedFieldUses(bad, { dockerRuntime: false }).map((u) => u.field)).not.toContain('subPath mounts (Docker runtime)');
    expect(unsupportedFieldUses(bad).find((u) => u.field === 'runAsUser')?.path).toBe('spec.template.spec.securityContext.runAsUser');
  });
  it('fires only for workloads that can land on Windows', () => {
    const linuxOnly = { ...bad, metadata: { name: 'linux-only', namespace: 'default' }, spec: { template: { ...bad.spec!.template!, spec: { ...bad.spec!.template!.spec!, nodeSelector: { 'kubernetes.io/os': 'linux' } } } } } as WorkloadObject;
    const f = valid(workloadUnsupportedFieldRule.evaluate(base({ workloads: [bad, linuxOnly] })));
    expect(f).toHaveLength(1);
    expect(f[0]!.severity).toBe('error');
    expect(f[0]!.title).toMatch(/default\/bad can run on Windows nodes but uses hostNetwork/);
  });
  it('allows hostNetwork for HostProcess pods and flags session affinity timeouts', () => {
    const hpc = deploy('hpc', { hostNetwork: true, nodeSelector: { 'kubernetes.io/os': 'windows' }, securityContext: { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\SYSTEM' } } });
    const svc = { metadata: { name: 'sticky', namespace: 'default' }, spec: { selector: { app: 'hpc' }, sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } } } };
    const f = valid(workloadUnsupportedFieldRule.evaluate(base({ workloads: [hpc], services: [svc] })));
    expect(f).toHaveLength(1);
    expect(f[0]!.title).toMatch(/Service default\/sticky/);
  });
  it('reads CronJob and bare Pod templates', () => {
    const cj: WorkloadObject = { kind: 'CronJob', metadata: { name: 'cj', namespace: 'x' }, spec: { jobTemplate: { spec: { template: { spec: { hostIPC: true, containers: [] } } } } } };
    const pod: WorkloadObject = { kind: 'Pod', metadata: { name: 'p', namespace: 'x' }, spec: { shareProcessNamespace: true, containers: [] } };
    const f = workloadUnsupportedFieldRule.evaluate(base({ workloads: [cj, pod] }));
    expect(f.map((x) => x.evidence[0]!.excerpt)).toEqual(['spec.jobTemplate.spec.template.spec.hostIPC', 'spec.shareProcessNamespace']);
  });
});

describe('service-backends-over-64', () => {
  const slice = (svc: string, n: number, ready = true, family = 'IPv4') => ({
    metadata: { namespace: 'default', name: `${svc}-${n}-${family}`, labels: { 'kubernetes.io/service-name': svc } },
    addressType: family,
    endpoints: Array.from({ length: n }, (_, i) => ({ addresses: [`127.1.0.${i}`], conditions: { ready } })),
  });
  it('counts ready endpoints across slices', () => {
    const f = valid(serviceBackendsOver64Rule.evaluate(base({ endpointSlices: [slice('big', 40), slice('big', 30), slice('small', 64), slice('notready', 100, false), slice('dual', 50, true, 'IPv4'), slice('dual', 50, true, 'IPv6')] })));
    expect(f.map((x) => x.title)).toEqual([expect.stringContaining('default/big has 70 backends')]);
    expect(f[0]!.severity).toBe('warning');
  });
  it('is silent without Windows nodes', () => {
    expect(serviceBackendsOver64Rule.evaluate(base({ nodes: [node('l', 'linux')], endpointSlices: [slice('big', 100)] }))).toEqual([]);
  });
});

describe('evaluateClusterRules', () => {
  it('runs every rule and survives junk input', () => {
    expect(CLUSTER_RULES.map((r) => r.id)).toEqual(['node-not-ready', 'windows-build-unsupported', 'workload-unsupported-field', 'workload-os-selector-missing', 'service-backends-over-64', 'version-skew']);
    const junk = base({ workloads: [{} as WorkloadObject, { kind: 'Deployment', spec: null }, { kind: 'Pod', spec: { containers: [null as never], volumes: [null as never] } }], services: [{}], endpointSlices: [{}, { endpoints: [null as never] }] });
    const { failures } = evaluateClusterRules(junk);
    expect(failures).toEqual([]);
  });
});
