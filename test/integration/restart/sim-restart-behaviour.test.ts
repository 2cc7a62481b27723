import { describe, expect, it } from 'vitest';
import { SimObjectStore } from '../../../electron/sim/kube-api/object-store';
import { WindowsNodeModel } from '../../../electron/sim/windows-node/node-model';
import { startDaemonSetReplacer } from '../../../electron/sim/windows-node/restart-behaviour';
import { resolveScenario } from '../../../electron/sim/windows-node/scenario';
import { waitFor } from '../../helpers/temp-dir';

/** The node model's restart behaviour on a controllable clock (no timers, no sleeps). */
function model(scenario: string) {
  let t = 1_800_000_000_000;
  const m = new WindowsNodeModel(resolveScenario(scenario, { nodeName: 'win-b', nodeIp: '127.0.50.1' }).spec, { now: () => t });
  return {
    m,
    advance(ms: number) {
      t += ms;
    },
    networks: () => m.hnsNetworks().map((n) => String(n.Name)),
    lbs: () => m.hnsPolicyLists().length,
  };
}

describe('Windows node simulator: what restarts do', () => {
  it('restarting HNS drops the flannel network, endpoints and load balancers; flanneld and kube-proxy bring them back', () => {
    const s = model('healthy');
    expect(s.networks()).toEqual(['External', 'flannel.4096']);
    expect(s.lbs()).toBe(3);
    s.m.restartService('hns');
    expect(s.networks()).toEqual(['External']);
    expect(s.m.hnsEndpoints()).toEqual([]);
    expect(s.lbs()).toBe(0);
    s.advance(1_000);
    expect(s.m.service('hns')?.status).toBe('Running');
    // Nothing comes back by itself.
    s.advance(10_000);
    expect(s.networks()).toEqual(['External']);
    s.m.restartService('flanneld');
    s.advance(500);
    expect(s.m.service('flanneld')?.status).toBe('Running');
    expect(s.networks()).toEqual(['External']);
    s.advance(500);
    expect(s.networks()).toEqual(['External', 'flannel.4096']);
    expect(s.lbs()).toBe(0);
    s.m.restartService('kube-proxy');
    s.advance(500);
    expect(s.m.service('kube-proxy')?.status).toBe('Running');
    expect(s.lbs()).toBe(0);
    s.advance(300);
    expect(s.lbs()).toBe(3);
  });

  it('kube-proxy programs no load balancers while its network is missing', () => {
    const s = model('hns-network-missing');
    expect(s.networks()).not.toContain('flannel.4096');
    s.m.restartService('kube-proxy');
    s.advance(5_000);
    expect(s.m.service('kube-proxy')?.status).toBe('Running');
    expect(s.lbs()).toBe(0);
  });

  it('kube-proxy that was stopped gets its load balancers (the cluster Services) once it runs', () => {
    const s = model('kube-proxy-stopped');
    expect(s.lbs()).toBe(0);
    s.m.restartService('kube-proxy');
    s.advance(1_000);
    // Transitions are observed when the model is read (as the restart script's polling does).
    expect(s.m.service('kube-proxy')?.status).toBe('Running');
    expect(s.lbs()).toBe(0);
    s.advance(300);
    expect(s.m.hnsPolicyLists().map((p) => (p.Policies as Array<{ VIPs: string[]; ExternalPort: number }>)[0]!.ExternalPort)).toEqual([443, 53, 53]);
  });

  it('a flanneld that waits for the network logs it and creates nothing', () => {
    const s = model('restart-network-lost');
    s.m.restartService('hns');
    s.advance(1_000);
    s.m.restartService('flanneld');
    s.advance(5_000);
    expect(s.networks()).toEqual(['External']);
    expect(s.m.file('C:\\k\\flanneld.log')!.bytes.toString('utf8')).toMatch(/Waiting for the Network \(flannel\.4096\) to be created\r\n$/);
  });

  it('a service with crashAfterMs stops by itself after each start', () => {
    const s = model('restart-kube-proxy-crashes');
    s.advance(10_000);
    expect(s.m.service('kube-proxy')?.status).toBe('Running');
    s.m.restartService('kube-proxy');
    s.advance(500);
    expect(s.m.service('kube-proxy')?.status).toBe('Running');
    s.advance(400);
    expect(s.m.service('kube-proxy')?.status).toBe('Stopped');
  });
});

describe('DaemonSet replacer (API simulator)', () => {
  it('a deleted DaemonSet pod comes back under a new name and uid, Pending then Running and Ready', async () => {
    const store = new SimObjectStore();
    store.create('pods', {
      metadata: {
        name: 'kube-proxy-windows-abcde',
        generateName: 'kube-proxy-windows-',
        namespace: 'kube-system',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'kube-proxy-windows', uid: 'ds-1', controller: true }],
      },
      spec: { nodeName: 'win-b', containers: [{ name: 'kube-proxy', image: 'sigwindowstools/kube-proxy:v1.32.4-flannel-hostprocess' }] },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    store.create('pods', { metadata: { name: 'web-1', namespace: 'default' }, spec: { nodeName: 'win-b', containers: [{ name: 'web' }] } });
    const replacer = startDaemonSetReplacer(store, { createAfterMs: 10, readyAfterMs: 50 });
    try {
      const old = store.getObject('pods', 'kube-system', 'kube-proxy-windows-abcde')!;
      store.remove('pods', 'kube-system', 'kube-proxy-windows-abcde');
      store.remove('pods', 'default', 'web-1');
      const pods = () => store.list('pods', {}).items.map((i) => store.render(i));
      const fresh = await waitFor(() => pods().find((p) => p.metadata.name.startsWith('kube-proxy-windows-')));
      expect(fresh.metadata.name).not.toBe('kube-proxy-windows-abcde');
      expect(fresh.metadata.uid).not.toBe(old.metadata.uid);
      expect(fresh.spec.nodeName).toBe('win-b');
      const ready = await waitFor(() => pods().find((p) => p.metadata.name === fresh.metadata.name && p.status.phase === 'Running'));
      expect(ready.status.conditions).toContainEqual({ type: 'Ready', status: 'True' });
      // Only DaemonSet pods come back.
      expect(pods().some((p) => p.metadata.name === 'web-1')).toBe(false);
      expect(replacer.replaced).toBe(1);
    } finally {
      replacer.stop();
    }
  });
});
