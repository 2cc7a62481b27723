import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, demoScenarioOrder, type RunningDemo } from '../../../electron/services/kube/demo';
import { testServices } from '../../helpers/services';
import { waitFor } from '../../helpers/temp-dir';

let t: ReturnType<typeof testServices>;
let demo: RunningDemo;

beforeAll(async () => {
  t = testServices();
  demo = await startDemo(t.services.core, { nodes: 4, windows: 2, liveSync: false });
}, 60_000);

afterAll(async () => {
  await demo?.stop();
  await t?.cleanup();
});

const ready = (name: string) => (demo.api.store.getObject('nodes', '', name)!.status.conditions as Array<{ type: string; status: string; reason: string }>).find((c) => c.type === 'Ready')!;

describe('demo service', () => {
  it('documents and follows the scenario order', () => {
    expect(demoScenarioOrder(5)).toEqual(['healthy', 'kube-proxy-stopped', 'hns-network-missing', 'flannel-waiting', 'pause-mismatch']);
    expect(demoScenarioOrder(3, 'dns-broken')).toEqual(['healthy', 'dns-broken', 'dns-broken']);
    expect(demoScenarioOrder(1, 'dns-broken')).toEqual(['dns-broken']);
    expect(demo.nodes.filter((n) => n.os === 'windows').map((n) => n.scenario)).toEqual(['healthy', 'kube-proxy-stopped']);
  });

  it('Node objects match the simulated hosts (build from the scenario OS)', () => {
    const node = demo.api.store.getObject('nodes', '', 'win-1')!;
    const host = demo.windows.get('win-1')!.ssh.model;
    expect(node.status.nodeInfo.kernelVersion).toBe(`${host.os.version}.${host.os.ubr}`);
    expect(node.status.addresses[0]).toEqual({ type: 'InternalIP', address: demo.windows.get('win-1')!.ssh.address });
  });

  it('a stopped kubelet on the simulated host turns the Node Ready=Unknown; started again, Ready comes back', async () => {
    const model = demo.windows.get('win-2')!.ssh.model;
    expect(ready('win-2').status).toBe('True');
    model.stopService('kubelet');
    await waitFor(() => ready('win-2').status === 'Unknown');
    expect(ready('win-2').reason).toBe('NodeStatusUnknown');
    model.startService('kubelet');
    await waitFor(() => ready('win-2').status === 'True');
    expect(ready('win-2').reason).toBe('KubeletReady');
  });
});
