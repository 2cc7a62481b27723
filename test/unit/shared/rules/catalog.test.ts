/**
 * Every catalogue rule: one input that fires it and one near miss that must not. Inputs are real output formats
 * run through the same parsers the product uses (several texts = several files of one diagnosis).
 */
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../../shared/domain/finding';
import type { Fact } from '../../../../shared/logic/facts';
import { parseText } from '../../../../shared/parse/parse-text';
import { parseProbeOutput } from '../../../../shared/parse/probe-output';
import { CATALOG_RULE_IDS } from '../../../../shared/rules/catalog-rules';
import { evaluate } from '../../../../shared/rules/evaluate';

type Input = string | { text: string; source?: string; node?: string | null; probe?: string };

function diagnose(...inputs: Input[]): Finding[] {
  const facts: Fact[] = [];
  inputs.forEach((input, i) => {
    const o = typeof input === 'string' ? { text: input } : input;
    const ctx = { source: o.source ?? (o.probe ? `probe:${o.probe}` : `input-${i}.txt`), node: o.node ?? null };
    facts.push(...(o.probe ? parseProbeOutput(o.probe, o.text, ctx) : parseText(o.text, ctx)).facts);
  });
  return evaluate(facts);
}

const ids = (f: Finding[]) => f.map((x) => x.ruleId);
const b64 = (s: string) => Buffer.from(s).toString('base64');
const json = (v: unknown) => JSON.stringify(v, null, 2);

const systeminfo = (build: number, name = 'Microsoft Windows Server 2016 Datacenter') => `Host Name:                 WIN-1\r\nOS Name:                   ${name}\r\nOS Version:                10.0.${build} N/A Build ${build}\r\nOS Configuration:          Member Server\r\n`;
const scQuery = (name: string, state: string) => `SERVICE_NAME: ${name}\r\n        TYPE               : 10  WIN32_OWN_PROCESS\r\n        STATE              : ${state}\r\n                                (STOPPABLE, NOT_PAUSABLE, ACCEPTS_SHUTDOWN)\r\n`;
const scQc = (name: string, start: string, binary: string) => `[SC] QueryServiceConfig SUCCESS\r\n\r\nSERVICE_NAME: ${name}\r\n        TYPE               : 10  WIN32_OWN_PROCESS\r\n        START_TYPE         : ${start}\r\n        BINARY_PATH_NAME   : ${binary}\r\n`;
const hnsJson = (...nets: { Name: string; Type: string; ManagementIP?: string; NetworkAdapterName?: string }[]) => json(nets.map((n, i) => ({ ActivityId: `A${i}`, ID: `ID${i}`, Subnets: [], ...n })));
const netAdapters = (...names: string[]) =>
  `Name                      InterfaceDescription                    ifIndex Status       MacAddress             LinkSpeed\r\n----                      --------------------                    ------- ------       ----------             ---------\r\n${names.map((n, i) => `${n.padEnd(26)}Hyper-V Virtual Ethernet Adapter #${i + 1}`.padEnd(66) + `${String(10 + i).padStart(7)} Up           00-15-5D-1B-02-0${i}        10 Gbps`).join('\r\n')}\r\n`;
const nodesWide = (os: string, kernel: string, runtime: string, ip = '10.0.0.4', version = 'v1.29.2') =>
  `NAME    STATUS   ROLES    AGE   VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE                         KERNEL-VERSION     CONTAINER-RUNTIME\nwin-1   Ready    <none>   3d    ${version}   ${ip.padEnd(13)} <none>        ${os.padEnd(32)} ${kernel.padEnd(18)} ${runtime}\n`;
const filesProbe = (rows: { path: string; content?: string }[]) => ({ probe: 'files', text: json(rows.map((r) => ({ Path: r.path, Exists: r.content !== undefined, Length: r.content?.length ?? 0, Offset: 0, ContentBase64: r.content === undefined ? null : b64(r.content) }))) });
const vipFile = (ip: string) => ({ path: 'C:\\k\\SourceVip.json', content: `{"cniVersion":"0.2.0","ip4":{"ip":"${ip}","gateway":"10.244.1.1"},"dns":{}}` });
const cni = (exceptions: string[] | null, search = ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local']) =>
  json({ cniVersion: '0.2.0', name: 'cbr0', type: 'flannel', delegate: { type: 'win-bridge', dns: { Nameservers: ['10.96.0.10'], Search: search }, AdditionalArgs: [{ Name: 'EndpointPolicy', Value: { Type: 'OutBoundNAT', ...(exceptions ? { ExceptionList: exceptions } : {}) } }, { Name: 'EndpointPolicy', Value: { Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true } }] } });
const netConf = json({ Network: '10.244.0.0/16', Backend: { name: 'cbr0', type: 'host-gw' } });
const resolveErr = (name: string, msg = 'DNS name does not exist') => `Resolve-DnsName : ${name} : ${msg}\r\nAt line:1 char:1\r\n+ Resolve-DnsName ${name}\r\n`;
const resolveOk = (name: string, ip: string) => `Name                                           Type   TTL   Section    IPAddress\r\n----                                           ----   ---   -------    ---------\r\n${name.padEnd(47)}A      5     Answer     ${ip}\r\n`;
const conn = (rows: object[]) => ({ text: json(rows) });
const bitlocker = (mount: string, status: string) => `MountPoint           : ${mount}\r\nVolumeStatus         : ${status === 'Off' ? 'FullyDecrypted' : 'FullyEncrypted'}\r\nProtectionStatus     : ${status}\r\n`;

interface Case {
  fire: Input[];
  near: Input[];
  severity?: Finding['severity'];
}

const CASES: Record<string, Case> = {
  'windows-build-unsupported': { fire: [systeminfo(14393)], near: [systeminfo(17763, 'Microsoft Windows Server 2019 Datacenter')], severity: 'error' },
  'service-not-running': { fire: [scQuery('kube-proxy', '1  STOPPED')], near: [scQuery('kube-proxy', '4  RUNNING') + scQuery('CalicoNode', '1  STOPPED')] },
  'service-not-automatic': { fire: [scQc('kubelet', '3   DEMAND_START', 'C:\\k\\kubelet.exe')], near: [scQc('hns', '3   DEMAND_START', 'C:\\Windows\\system32\\svchost.exe -k NetSvcs')], severity: 'warning' },
  'component-not-a-service': {
    fire: [{ probe: 'processes', text: json([{ ProcessId: 900, ParentProcessId: 800, Name: 'kubelet.exe', CommandLine: 'C:\\k\\kubelet.exe --v=2' }]) }, { probe: 'services', text: json([{ Name: 'containerd', DisplayName: 'containerd', Status: 4, StartType: 2 }]) }],
    near: [{ probe: 'processes', text: json([{ ProcessId: 901, ParentProcessId: 800, Name: 'kube-proxy.exe', CommandLine: 'C:\\hpc\\kube-proxy\\kube-proxy.exe --hostname-override=win-1' }]) }, { probe: 'services', text: json([{ Name: 'containerd', DisplayName: 'containerd', Status: 4, StartType: 2 }]) }],
  },
  'kubelet-priority-class-low': { fire: [scQc('kubelet', '2   AUTO_START', 'C:\\k\\kubelet.exe --system-reserved=memory=2Gi')], near: [scQc('kubelet', '2   AUTO_START', 'C:\\k\\kubelet.exe --windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS --system-reserved=memory=2Gi')] },
  'kubelet-reserve-missing': { fire: [scQc('kubelet', '2   AUTO_START', 'C:\\k\\kubelet.exe --windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS')], near: [scQc('kubelet', '2   AUTO_START', 'C:\\k\\kubelet.exe --windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS --config=C:\\var\\lib\\kubelet\\config.yaml')] },
  'kube-proxy-hostname-override-missing': {
    fire: [{ probe: 'service-config', text: json([{ Name: 'kube-proxy', State: 'Running', StartMode: 'Auto', PathName: 'C:\\k\\nssm.exe', Nssm: { Application: 'C:\\k\\kube-proxy.exe', AppParameters: '--proxy-mode=kernelspace --v=4' } }]) }],
    near: [{ probe: 'service-config', text: json([{ Name: 'kube-proxy', State: 'Running', StartMode: 'Auto', PathName: 'C:\\k\\nssm.exe', Nssm: { Application: 'C:\\k\\kube-proxy.exe', AppParameters: '--proxy-mode=kernelspace --hostname-override=win-1' } }]) }],
  },
  'runtime-version-unsupported': { fire: [nodesWide('Windows Server 2019 Datacenter', '10.0.17763.1397', 'containerd://1.3.9')], near: [nodesWide('Windows Server 2019 Datacenter', '10.0.17763.1397', 'containerd://1.4.0') + nodesWide('Ubuntu 18.04.5 LTS', '5.4.0-1046-azure', 'docker://18.9.1').split('\n')[1]] },
  'hns-network-missing': { fire: [{ text: hnsJson({ Name: 'nat', Type: 'NAT' }) }, netConf], near: [{ text: hnsJson({ Name: 'nat', Type: 'NAT' }, { Name: 'cbr0', Type: 'L2Bridge' }) }, netConf] },
  'hns-state-inconsistent': {
    fire: ['VERBOSE: Invoke-HNSRequest Method[POST] Path[/networks] Data[{\n    "Name":  "cbr0",\n    "Type":  "L2Bridge"\n}]\nVERBOSE: Result : {"Error":"A network with this name already exists. ","ErrorCode":2151350288,"Success":false}\n', hnsJson({ Name: 'nat', Type: 'NAT' })],
    near: ['VERBOSE: Invoke-HNSRequest Method[POST] Path[/networks] Data[{\n    "Name":  "cbr0",\n    "Type":  "L2Bridge"\n}]\nVERBOSE: Result : {"Error":"A network with this name already exists. ","ErrorCode":2151350288,"Success":false}\n'],
  },
  'hns-management-ip-mismatch': {
    fire: [nodesWide('Windows Server 2022 Datacenter', '10.0.20348.2227', 'containerd://1.7.13', '10.0.0.4'), hnsJson({ Name: 'cbr0', Type: 'L2Bridge', ManagementIP: '192.168.1.5' })],
    near: [nodesWide('Windows Server 2022 Datacenter', '10.0.20348.2227', 'containerd://1.7.13', '10.0.0.4'), hnsJson({ Name: 'cbr0', Type: 'L2Bridge', ManagementIP: '10.0.0.4' })],
  },
  'hns-adapter-not-found': { fire: ['E0711 13:57:07.141605    4872 main.go:289] Error registering network: HNS failed with error : An adapter was not found. '], near: ['New-HnsNetwork : A parameter cannot be found that matches parameter name \'AdapterName\'.\r\n    + CategoryInfo          : InvalidArgument: (:) [New-HnsNetwork], ParameterBindingException\r\n'] },
  'hns-endpoint-creation-failed': { fire: ['E0402 14:16:04.344271    5968 proxier.go:997] Remote endpoint creation failed: HNS failed with error : The switch-port was not found.'], near: ['E0509 18:41:13.804062    3176 proxier.go:1034] Policy creation failed: hnsCall failed in Win32: The provided policy configuration is invalid or missing parameters. (0x803b000d)'] },
  'vethernet-adapter-missing': {
    fire: [hnsJson({ Name: 'cbr0', Type: 'L2Bridge', NetworkAdapterName: 'Ethernet' }), netAdapters('Ethernet', 'vEthernet (nat)')],
    near: [hnsJson({ Name: 'cbr0', Type: 'L2Bridge', NetworkAdapterName: 'Ethernet' }), netAdapters('Ethernet', 'vEthernet (Ethernet)')],
  },
  'vethernet-adapter-duplicate': { fire: [netAdapters('vEthernet (Ethernet)', 'vEthernet (Ethernet) 2')], near: [netAdapters('vEthernet (Ethernet)', 'vEthernet (nat)')], severity: 'warning' },
  'flannel-waiting-for-network': { fire: ['I0101 10:00:00.000000    3004 vxlan_network_windows.go:82] Waiting for the Network to be created'], near: ['I0101 10:00:00.000000    3004 vxlan_network_windows.go:120] Created HNSNetwork flannel.4096'] },
  'flannel-subnet-env-missing': { fire: [filesProbe([{ path: 'C:\\run\\flannel\\subnet.env' }])], near: [filesProbe([{ path: 'C:\\run\\flannel\\subnet.env', content: 'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.1.1/24\n' }])] },
  'sourcevip-invalid': { fire: [filesProbe([{ path: 'C:\\k\\SourceVip.json', content: '{"code":999,"msg":"no IP addresses available in range set"}' }])], near: [filesProbe([vipFile('10.244.1.2/24')])] },
  'sourcevip-stale': {
    fire: [filesProbe([vipFile('10.244.9.2/24'), { path: 'C:\\run\\flannel\\subnet.env', content: 'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.1.1/24\n' }])],
    near: [filesProbe([vipFile('10.244.1.2/24'), { path: 'C:\\run\\flannel\\subnet.env', content: 'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.1.1/24\n' }])],
  },
  'cni-exceptionlist-misconfigured': { fire: [cni([])], near: [cni(['10.244.0.0/16', '10.96.0.0/12', '10.0.0.0/24']), netConf] },
  'pause-image-os-mismatch': {
    fire: ['E0530 11:42:13.374889  204644 pod_workers.go:186] Error syncing pod: failed to "CreatePodSandbox" for "web" with CreatePodSandboxError: The operating system of the container does not match the operating system of the host. (0xc0370101)'],
    near: ['E0530 11:42:13.374889  204644 kuberuntime_manager.go:800] container start failed: Error response from daemon: The container operating system does not match the host operating system.'],
  },
  'port-forward-wincat-missing': {
    fire: ['E1121 13:11:30.699689   23148 portforward.go:424] "Unhandled Error" err="failed to execute port forward in sandbox: hcs::System::CreateProcess: wincat.exe 127.0.0.1 80 abc: The system cannot find the file specified.: unknown"'],
    near: ['E0524 07:17:58.290956    3416 portforward.go:331] an error occurred forwarding 51886 -> 80: unable to do port forwarding: socat not found.'],
  },
  'dns-cluster-lookup-failed': { fire: [resolveErr('kubernetes.default.svc.cluster.local')], near: [resolveErr('kubernetes.default') + resolveErr('www.example.com')] },
  'dns-partial-name-unsupported': { fire: [resolveErr('kubernetes.default') + resolveOk('kubernetes.default.svc.cluster.local', '10.96.0.1')], near: [resolveErr('kubernetes.default.svc.cluster.local')], severity: 'info' },
  'dns-suffix-list-incomplete': {
    fire: [{ text: json([{ ActivityId: 'A', Name: '0f1e2d3c4b5a69788796a5b4c3d2e1f0_cbr0', IPAddress: '10.244.1.5', MacAddress: '00-15-5D-00-00-01', DNSSuffix: 'default.svc.cluster.local', DNSServerList: '10.96.0.10' }]) }],
    near: ['Windows IP Configuration\r\n\r\n   Host Name . . . . . . . . . . . . : win-1\r\n   DNS Suffix Search List. . . . . . : corp.example\r\n\r\nEthernet adapter vEthernet (Ethernet):\r\n\r\n   DHCP Enabled. . . . . . . . . . . : Yes\r\n   IPv4 Address. . . . . . . . . . . : 10.0.0.4(Preferred)\r\n\r\nEthernet adapter Ethernet 2:\r\n\r\n   IPv4 Address. . . . . . . . . . . : 10.1.0.4(Preferred)\r\n'],
    severity: 'warning',
  },
  'icmp-external-unsupported': {
    fire: [conn([{ target: '8.8.8.8', scope: 'external', protocol: 'icmp', port: null, ok: false }, { target: 'www.example.com', scope: 'external', protocol: 'tcp', port: 443, ok: true }])],
    near: [conn([{ target: '8.8.8.8', scope: 'external', protocol: 'icmp', port: null, ok: false }, { target: 'www.example.com', scope: 'external', protocol: 'tcp', port: 443, ok: false }])],
    severity: 'info',
  },
  'nodeport-local-unsupported': {
    fire: [conn([{ target: '10.0.0.4', scope: 'nodeport-local', protocol: 'tcp', port: 30080, ok: false }, { target: '10.0.0.5', scope: 'nodeport-remote', protocol: 'tcp', port: 30080, ok: true }])],
    near: [conn([{ target: '10.0.0.4', scope: 'nodeport-local', protocol: 'tcp', port: 30080, ok: false }])],
    severity: 'info',
  },
  'secrets-plaintext-on-node': { fire: [bitlocker('C:', 'Off')], near: [bitlocker('C:', 'On') + '\r\n' + bitlocker('D:', 'Off')], severity: 'info' },
  'version-skew': { fire: ['Client Version: v1.30.2\nKustomize Version: v5.0.4\nServer Version: v1.27.3\n'], near: ['Client Version: v1.29.2\nServer Version: v1.28.6\n'], severity: 'warning' },
};

describe('catalogue coverage', () => {
  it('every registered rule has a firing case and a near miss here', () => {
    expect(Object.keys(CASES).sort()).toEqual([...CATALOG_RULE_IDS].sort());
  });
});

for (const [ruleId, c] of Object.entries(CASES)) {
  describe(ruleId, () => {
    it('fires on its evidence', () => {
      const findings = diagnose(...c.fire);
      const hit = findings.find((f) => f.ruleId === ruleId);
      expect(hit, JSON.stringify(ids(findings))).toBeDefined();
      expect(hit!.evidence.length).toBeGreaterThan(0);
      expect(hit!.remediation.steps.length).toBeGreaterThan(0);
      expect(hit!.remediation.links.length).toBeGreaterThan(0);
      if (c.severity) expect(hit!.severity).toBe(c.severity);
    });
    it('does not fire on a near miss', () => {
      expect(ids(diagnose(...c.near))).not.toContain(ruleId);
    });
  });
}

describe('severities and details', () => {
  it('windows-build-unsupported: a build newer than the table is a warning, a client SKU an error', () => {
    const newer = diagnose(systeminfo(26100, 'Microsoft Windows Server 2025 Datacenter'), 'Client Version: v1.30.0\nServer Version: v1.30.1\n').find((f) => f.ruleId === 'windows-build-unsupported');
    expect(newer?.severity).toBe('warning');
    expect(diagnose(systeminfo(19045, 'Microsoft Windows 10 Pro')).find((f) => f.ruleId === 'windows-build-unsupported')?.severity).toBe('error');
  });

  it('cni-exceptionlist-misconfigured: names the missing cluster CIDR and the over-broad range', () => {
    const missing = diagnose(cni(['10.96.0.0/12']), netConf).find((f) => f.ruleId === 'cni-exceptionlist-misconfigured')!;
    expect(missing.title).toMatch(/cluster CIDR 10\.244\.0\.0\/16 is missing/);
    const broad = diagnose(cni(['10.244.0.0/16', '10.96.0.0/12', '10.0.0.0/8'])).find((f) => f.ruleId === 'cni-exceptionlist-misconfigured')!;
    expect(broad.title).toMatch(/10\.0\.0\.0\/8 is over-broad/);
  });

  it('version-skew: kubelet newer than the API server', () => {
    const f = diagnose(nodesWide('Windows Server 2022 Datacenter', '10.0.20348.2227', 'containerd://1.7.13', '10.0.0.4', 'v1.30.1'), 'Client Version: v1.29.2\nServer Version: v1.29.2\n').filter((x) => x.ruleId === 'version-skew');
    expect(f.map((x) => x.title)).toEqual([expect.stringMatching(/kubelet v1\.30\.1 on win-1 is newer than the API server v1\.29\.2/)]);
    expect(f[0]!.node).toBe('win-1');
  });

  it('findings take the node from their evidence', () => {
    const f = diagnose({ text: scQuery('kubelet', '1  STOPPED'), node: 'win-7' }).find((x) => x.ruleId === 'service-not-running')!;
    expect(f.node).toBe('win-7');
  });
});
