import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../../shared/domain/finding';
import { DRAFT_MARK, FORM_FIELD_IDS, FORM_LABELS, cloudProviderOf, issueUrl, renderReport, suggestRepository } from '../../../../shared/report/render';
import type { NodeReportFacts, ReportFacts } from '../../../../shared/report/report-facts';

function finding(ruleId: string, severity: Finding['severity'] = 'error', title = `${ruleId} fired`): Finding {
  return {
    ruleId,
    severity,
    node: 'win-1',
    title,
    evidence: [{ source: 'probe:services', line: 3, excerpt: 'kube-proxy  Stopped' }],
    remediation: { summary: 'fix it', steps: ['step'], commands: [], links: [] },
  };
}

function winNode(over: Partial<NodeReportFacts> = {}): NodeReportFacts {
  return {
    name: 'win-1',
    os: 'windows',
    osImage: 'Windows Server 2022 Datacenter',
    kernelVersion: '10.0.20348.2582',
    windows: { caption: 'Microsoft Windows Server 2022 Datacenter', version: '10.0.20348', build: 20348, ubr: 2582, architecture: '64-bit', displayVersion: '21H2', source: 'cim' },
    kubeletVersion: 'v1.32.4',
    kubeProxyVersion: 'v1.32.4',
    containerRuntime: 'containerd://1.7.20',
    runtimeDetail: 'containerd github.com/containerd/containerd v1.7.20 abc; pause image mcr.microsoft.com/oss/kubernetes/pause:3.9',
    cni: { name: 'flannel.4096', type: 'flannel', networkMode: 'Overlay; flannel backend vxlan', networks: ['flannel.4096'], source: 'CNI config C:\\k\\cni\\config\\cni.conf + Get-HnsNetwork' },
    layout: 'Windows services kubelet (Running)',
    providerID: 'azure:///subscriptions/x/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/akswin/virtualMachines/0',
    labels: { 'kubernetes.io/os': 'windows', 'kubernetes.azure.com/cluster': 'x' },
    ready: false,
    ...over,
  };
}

function facts(over: Partial<ReportFacts> = {}): ReportFacts {
  return {
    generatedAt: '2026-01-01T00:00:00.000Z',
    tool: { name: 'windeck', version: '1.2.3' },
    cluster: {
      context: 'prod',
      simulated: false,
      kubernetesVersion: 'v1.32.4',
      kubectlVersion: 'Client Version: v1.32.4\nKustomize Version: v5.5.0\nServer Version: v1.32.4',
      controlPlaneOs: ['cp-1: Ubuntu 22.04.4 LTS (kernel 5.15.0-1060-azure)'],
    },
    nodes: [winNode()],
    findings: [finding('service-not-running'), finding('node-not-ready')],
    excerpts: [{ node: 'win-1', source: 'kube-proxy.log', text: 'E0612 10:00:00.000000 1 proxier.go:1] Policy creation failed' }],
    origin: 'store',
    ...over,
  };
}

describe('renderReport', () => {
  it('fills every form field, in form order, with /sig windows at the end', () => {
    const r = renderReport(facts());
    let last = -1;
    for (const id of FORM_FIELD_IDS) {
      const at = r.body.indexOf(`### ${FORM_LABELS[id]}`);
      expect(at, id).toBeGreaterThan(last);
      last = at;
      expect(r.fields[id].value.trim(), id).not.toBe('');
    }
    expect(r.body.trimEnd().endsWith('/sig windows')).toBe(true);
    expect(r.body).toContain('$ kubectl version');
    expect(r.body).toContain('Server Version: v1.32.4');
    expect(r.body).toContain('Azure (AKS)');
    expect(r.body).toContain('Caption: Microsoft Windows Server 2022 Datacenter');
    expect(r.body).toContain('BuildNumber.UBR: 20348.2582 (Windows Server 2022)');
    expect(r.body).toContain('OSArchitecture: 64-bit');
    expect(r.body).toContain('Get-CimInstance Win32_OperatingSystem');
    expect(r.body).toContain('cp-1: Ubuntu 22.04.4 LTS');
    expect(r.body).toContain('containerd://1.7.20');
    expect(r.body).toContain('network mode Overlay; flannel backend vxlan');
    expect(r.body).toContain('Policy creation failed');
  });

  it('marks drafted fields and keeps what the user wrote', () => {
    const drafted = renderReport(facts());
    expect(drafted.drafted).toEqual(expect.arrayContaining(['problem', 'expected', 'repro', 'additional']));
    expect(drafted.fields.problem.value.startsWith(DRAFT_MARK)).toBe(true);
    expect(drafted.fields.problem.value).toContain('service-not-running');
    const given = renderReport(facts(), { problem: 'kube-proxy stops after an hour', expected: 'it keeps running', repro: '1. wait an hour' });
    expect(given.fields.problem).toEqual({ value: 'kube-proxy stops after an hour', drafted: false });
    expect(given.fields.expected.drafted).toBe(false);
    expect(given.drafted).not.toContain('problem');
    expect(given.title).toBe('[Windows] kube-proxy stops after an hour');
  });

  it('redacts secrets the user pastes into the report', () => {
    const r = renderReport(facts(), { problem: `token ghp_${'A1b2C3d4'.repeat(4)}ZZZZ leaked`, repro: 'kubectl --token=abcdef.0123456789abcdef get nodes' });
    expect(r.body).not.toContain('A1b2C3d4');
    expect(r.body).not.toContain('0123456789abcdef');
    expect(r.url).not.toContain('A1b2C3d4');
  });

  it('stays within 65,536 characters with huge excerpts and many findings', () => {
    const big = 'E0612 10:00:00 x.go:1] ' + 'failure '.repeat(400);
    const many = Array.from({ length: 400 }, (_, i) => ({ ...finding(`hns-network-missing`), title: `problem ${i} ${'x'.repeat(200)}`, evidence: [{ source: 's', line: 1, excerpt: 'y'.repeat(3000) }] }));
    const r = renderReport(facts({ findings: many, excerpts: Array.from({ length: 50 }, (_, i) => ({ node: 'win-1', source: `l${i}.log`, text: `${big}\n`.repeat(40) })) }));
    expect(r.body.length).toBeLessThanOrEqual(65_536);
    expect(r.truncated).toBe(true);
    expect(r.body).toContain('/sig windows');
  });

  it('builds the issues/new URL for the bug-report template within the limit, leaving long fields for the body', () => {
    const r = renderReport(facts(), { problem: 'short problem', repro: 'r'.repeat(20_000) });
    const u = new URL(r.url);
    expect(`${u.origin}${u.pathname}`).toBe('https://github.com/kubernetes/kubernetes/issues/new');
    expect(u.searchParams.get('template')).toBe('bug-report.yaml');
    expect(u.searchParams.get('problem')).toBe('short problem');
    expect(u.searchParams.get('kubeVersion')).toContain('Server Version: v1.32.4');
    expect(u.searchParams.get('repro')).toBeNull();
    expect(r.urlOmitted).toContain('repro');
    expect(r.url.length).toBeLessThanOrEqual(8_000);
    const { url, omitted } = issueUrl('t', r.fields, 600);
    expect(url.length).toBeLessThanOrEqual(600);
    expect(omitted.length).toBeGreaterThan(0);
  });
});

describe('suggestRepository and cloudProviderOf', () => {
  it('points flannel, HNS and setup problems at their repositories', () => {
    expect(suggestRepository([finding('flannel-waiting-for-network'), finding('sourcevip-stale')])?.repository).toBe('flannel-io/flannel');
    expect(suggestRepository([finding('hns-network-missing'), finding('pause-image-os-mismatch')])?.repository).toBe('microsoft/Windows-Containers');
    expect(suggestRepository([finding('component-not-a-service', 'warning'), finding('kubelet-reserve-missing', 'warning')])?.repository).toBe('kubernetes-sigs/sig-windows-tools');
    expect(suggestRepository([finding('node-not-ready'), finding('version-skew', 'warning')])).toBeNull();
    expect(suggestRepository([])).toBeNull();
  });

  it('reads the cloud from providerID', () => {
    expect(cloudProviderOf([winNode({ providerID: 'aws:///us-east-1a/i-0abc', labels: {} })], false)).toContain('AWS');
    expect(cloudProviderOf([winNode({ providerID: 'gce://proj/zone/vm', labels: {} })], false)).toContain('Google');
    expect(cloudProviderOf([winNode({ providerID: null, labels: {} })], false)).toContain('no providerID');
    expect(cloudProviderOf([winNode()], true)).toContain('simulated');
  });
});
