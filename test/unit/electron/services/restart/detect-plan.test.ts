import { describe, expect, it } from 'vitest';
import { detectComponent, type NodeFacts } from '../../../../../electron/services/restart/detect';
import { buildPlan, hashPlan } from '../../../../../electron/services/restart/plan';
import type { HostService, KubePod } from '../../../../../electron/services/restart/ports';
import { DEFAULT_RESTART_TUNABLES } from '../../../../../electron/services/restart/tunables';

function svc(name: string, extra: Partial<HostService> = {}): HostService {
  return {
    name,
    displayName: name,
    status: 'Running',
    startType: 'Automatic',
    dependsOn: [],
    pathName: `C:\\k\\${name}.exe`,
    nssm: null,
    pid: 1000 + name.length,
    ...extra,
  };
}

function nssm(name: string, app: string, params: string, extra: Partial<HostService> = {}): HostService {
  return svc(name, { pathName: 'C:\\k\\nssm.exe', nssm: { application: app, appParameters: params, appEnvironmentExtra: [] }, ...extra });
}

function pod(name: string, extra: Partial<KubePod> = {}): KubePod {
  return {
    namespace: 'kube-system',
    name,
    uid: `uid-${name}`,
    phase: 'Running',
    ready: true,
    ownerKind: 'DaemonSet',
    ownerName: name.replace(/-[a-z0-9]{5}$/, ''),
    hostProcess: true,
    hostNetwork: true,
    containers: ['kube-proxy'],
    mirror: false,
    deleting: false,
    ...extra,
  };
}

function facts(partial: Partial<NodeFacts>): NodeFacts {
  return {
    node: 'win-1',
    at: 1_700_000_000_000,
    services: [],
    processes: [],
    pods: [],
    kubeNode: { ready: true, readyReason: 'KubeletReady', unschedulable: false, podCIDR: '10.244.3.0/24' },
    networks: [
      { name: 'External', type: 'overlay', managementIp: '127.0.10.11' },
      { name: 'flannel.4096', type: 'Overlay', managementIp: '127.0.10.11' },
    ],
    loadBalancerCount: 3,
    files: null,
    findings: null,
    errors: [],
    ...partial,
  };
}

const KUBEADM_SERVICES = [
  svc('containerd'),
  nssm('kubelet', 'C:\\k\\kubelet.exe', '--hostname-override=win-1 --v=2', { dependsOn: ['containerd'] }),
  svc('hns', { pathName: 'C:\\Windows\\system32\\svchost.exe -k NetSvcs -p', startType: 'Manual' }),
];

describe('detect: how a component runs on this node', () => {
  it('a plain Windows service under its AKS name (kubeproxy)', () => {
    const d = detectComponent('kube-proxy', facts({ services: [svc('kubelet'), svc('kubeproxy', { dependsOn: ['kubelet'] })] }));
    expect(d.method).toBe('service');
    expect(d.realName).toBe('kubeproxy');
    expect(d.refusal).toBeNull();
    expect(d.layout).toMatch(/Windows service "kubeproxy"/);
  });

  it('never echoes service arguments (they can hold credentials) into the plan', () => {
    const canary = 'windeck-canary-7f3a9c';
    const services = [
      svc('kubelet', { pathName: `c:\\k\\kubelet.exe --v=2 --token=${canary} --kubeconfig=c:\\k\\config` }),
      nssm('kube-proxy', 'C:\\k\\kube-proxy.exe', `--token=${canary}`, { dependsOn: ['kubelet'] }),
    ];
    for (const c of ['kubelet', 'kube-proxy'] as const) {
      const p = plan(c, facts({ services }));
      expect(JSON.stringify(p)).not.toContain(canary);
    }
    expect(detectComponent('kubelet', facts({ services })).layout).toMatch(/\(c:\\k\\kubelet\.exe with 3 argument\(s\)\)/);
  });

  it('TKG capitalization (Kubelet) is the same service', () => {
    const d = detectComponent('kubelet', facts({ services: [svc('Kubelet')] }));
    expect(d.method).toBe('service');
    expect(d.realName).toBe('Kubelet');
  });

  it('an nssm service, with its AppParameters counted but not echoed', () => {
    const d = detectComponent('kubelet', facts({ services: KUBEADM_SERVICES }));
    expect(d.method).toBe('nssm-service');
    expect(d.layout).toMatch(/nssm service "kubelet" running C:\\k\\kubelet\.exe \(2 arguments/);
    expect(d.layout).not.toMatch(/hostname-override/);
  });

  it('a HostProcess DaemonSet pod (kubeadm + sig-windows-tools)', () => {
    const p = pod('kube-proxy-windows-x7k2p');
    const processes = [
      { pid: 4300, parentPid: 4, name: 'containerd-shim-runhcs-v1.exe', commandLine: '' },
      { pid: 4400, parentPid: 4300, name: 'kube-proxy.exe', commandLine: 'kube-proxy.exe --v=2' },
    ];
    const d = detectComponent('kube-proxy', facts({ services: KUBEADM_SERVICES, pods: [p], processes }));
    expect(d.method).toBe('daemonset-pod');
    expect(d.realName).toBe('kube-system/kube-proxy-windows-x7k2p');
    expect(d.layout).toMatch(/HostProcess pod kube-system\/kube-proxy-windows-x7k2p of DaemonSet kube-proxy-windows/);
  });

  it('a bare process wins over a DaemonSet pod that does not run it', () => {
    const p = pod('kube-flannel-ds-windows-amd64-q2w3e', { namespace: 'kube-flannel', containers: ['kube-flannel'] });
    const d = detectComponent(
      'flanneld',
      facts({ services: KUBEADM_SERVICES, pods: [p], processes: [{ pid: 2200, parentPid: 4, name: 'flanneld.exe', commandLine: 'flanneld.exe' }] }),
    );
    expect(d.method).toBe('bare-process');
    expect(d.layout).toMatch(/kube-flannel-ds-windows-amd64-q2w3e bound to this node does not run it/);
  });

  it('a bare process from start.ps1 is explained and refused', () => {
    const d = detectComponent(
      'flanneld',
      facts({
        services: KUBEADM_SERVICES,
        processes: [
          { pid: 2200, parentPid: 2100, name: 'flanneld.exe', commandLine: 'C:\\flannel\\flanneld.exe --kube-subnet-mgr=1' },
          { pid: 2100, parentPid: 4, name: 'powershell.exe', commandLine: 'powershell -File C:\\k\\start.ps1' },
        ],
      }),
    );
    expect(d.method).toBe('bare-process');
    expect(d.refusal).toMatch(/bare process \(flanneld\.exe\)/);
    expect(d.refusal).toMatch(/will not restart it/);
  });

  it('a child of RKE2 is supervised, not restarted on its own', () => {
    const d = detectComponent(
      'kubelet',
      facts({
        services: [svc('rke2')],
        processes: [
          { pid: 900, parentPid: 4, name: 'rke2.exe', commandLine: 'rke2.exe agent' },
          { pid: 950, parentPid: 900, name: 'kubelet.exe', commandLine: 'kubelet.exe --v=2' },
        ],
      }),
    );
    expect(d.method).toBe('supervised');
    expect(d.supervisor).toBe('rke2');
    expect(d.refusal).toMatch(/RKE2/);
  });

  it('a HostProcess container whose pod cannot be seen is refused with the reason', () => {
    const d = detectComponent(
      'kube-proxy',
      facts({
        pods: null,
        processes: [
          { pid: 4300, parentPid: 4, name: 'containerd-shim-runhcs-v1.exe', commandLine: '' },
          { pid: 4400, parentPid: 4300, name: 'kube-proxy.exe', commandLine: '' },
        ],
      }),
    );
    expect(d.method).toBe('daemonset-pod');
    expect(d.refusal).toMatch(/cluster could not be reached/);
  });

  it('nothing at all: absent', () => {
    const d = detectComponent('flanneld', facts({ services: KUBEADM_SERVICES }));
    expect(d.method).toBe('absent');
    expect(d.refusal).toMatch(/does not run on win-1/);
  });
});

const versions = { restartService: 1, hnsNetworks: 1 };
const now = 1_700_000_000_000;

function plan(component: Parameters<typeof buildPlan>[0]['component'], f: NodeFacts, options = { cordon: false, drain: false }) {
  return buildPlan({ clusterId: null, node: 'win-1', component, options, facts: f, versions, tunables: DEFAULT_RESTART_TUNABLES, transport: 'ssh', now });
}

const HEALTHY = [
  svc('containerd'),
  nssm('kubelet', 'C:\\k\\kubelet.exe', '--v=2', { dependsOn: ['containerd'] }),
  nssm('kube-proxy', 'C:\\k\\kube-proxy.exe', '--network-name=flannel.4096 --source-vip=10.244.3.2', { dependsOn: ['kubelet'] }),
  nssm('flanneld', 'C:\\flannel\\flanneld.exe', '--kube-subnet-mgr=1'),
  svc('hns', { startType: 'Manual' }),
];

describe('plan: steps, pre-checks and hash', () => {
  it('kubelet restarts with its dependent kube-proxy in one step, and the hash is stable', () => {
    const p = plan('kubelet', facts({ services: HEALTHY }));
    expect(p.canExecute).toBe(true);
    expect(p.steps.map((s) => [s.kind, s.target])).toEqual([['restart-service', 'kubelet']]);
    expect(p.steps[0]!.commands[0]!.sent).toBe('restart-service v1 {"name":"kubelet","timeoutSeconds":90}');
    expect(p.steps[0]!.commands[0]!.equivalent).toMatch(/Start-Service -Name 'kube-proxy'/);
    expect(p.disruption.services).toEqual(['kubelet', 'kube-proxy']);
    expect(p.planHash).toMatch(/^[0-9a-f]{64}$/);
    // Observations that change (time, LB count, pod list) do not change the hash.
    const again = plan(
      'kubelet',
      facts({ services: HEALTHY, at: now + 5000, loadBalancerCount: 7, pods: [pod('web-1', { ownerKind: 'ReplicaSet', ownerName: 'web' })] }),
    );
    expect(again.planHash).toBe(p.planHash);
  });

  it('flanneld on overlay: flanneld, wait for its network, then kube-proxy', () => {
    const p = plan('flanneld', facts({ services: HEALTHY }));
    expect(p.steps.map((s) => [s.kind, s.target])).toEqual([
      ['restart-service', 'flanneld'],
      ['wait-network', 'flannel.4096'],
      ['restart-service', 'kube-proxy'],
    ]);
  });

  it('hns: HNS, then flanneld and its network, then kube-proxy; recommends cordon', () => {
    const p = plan('hns', facts({ services: HEALTHY }));
    expect(p.steps.map((s) => s.target)).toEqual(['hns', 'flanneld', 'flannel.4096', 'kube-proxy']);
    expect(p.preChecks.find((c) => c.id === 'cordon')?.status).toBe('warning');
  });

  it('drain: cordon, evict the non-DaemonSet pods, restart, uncordon; evicted pods do not change the hash', () => {
    const pods = [
      pod('kube-proxy-windows-x7k2p'),
      pod('web-1', { namespace: 'default', ownerKind: 'ReplicaSet', ownerName: 'web-7d9f', hostProcess: false, hostNetwork: false }),
    ];
    const p = plan('containerd', facts({ services: HEALTHY, pods }), { cordon: false, drain: true });
    expect(p.steps.map((s) => s.kind)).toEqual(['cordon', 'drain', 'restart-service', 'uncordon']);
    expect(p.steps[1]!.commands.map((c) => c.sent)).toEqual(['POST /api/v1/namespaces/default/pods/web-1/eviction']);
    const later = plan(
      'containerd',
      facts({ services: HEALTHY, pods: [...pods, pod('web-2', { namespace: 'default', ownerKind: 'ReplicaSet', ownerName: 'web-7d9f' })] }),
      { cordon: false, drain: true },
    );
    expect(later.planHash).toBe(p.planHash);
  });

  it('the hash covers what is sent: another pod, another node or another method changes it', () => {
    const a = plan('kube-proxy', facts({ services: KUBEADM_SERVICES, pods: [pod('kube-proxy-windows-x7k2p')] }));
    const b = plan('kube-proxy', facts({ services: KUBEADM_SERVICES, pods: [pod('kube-proxy-windows-q9z8w')] }));
    expect(b.planHash).not.toBe(a.planHash);
    expect(hashPlan({ ...a, node: 'win-2' })).not.toBe(a.planHash);
    const c = plan(
      'kube-proxy',
      facts({ services: [...KUBEADM_SERVICES, svc('kube-proxy', { dependsOn: ['kubelet'] })], pods: [pod('kube-proxy-windows-x7k2p')] }),
    );
    expect(c.method).toBe('service');
    expect(c.planHash).not.toBe(a.planHash);
  });

  it('kube-proxy stopped: one restart step, the state and its dependency shown', () => {
    const stopped = HEALTHY.map((s) => (s.name === 'kube-proxy' ? { ...s, status: 'Stopped', pid: null } : s));
    const p = plan('kube-proxy', facts({ services: stopped, loadBalancerCount: 0 }));
    expect(p.canExecute).toBe(true);
    expect(p.preChecks.find((c) => c.id === 'state')?.title).toBe('kube-proxy is Stopped');
    expect(p.preChecks.find((c) => c.id === 'depends-on-kubelet')?.status).toBe('ok');
    expect(p.before.loadBalancerCount).toBe(0);
  });

  it('a DaemonSet kube-proxy plans a pod delete and a wait for its replacement', () => {
    const p = plan('kube-proxy', facts({ services: KUBEADM_SERVICES, pods: [pod('kube-proxy-windows-x7k2p')] }));
    expect(p.method).toBe('daemonset-pod');
    expect(p.steps[0]!.commands.map((c) => c.equivalent)).toEqual([
      'kubectl delete pod -n kube-system kube-proxy-windows-x7k2p --wait=false',
      expect.stringMatching(/^kubectl get pods -n kube-system --field-selector spec.nodeName=win-1 -w/),
    ]);
    expect(p.disruption.pods.find((x) => x.name === 'kube-proxy-windows-x7k2p')?.reason).toMatch(/replacement/);
  });

  it('a DaemonSet pod cannot be restarted without the cluster: refused with the reason', () => {
    const processes = [
      { pid: 4300, parentPid: 4, name: 'containerd-shim-runhcs-v1.exe', commandLine: '' },
      { pid: 4400, parentPid: 4300, name: 'kube-proxy.exe', commandLine: 'kube-proxy.exe --v=2' },
    ];
    const p = plan('kube-proxy', facts({ services: KUBEADM_SERVICES, pods: null, kubeNode: undefined, processes }));
    expect(p.method).toBe('daemonset-pod');
    expect(p.canExecute).toBe(false);
    expect(p.refusal).toMatch(/cluster could not be reached/);
    expect(p.preChecks.find((c) => c.id === 'node-ready')?.status).toBe('blocker');
  });

  it('a bare process plans nothing and says why', () => {
    const p = plan(
      'flanneld',
      facts({
        services: HEALTHY.filter((s) => s.name !== 'flanneld'),
        processes: [{ pid: 2200, parentPid: 4, name: 'flanneld.exe', commandLine: 'flanneld.exe' }],
      }),
    );
    expect(p.canExecute).toBe(false);
    expect(p.method).toBe('bare-process');
    expect(p.steps).toEqual([]);
    expect(p.refusal).toMatch(/bare process/);
  });

  it('a Disabled service is a blocker', () => {
    const p = plan('kube-proxy', facts({ services: HEALTHY.map((s) => (s.name === 'kube-proxy' ? { ...s, startType: 'Disabled', status: 'Stopped' } : s)) }));
    expect(p.canExecute).toBe(false);
    expect(p.refusal).toMatch(/does not change start types/);
  });

  it('stale SourceVip files are a warning with the exact cleanup', () => {
    const files = [
      { path: 'C:\\k\\SourceVip.json', exists: true, text: '{"cniVersion":"0.2.0","ip4":{"ip":"10.244.9.2/24"}}' },
      { path: 'C:\\k\\SourceVipRequest.json', exists: true, text: '{}' },
      { path: 'C:\\run\\flannel\\subnet.env', exists: true, text: 'FLANNEL_SUBNET=10.244.3.1/24\n' },
    ];
    const p = plan('kube-proxy', facts({ services: HEALTHY, files }));
    const c = p.preChecks.find((x) => x.id === 'sourcevip');
    expect(c?.status).toBe('warning');
    expect(c?.detail).toMatch(/Remove-Item C:\\k\\SourceVip\.json, C:\\k\\SourceVipRequest\.json/);
  });

  it('flanneld without NODE_NAME in its nssm environment is a warning with the fix', () => {
    const p = plan('flanneld', facts({ services: HEALTHY }));
    expect(p.preChecks.find((c) => c.id === 'flanneld-node-name')?.detail).toMatch(/nssm set flanneld AppEnvironmentExtra NODE_NAME=win-1/);
    const withName = HEALTHY.map((x) => (x.name === 'flanneld' ? { ...x, nssm: { ...x.nssm!, appEnvironmentExtra: ['NODE_NAME=win-1'] } } : x));
    expect(plan('flanneld', facts({ services: withName })).preChecks.find((c) => c.id === 'flanneld-node-name')).toBeUndefined();
  });

  it('kube-proxy on overlay without its network suggests flanneld', () => {
    const p = plan('kube-proxy', facts({ services: HEALTHY, networks: [{ name: 'External', type: 'overlay', managementIp: null }] }));
    expect(p.preChecks.find((c) => c.id === 'pod-network')?.detail).toMatch(/restart flanneld instead/);
  });

  it('another restart on the node is a blocker', () => {
    const p = buildPlan({
      clusterId: null,
      node: 'win-1',
      component: 'kubelet',
      options: { cordon: false, drain: false },
      facts: facts({ services: HEALTHY }),
      versions,
      tunables: DEFAULT_RESTART_TUNABLES,
      transport: 'ssh',
      now,
      busy: 'Another restart (op-x) is running on win-1.',
    });
    expect(p.canExecute).toBe(false);
    expect(p.refusal).toMatch(/Another restart/);
  });
});
