import { describe, expect, it } from 'vitest';
import {
  RESTART_COMPONENTS,
  canonicalPlanText,
  classifyOutcome,
  componentOfProcessName,
  componentOfServiceName,
  componentRefusal,
  daemonSetPodMatches,
  dependencyOrder,
  ipInCidr,
  isExecutableMethod,
  networkModeOf,
  nextStepsFor,
  parseRestartComponent,
  podsDisrupted,
  processNamesToQuery,
  refusalFor,
  restartSequence,
  serviceDependents,
  serviceNamesToQuery,
  serviceRestartCommands,
  sourceVipVerdict,
  supervisorOf,
  type RestartComponent,
} from '../../../../shared/logic/restart-plan';

describe('allowed components', () => {
  it('accepts exactly kubelet, kube-proxy, flanneld, containerd and hns (case-insensitive)', () => {
    expect(RESTART_COMPONENTS).toEqual(['kubelet', 'kube-proxy', 'flanneld', 'containerd', 'hns']);
    for (const c of RESTART_COMPONENTS) expect(parseRestartComponent(c.toUpperCase())).toBe(c);
    for (const bad of ['docker', 'vmcompute', 'sshd', 'WinRM', 'kube-proxy; rm', '', 'kubelet ', 'rke2']) {
      expect(parseRestartComponent(bad === 'kubelet ' ? 'kubelet x' : bad)).toBeNull();
    }
  });

  it('refuses the AKS spelling as a component name but says which component it is', () => {
    expect(parseRestartComponent('kubeproxy')).toBeNull();
    expect(componentRefusal('kubeproxy')).toMatch(/`kube-proxy`/);
    expect(componentRefusal('flannel')).toMatch(/flanneld/);
    expect(componentRefusal('sshd')).toMatch(/only kubelet, kube-proxy, flanneld, containerd, hns/);
  });

  it('maps the real service and process names of each layout back to the component', () => {
    expect(componentOfServiceName('kubeproxy')).toBe('kube-proxy');
    expect(componentOfServiceName('Kubelet')).toBe('kubelet');
    expect(componentOfServiceName('Containerd')).toBe('containerd');
    expect(componentOfServiceName('rancher-wins')).toBeNull();
    expect(componentOfProcessName('kube-proxy.exe')).toBe('kube-proxy');
    expect(componentOfProcessName('FLANNELD')).toBe('flanneld');
    expect(componentOfProcessName('svchost.exe')).toBeNull();
    expect(supervisorOf('rke2.exe')?.service).toBe('rke2');
    expect(supervisorOf('wins.exe')?.service).toBe('rancher-wins');
    expect(serviceNamesToQuery()).toEqual(
      expect.arrayContaining(['kubelet', 'kube-proxy', 'kubeproxy', 'flanneld', 'containerd', 'hns', 'rke2', 'rancher-wins']),
    );
    expect(processNamesToQuery()).toEqual(expect.arrayContaining(['kubelet', 'kube-proxy', 'flanneld', 'containerd', 'rke2', 'wins']));
  });

  it('only kube-proxy and flannel run as DaemonSet pods', () => {
    expect(daemonSetPodMatches('kube-proxy', { ownerName: 'kube-proxy-windows', name: 'kube-proxy-windows-x7k2p', containers: ['kube-proxy'] })).toBe(true);
    expect(
      daemonSetPodMatches('flanneld', {
        ownerName: 'kube-flannel-ds-windows-amd64',
        name: 'kube-flannel-ds-windows-amd64-abcde',
        containers: ['kube-flannel'],
      }),
    ).toBe(true);
    expect(daemonSetPodMatches('flanneld', { ownerName: 'kube-proxy-windows', name: 'kube-proxy-windows-x7k2p', containers: ['kube-proxy'] })).toBe(false);
    expect(daemonSetPodMatches('kubelet', { ownerName: 'kubelet', name: 'kubelet-1', containers: ['kubelet'] })).toBe(false);
  });

  it('executes services, nssm services and DaemonSet pods only', () => {
    expect(isExecutableMethod('service')).toBe(true);
    expect(isExecutableMethod('nssm-service')).toBe(true);
    expect(isExecutableMethod('daemonset-pod')).toBe(true);
    expect(isExecutableMethod('bare-process')).toBe(false);
    expect(isExecutableMethod('supervised')).toBe(false);
    expect(isExecutableMethod('absent')).toBe(false);
  });
});

describe('dependency order', () => {
  const all = new Set<RestartComponent>(RESTART_COMPONENTS);

  it('sorts any subset so each component comes after what it starts after', () => {
    expect(dependencyOrder(['kube-proxy', 'kubelet', 'containerd'])).toEqual(['containerd', 'kubelet', 'kube-proxy']);
    expect(dependencyOrder(['kube-proxy', 'flanneld', 'hns'])).toEqual(['hns', 'flanneld', 'kube-proxy']);
    const everything = dependencyOrder([...RESTART_COMPONENTS].reverse());
    expect(everything.indexOf('hns')).toBeLessThan(everything.indexOf('flanneld'));
    expect(everything.indexOf('flanneld')).toBeLessThan(everything.indexOf('kube-proxy'));
    expect(everything.indexOf('containerd')).toBeLessThan(everything.indexOf('kubelet'));
    expect(everything.indexOf('kubelet')).toBeLessThan(everything.indexOf('kube-proxy'));
  });

  it('follows flanneld with kube-proxy on overlay only, and HNS with both', () => {
    expect(restartSequence('flanneld', { present: all, networkMode: 'overlay' })).toEqual(['flanneld', 'kube-proxy']);
    expect(restartSequence('flanneld', { present: all, networkMode: 'l2bridge' })).toEqual(['flanneld']);
    expect(restartSequence('hns', { present: all, networkMode: 'l2bridge' })).toEqual(['hns', 'flanneld', 'kube-proxy']);
    expect(restartSequence('hns', { present: new Set<RestartComponent>(['hns', 'kube-proxy']), networkMode: null })).toEqual(['hns', 'kube-proxy']);
    expect(restartSequence('kubelet', { present: all, networkMode: 'overlay' })).toEqual(['kubelet']);
    expect(restartSequence('kube-proxy', { present: all, networkMode: 'overlay' })).toEqual(['kube-proxy']);
  });

  it('finds service dependents transitively, case-insensitively', () => {
    const services = [
      { name: 'containerd', dependsOn: [] },
      { name: 'kubelet', dependsOn: ['Containerd'] },
      { name: 'kube-proxy', dependsOn: ['kubelet'] },
      { name: 'flanneld', dependsOn: [] },
    ];
    expect(serviceDependents('containerd', services)).toEqual(['kubelet', 'kube-proxy']);
    expect(serviceDependents('kubelet', services)).toEqual(['kube-proxy']);
    expect(serviceDependents('flanneld', services)).toEqual([]);
  });

  it('reads network modes as HNS prints them', () => {
    expect(networkModeOf('Overlay')).toBe('overlay');
    expect(networkModeOf('overlay')).toBe('overlay');
    expect(networkModeOf('L2Bridge')).toBe('l2bridge');
    expect(networkModeOf('ICS')).toBe('nat');
    expect(networkModeOf('Transparent')).toBe('transparent');
    expect(networkModeOf('weird')).toBe('other');
    expect(networkModeOf(null)).toBeNull();
  });
});

describe('disruption', () => {
  const pods = [
    { namespace: 'default', name: 'web-1', hostProcess: false, hostNetwork: false, ownerKind: 'ReplicaSet' },
    { namespace: 'kube-system', name: 'kube-proxy-windows-abcde', hostProcess: true, hostNetwork: true, ownerKind: 'DaemonSet' },
  ];
  it('names the pods each restart disrupts and why', () => {
    expect(podsDisrupted('kubelet', pods)).toEqual([]);
    expect(podsDisrupted('hns', pods).map((p) => p.name)).toEqual(['web-1']);
    expect(podsDisrupted('kube-proxy', pods)[0]?.reason).toMatch(/Service traffic/);
    expect(podsDisrupted('kube-proxy', pods, { namespace: 'kube-system', name: 'kube-proxy-windows-abcde' }).map((p) => [p.name, p.reason])).toEqual([
      ['web-1', expect.stringMatching(/Service traffic/)],
      ['kube-proxy-windows-abcde', expect.stringMatching(/DaemonSet starts a replacement/)],
    ]);
    expect(podsDisrupted('containerd', pods)).toHaveLength(2);
  });
});

describe('commands', () => {
  it('shows exactly what is sent and its PowerShell equivalent', () => {
    const [cmd] = serviceRestartCommands({ serviceName: 'kubelet', dependents: ['kube-proxy'], timeoutSeconds: 90, scriptVersion: 1 });
    expect(cmd).toEqual({
      via: 'node',
      sent: 'restart-service v1 {"name":"kubelet","timeoutSeconds":90}',
      equivalent:
        "Restart-Service -Name 'kubelet' -Force; (Get-Service -Name 'kubelet').WaitForStatus('Running', '00:01:30'); Start-Service -Name 'kube-proxy'",
      mutating: true,
    });
  });

  it('hashes what will be done, not when it was looked at', () => {
    const plan = {
      cluster: 'c1',
      node: 'win-1',
      component: 'kube-proxy' as const,
      method: 'nssm-service' as const,
      serviceName: 'kube-proxy',
      options: { cordon: false, drain: false },
      steps: [{ kind: 'restart-service', target: 'kube-proxy', commands: [{ sent: 'restart-service v1 {"name":"kube-proxy","timeoutSeconds":90}' }] }],
    };
    expect(canonicalPlanText(plan)).toBe(canonicalPlanText(structuredClone(plan)));
    expect(canonicalPlanText(plan)).not.toBe(canonicalPlanText({ ...plan, node: 'win-2' }));
    expect(canonicalPlanText(plan)).not.toBe(canonicalPlanText({ ...plan, options: { cordon: true, drain: false } }));
    expect(canonicalPlanText(plan)).not.toBe(canonicalPlanText({ ...plan, steps: [] }));
  });
});

describe('outcome', () => {
  it('cancelled wins, then the component not back, then anything else still wrong', () => {
    const passed = { id: 'service-running' as const, status: 'passed' as const, critical: true };
    const lbFailed = { id: 'load-balancers' as const, status: 'failed' as const, critical: false };
    const staysUpFailed = { id: 'service-stays-up' as const, status: 'failed' as const, critical: true };
    expect(classifyOutcome({ cancelled: true, primaryFailed: true, checks: [] })).toBe('cancelled');
    expect(classifyOutcome({ cancelled: false, primaryFailed: true, checks: [passed] })).toBe('failed');
    expect(classifyOutcome({ cancelled: false, primaryFailed: false, checks: [passed, staysUpFailed] })).toBe('failed');
    expect(classifyOutcome({ cancelled: false, primaryFailed: false, checks: [passed, lbFailed] })).toBe('partial');
    expect(classifyOutcome({ cancelled: false, primaryFailed: false, checks: [passed, { id: 'no-new-findings', status: 'skipped', critical: false }] })).toBe(
      'succeeded',
    );
  });

  it('says what to do next in words, naming the node and the real service', () => {
    const steps = nextStepsFor('service-running', { component: 'kube-proxy', serviceName: 'kubeproxy', node: 'aks-win-1' });
    expect(steps.join(' ')).toMatch(/C:\\k\\kubeproxy\.log/);
    expect(steps.join(' ')).toMatch(/windeck diagnose aks-win-1/);
    expect(nextStepsFor('hns-networks', { component: 'flanneld', serviceName: 'flanneld', node: 'w', networks: ['flannel.4096'] }).join(' ')).toMatch(
      /flannel\.4096/,
    );
  });

  it('explains why a bare process or a supervised child is not restarted', () => {
    const bare = refusalFor('bare-process', { component: 'flanneld', node: 'win-5', processName: 'flanneld.exe' });
    expect(bare).toMatch(/bare process/);
    expect(bare).toMatch(/will not restart it/);
    expect(bare).toMatch(/nssm install flanneld/);
    expect(refusalFor('supervised', { component: 'kubelet', node: 'rke2-w', supervisor: 'RKE2 "rke2"' })).toMatch(/restarts every component/);
  });
});

describe('SourceVip', () => {
  const sourceVip = (ip: string) =>
    `{\r\n    "cniVersion":  "0.2.0",\r\n    "ip4":  {\r\n                "ip":  "${ip}/24",\r\n                "gateway":  "10.244.3.1"\r\n            }\r\n}\r\n`;
  it('is ok inside the pod subnet, stale outside it, and says so', () => {
    expect(ipInCidr('10.244.3.2', '10.244.3.0/24')).toBe(true);
    expect(ipInCidr('10.244.9.2', '10.244.3.0/24')).toBe(false);
    expect(ipInCidr('x', '10.244.3.0/24')).toBeNull();
    expect(sourceVipVerdict({ sourceVipJson: sourceVip('10.244.3.2'), subnetEnv: null, podCidr: '10.244.3.0/24' }).status).toBe('ok');
    const stale = sourceVipVerdict({ sourceVipJson: '\uFEFF' + sourceVip('10.244.9.2'), subnetEnv: null, podCidr: '10.244.3.0/24' });
    expect(stale.status).toBe('stale');
    expect(stale.detail).toMatch(/10\.244\.9\.2.*10\.244\.3\.0\/24/);
  });

  it('falls back to FLANNEL_SUBNET, and never throws on odd content', () => {
    expect(
      sourceVipVerdict({
        sourceVipJson: sourceVip('10.244.7.2'),
        subnetEnv: 'FLANNEL_NETWORK=10.244.0.0/16\r\nFLANNEL_SUBNET=10.244.3.1/24\r\n',
        podCidr: null,
      }).status,
    ).toBe('stale');
    expect(sourceVipVerdict({ sourceVipJson: null, subnetEnv: null, podCidr: null }).status).toBe('absent');
    expect(sourceVipVerdict({ sourceVipJson: '{"code":999,"msg":"no IP addresses available in range set"}', subnetEnv: null, podCidr: null }).status).toBe(
      'invalid',
    );
    expect(sourceVipVerdict({ sourceVipJson: '{not json', subnetEnv: null, podCidr: null }).status).toBe('invalid');
    expect(sourceVipVerdict({ sourceVipJson: sourceVip('10.244.3.2'), subnetEnv: null, podCidr: null }).status).toBe('unknown');
  });
});
