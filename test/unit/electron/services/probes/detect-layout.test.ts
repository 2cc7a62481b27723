import { describe, expect, it } from 'vitest';
import { detectLayout } from '../../../../../electron/services/probes/detect-layout';
import type { ServiceState } from '../../../../../electron/services/probes/normalize';

const svc = (...names: string[]): ServiceState[] => names.map((name) => ({ name, displayName: name, status: 'Running', startType: 'Automatic' }));

describe('layout detection', () => {
  it('tells the layouts of WINDOWS-KNOWLEDGE section 1 apart', () => {
    expect(detectLayout({ services: svc('kubelet', 'kubeproxy', 'containerd') }).layout).toBe('aks');
    expect(detectLayout({ services: svc('rancher-wins', 'containerd') }).layout).toBe('rke2');
    expect(detectLayout({ services: svc('kubelet', 'kube-proxy', 'antrea-agent', 'ovs-vswitchd') }).layout).toBe('tkg-antrea');
    expect(detectLayout({ services: svc('kubelet', 'kube-proxy', 'CalicoNode', 'CalicoFelix') }).layout).toBe('calico-windows');
    expect(
      detectLayout({
        services: svc('kubelet', 'containerd'),
        files: [{ path: 'C:\\var\\lib\\kubelet\\kubeadm-flags.env', exists: true, length: 1, lastWriteTime: null, offset: 0, truncated: false, encoding: 'utf8', text: '' }],
      }),
    ).toMatchObject({ layout: 'kubeadm-sig-windows-tools', components: { 'kube-proxy': 'not-on-node' } });
    const classic = detectLayout({ services: svc('kubelet', 'containerd'), processes: [{ name: 'flanneld.exe', commandLine: 'C:\\flannel\\flanneld.exe' }, { name: 'kube-proxy.exe', commandLine: 'C:\\k\\kube-proxy.exe' }] });
    expect(classic).toMatchObject({ layout: 'sdn-start-ps1', components: { flanneld: 'process', 'kube-proxy': 'process', kubelet: 'service' } });
    expect(detectLayout({}).layout).toBe('unknown');
  });

  it('near miss: a kubeadm node that also runs kube-proxy as a service is the classic layout, not sig-windows-tools', () => {
    const r = detectLayout({
      services: svc('kubelet', 'kube-proxy', 'containerd'),
      files: [{ path: 'C:\\var\\lib\\kubelet\\config.yaml', exists: true, length: 1, lastWriteTime: null, offset: 0, truncated: false, encoding: 'utf8', text: '' }],
    });
    expect(r.layout).toBe('sdn-start-ps1');
  });
});
