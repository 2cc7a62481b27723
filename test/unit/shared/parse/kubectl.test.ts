import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../shared/logic/facts';
import { parseDescribeNode, parseGetNodes, parseKubectlVersion, parseNodeObjects, parseServerVersionJson } from '../../../../shared/parse/kubectl';
import { CTX, sampleText } from './samples';

const kv = (text: string) => factsOf(parseKubectlVersion(text, CTX).facts, 'kube-version')[0]?.data;

describe('kubectl version', () => {
  it('old version.Info format with WARNING lines', () => {
    expect(kv(sampleText('version-os/kubectl-version-1.26-deprecation-warning-and-skew.txt'))).toMatchObject({ clientVersion: 'v1.26.2', serverVersion: 'v1.23.5', skewWarning: expect.stringMatching(/exceeds the supported minor version skew/) });
  });

  it('-o json after the echoed command, minor "9+"', () => {
    expect(kv(sampleText('version-os/kubectl-version-o-json-1.9-alpha.json'))).toMatchObject({ clientVersion: 'v1.9.0-alpha.1.487+550c3cab4fe267', serverVersion: 'v1.9.0-alpha.1.487+550c3cab4fe267', format: 'kubectl-version-json' });
  });

  it('-o json with stderr after it and no server', () => {
    const r = parseKubectlVersion(sampleText('version-os/kubectl-version-output-json-no-server-connection-refused.txt'), CTX);
    expect(factsOf(r.facts, 'kube-version')[0]!.data).toMatchObject({ clientVersion: 'v1.25.2', serverVersion: null });
    expect(r.warnings.join()).toMatch(/no server version/);
  });

  it('1.28+ short format and YAML', () => {
    expect(kv('Client Version: v1.29.1\nKustomize Version: v5.0.4-0.20230601165947-6ce0bf390ce3\nServer Version: v1.28.5\n')).toMatchObject({ clientVersion: 'v1.29.1', serverVersion: 'v1.28.5' });
    expect(kv('clientVersion:\n  gitVersion: v1.30.0\nserverVersion:\n  gitVersion: v1.27.3\n')).toMatchObject({ clientVersion: 'v1.30.0', serverVersion: 'v1.27.3' });
  });

  it('cluster/version.json and empty input', () => {
    expect(factsOf(parseServerVersionJson('{"major":"1","minor":"29","gitVersion":"v1.29.2"}', CTX).facts, 'kube-version')[0]!.data.serverVersion).toBe('v1.29.2');
    expect(parseKubectlVersion('', CTX).facts).toEqual([]);
  });
});

describe('kubectl get nodes -o wide', () => {
  it('reads OS-IMAGE with spaces, node/ prefixes and version suffixes', () => {
    const f = factsOf(parseGetNodes(sampleText('nodes/get-nodes-wide-rke2-ws2019-containerd-1.5.4.txt'), CTX).facts, 'node-info');
    expect(f.map((n) => [n.data.name, n.data.os, n.data.kernelVersion, n.data.containerRuntime, n.data.ready])).toEqual([
      ['ip-172-31-26-179', 'linux', '5.4.0-1045-aws', 'containerd://1.4.8-k3s1', true],
      ['ip-ac1f0eee', 'windows', '10.0.17763.2061', 'containerd://1.5.4', true],
    ]);
    expect(f[1]!.node).toBe('ip-ac1f0eee');
  });

  it('stops at the next command echo', () => {
    const f = factsOf(parseGetNodes(sampleText('nodes/describe-node-aks-engine-ws-2004-dualstack-labels.txt'), CTX).facts, 'node-info');
    expect(f.map((n) => n.data.name)).toEqual(['6837k8s00000000', 'k8s-master-68377600-0']);
  });

  it('NotReady and cut rows', () => {
    const f = factsOf(parseGetNodes('NAME    STATUS     ROLES    AGE   VERSION\nwin-1   NotReady   <none>   3d    v1.29.2\nwin-2   Read', CTX).facts, 'node-info');
    expect(f[0]!.data.ready).toBe(false);
    expect(f).toHaveLength(2);
  });
});

describe('kubectl describe node', () => {
  it('reads a tail with blank lines interleaved and misaligned columns', () => {
    const n = factsOf(parseDescribeNode(sampleText('nodes/describe-node-ws2019-eval-docker-systeminfo.txt'), CTX).facts, 'node-info')[0]!;
    expect(n.data).toMatchObject({ name: null, os: 'windows', kernelVersion: '10.0.17763.253', containerRuntime: 'docker://18.9.1', kubeletVersion: 'v1.12.5', kubeProxyVersion: 'v1.12.5', podCIDR: '10.244.1.0/24' });
    expect(n.line).toBe(21);
  });

  it('reads a head: name, windows label, no taints, no Ready row', () => {
    const n = factsOf(parseDescribeNode(sampleText('nodes/describe-node-acs-engine-windows-1.10-conditions.txt'), CTX).facts, 'node-info')[0]!;
    expect(n.data).toMatchObject({ name: '10932k8s9010', os: 'windows', taints: [], ready: null });
  });
});

describe('Node objects', () => {
  it('reads a NodeList JSON and a Node YAML', () => {
    const node = { kind: 'Node', metadata: { name: 'win-1', labels: { 'kubernetes.io/os': 'windows' } }, spec: { podCIDR: '10.244.1.0/24' }, status: { conditions: [{ type: 'Ready', status: 'False' }], addresses: [{ type: 'InternalIP', address: '10.0.0.4' }], nodeInfo: { kubeletVersion: 'v1.29.2', osImage: 'Windows Server 2022 Datacenter', kernelVersion: '10.0.20348.2227', containerRuntimeVersion: 'containerd://1.7.13', operatingSystem: 'windows' } } };
    const f = factsOf(parseNodeObjects(JSON.stringify({ kind: 'NodeList', items: [node] }), CTX).facts, 'node-info')[0]!;
    expect(f.data).toMatchObject({ name: 'win-1', ready: false, internalIP: '10.0.0.4', podCIDR: '10.244.1.0/24', os: 'windows' });
    const yamlText = 'apiVersion: v1\nkind: Node\nmetadata:\n  name: win-2\nstatus:\n  nodeInfo:\n    kernelVersion: 10.0.17763.1\n    osImage: Windows Server 2019 Datacenter\n';
    expect(factsOf(parseNodeObjects(yamlText, CTX).facts, 'node-info')[0]!.data).toMatchObject({ name: 'win-2', os: 'windows', format: 'node-yaml' });
  });
});
