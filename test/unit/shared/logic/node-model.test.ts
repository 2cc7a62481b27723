import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeModel } from '../../../../shared/domain/node';
import { toNodeModel, toNodeSummary, type NodeObject } from '../../../../shared/logic/node-model';
import { nodesFromWideTable } from '../../../helpers/kube-wide-table';

const samples = path.resolve(__dirname, '../../../fixtures/samples/nodes');
const read = (f: string) => fs.readFileSync(path.join(samples, f), 'utf8');

describe('node model from real `get nodes -o wide` samples', () => {
  it.each([
    ['get-nodes-wide-ws2019-containerd-1.4.1.txt', 'worker-win-2', 17763, 'containerd://1.4.1', 'v1.19.3'],
    ['get-nodes-wide-aks-ws2019-containerd-unknown-suffix.txt', 'aksnpwin000000', 17763, 'containerd://1.4.4+unknown', 'v1.20.5'],
    ['get-nodes-wide-rke2-ws2019-containerd-1.5.4.txt', 'ip-ac1f0eee', 17763, 'containerd://1.5.4', 'v1.21.3'],
    ['get-nodes-wide-ws2019-eval-antrea-containerd-1.5.7.txt', 'winw1', 17763, 'containerd://1.5.7', 'v1.23.3-rc.0.3+531a28b82ee021'],
    ['describe-node-aks-engine-ws-2004-dualstack-labels.txt', '6837k8s00000000', 19041, 'docker://19.3.14', 'v1.19.7'],
  ])('%s', (file, name, build, runtime, kubelet) => {
    const nodes = nodesFromWideTable(read(file));
    expect(nodes.length).toBe(2);
    const models = nodes.map((n) => toNodeModel(n, { kubernetesVersion: kubelet, syncedAt: 1 }));
    for (const m of models) expect(NodeModel.safeParse(m).success).toBe(true);
    const win = models.find((m) => m.os === 'windows')!;
    expect(win.name).toBe(name);
    expect(win.windowsBuild).toBe(build);
    expect(win.windowsRelease).toBe(build === 17763 ? 'Windows Server 2019' : 'Windows Server, version 2004');
    expect(win.containerRuntime).toBe(runtime);
    expect(win.kubeletVersion).toBe(kubelet);
    expect(win.ready).toBe(true);
    const linux = models.find((m) => m.os === 'linux')!;
    expect(linux.windowsBuild).toBeNull();
    expect(linux.windowsRelease).toBeNull();
  });
});

function winNode(over: Partial<{ ready: string; build: string; kubelet: string; unschedulable: boolean; osImage: string; conditions: NonNullable<NonNullable<NodeObject['status']>['conditions']> }> = {}): NodeObject {
  return {
    metadata: { name: 'win-1', uid: 'u1', labels: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.17763' }, creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { podCIDR: '127.244.1.0/24', unschedulable: over.unschedulable ?? false, taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] },
    status: {
      conditions: over.conditions ?? [{ type: 'Ready', status: over.ready ?? 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
      addresses: [
        { type: 'InternalIP', address: '127.0.10.11' },
        { type: 'Hostname', address: 'win-1' },
      ],
      nodeInfo: {
        kernelVersion: over.build ?? '10.0.17763.6189',
        osImage: over.osImage ?? 'Windows Server 2019 Datacenter',
        containerRuntimeVersion: 'containerd://1.7.20',
        kubeletVersion: over.kubelet ?? 'v1.32.4',
        kubeProxyVersion: over.kubelet ?? 'v1.32.4',
        operatingSystem: 'windows',
        architecture: 'amd64',
      },
    },
  };
}

describe('health', () => {
  it('is healthy for a ready, supported, in-skew node', () => {
    const m = toNodeModel(winNode(), { kubernetesVersion: 'v1.32.4', podCount: 7, syncedAt: 123 });
    expect(m).toMatchObject({ health: 'healthy', reasons: [], podCount: 7, syncedAt: 123, internalIP: '127.0.10.11', podCIDR: '127.244.1.0/24' });
    expect(m.taints).toEqual([{ key: 'os', value: 'windows', effect: 'NoSchedule' }]);
    expect(Object.keys(toNodeSummary(m))).toEqual(['name', 'os', 'ready', 'windowsBuild', 'windowsRelease', 'kubeletVersion', 'containerRuntime', 'internalIP', 'podCount', 'health', 'reasons', 'syncedAt']);
  });
  it('is error when not ready, with the reason', () => {
    const m = toNodeModel(winNode({ ready: 'False' }), { kubernetesVersion: 'v1.32.4' });
    expect(m.health).toBe('error');
    expect(m.ready).toBe(false);
    expect(m.reasons[0]).toMatch(/Not ready: Ready=False \(KubeletReady/);
    expect(toNodeModel(winNode({ ready: 'Unknown' })).health).toBe('error');
  });
  it('is unknown without a Ready condition, warning when cordoned or under pressure', () => {
    expect(toNodeModel(winNode({ conditions: [] })).health).toBe('unknown');
    expect(toNodeModel(winNode({ unschedulable: true })).health).toBe('warning');
    const pressure = toNodeModel(
      winNode({ conditions: [{ type: 'Ready', status: 'True' }, { type: 'DiskPressure', status: 'True', reason: 'KubeletHasDiskPressure' }] }),
    );
    expect(pressure.health).toBe('warning');
    expect(pressure.reasons.join()).toMatch(/DiskPressure=True/);
  });
  it('flags builds and skew', () => {
    expect(toNodeModel(winNode({ build: '10.0.14393.0' })).health).toBe('error');
    expect(toNodeModel(winNode({ build: '10.0.26100.1' }), { kubernetesVersion: 'v1.32.0' }).health).toBe('warning');
    expect(toNodeModel(winNode({ build: '10.0.20348.2' }), { kubernetesVersion: 'v1.32.0' }).windowsRelease).toBe('Windows Server 2022');
    const old = toNodeModel(winNode({ kubelet: 'v1.27.1' }), { kubernetesVersion: 'v1.32.0' });
    expect(old.health).toBe('warning');
    expect(old.reasons.join()).toMatch(/kubelet v1.27.1 is 5 minor versions behind/);
    expect(toNodeModel(winNode({ kubelet: 'v1.33.0' }), { kubernetesVersion: 'v1.32.0' }).reasons.join()).toMatch(/newer than the API server/);
  });
  it('never throws on broken objects', () => {
    const junk: unknown[] = [{}, { metadata: null }, { status: { conditions: [null, { type: 5 }], addresses: [{}], nodeInfo: null } }, { spec: { taints: [null, { key: 'a' }] } }];
    for (const j of junk) {
      const m = toNodeModel(j as NodeObject);
      expect(NodeModel.safeParse(m).success).toBe(true);
    }
  });
  it('falls back to the windows-build label and the beta os label', () => {
    const n = winNode();
    delete n.status!.nodeInfo!.kernelVersion;
    n.metadata!.labels = { 'beta.kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348' };
    const m = toNodeModel(n);
    expect(m.os).toBe('windows');
    expect(m.windowsBuild).toBe(20348);
  });
});
