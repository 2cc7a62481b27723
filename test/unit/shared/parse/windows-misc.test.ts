import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../shared/logic/facts';
import {
  parseBitLocker,
  parseChildItem,
  parseConnectivityJson,
  parseEventLog,
  parseEventXml,
  parseNetAdapter,
  parseProcesses,
  parseServiceConfigJson,
  parseTestNetConnection,
} from '../../../../shared/parse/windows-misc';
import { CTX, sampleText } from './samples';

describe('event logs', () => {
  it('Get-WinEvent row with a wrapped message', () => {
    const e = factsOf(parseEventLog(sampleText('netinfo/eventlog-hyperv-container-template-limit-12003.txt'), CTX).facts, 'windows-event')[0]!.data;
    expect(e).toMatchObject({ eventId: 12003, level: 'Warning', message: 'Cannot create a template for a Hyper-V Container, reached the maximum number of templates.' });
  });
  it('Get-EventLog rows carrying klog lines', () => {
    const f = factsOf(parseEventLog(sampleText('logs/kube-proxy-eventlog-policy-creation-failed-0x803b000d.txt'), CTX).facts, 'windows-event');
    expect(f).toHaveLength(5);
    expect(f[0]!.data).toMatchObject({ provider: 'kube-proxy', eventId: 0, level: 'Information' });
  });
  it('event XML cut inside UserData', () => {
    const e = factsOf(parseEventXml(sampleText('netinfo/winevent-hyperv-compute-2010-xml.txt'), CTX).facts, 'windows-event')[0]!.data;
    expect(e).toMatchObject({ provider: 'Microsoft-Windows-Hyper-V-Compute', eventId: 2010, level: 'Information' });
  });
});

describe('Get-ChildItem', () => {
  it('keeps link mode flags and lengths', () => {
    const f = factsOf(parseChildItem(sampleText('logs/flannel-hostprocess-pod-log-cni-conf-symlink-zero-length.txt'), CTX).facts, 'directory-listing');
    const mounts = f.find((d) => d.data.directory === 'C:\\hpc\\mounts\\kube-flannel')!.data.entries;
    expect(mounts.find((e) => e.name === 'cni-conf.json')).toEqual({ mode: '-a---l', lengthBytes: 0, name: 'cni-conf.json' });
  });
});

describe('Get-NetAdapter', () => {
  it('table', () => {
    const text = 'Name                      InterfaceDescription                    ifIndex Status       MacAddress             LinkSpeed\r\n----                      --------------------                    ------- ------       ----------             ---------\r\nvEthernet (Ethernet)      Hyper-V Virtual Ethernet Adapter #2          14 Up           00-15-5D-1B-02-0A        10 Gbps\r\nEthernet                  Microsoft Hyper-V Network Adapter             6 Up           00-15-5D-1B-02-0A        10 Gbps\r\n';
    const r = parseNetAdapter(text, CTX);
    expect(factsOf(r.facts, 'net-adapter-listing')[0]!.data.names).toEqual(['vEthernet (Ethernet)', 'Ethernet']);
    expect(factsOf(r.facts, 'net-adapter')[0]!.data.ifIndex).toBe(14);
  });
  it('the net-adapters probe envelope, with addresses', () => {
    const probe = { Adapters: [{ Name: 'vEthernet (Ethernet)', InterfaceDescription: 'Hyper-V Virtual Ethernet Adapter #2', ifIndex: 14, Status: 'Up', MacAddress: '00-15-5D-1B-02-0A' }], IPAddresses: [{ InterfaceAlias: 'vEthernet (Ethernet)', InterfaceIndex: 14, IPAddress: '10.20.30.11', PrefixLength: 8 }] };
    const a = factsOf(parseNetAdapter(JSON.stringify(probe), CTX).facts, 'net-adapter')[0]!.data;
    expect(a).toMatchObject({ name: 'vEthernet (Ethernet)', ipv4: ['10.20.30.11'] });
  });
});

describe('processes and service config', () => {
  it('Win32_Process JSON: parents resolved within the list, kubelet arguments kept', () => {
    const rows = [
      { ProcessId: 100, ParentProcessId: 4, Name: 'nssm.exe', CommandLine: 'C:\\k\\nssm.exe' },
      { ProcessId: 200, ParentProcessId: 100, Name: 'kubelet.exe', CommandLine: 'C:\\k\\kubelet.exe --windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS' },
    ];
    const r = parseProcesses(JSON.stringify(rows), CTX);
    expect(factsOf(r.facts, 'process').map((p) => [p.data.name, p.data.parentName])).toEqual([
      ['nssm.exe', null],
      ['kubelet.exe', 'nssm.exe'],
    ]);
    expect(factsOf(r.facts, 'component-args')[0]!.data.args).toContain('--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS');
  });
  it('Get-Process table', () => {
    const text = 'Handles  NPM(K)    PM(K)      WS(K)     CPU(s)     Id  SI ProcessName\n-------  ------    -----      -----     ------     --  -- -----------\n    312      21    60584      72064      12.34   4312   0 kubelet\n';
    expect(factsOf(parseProcesses(text, CTX).facts, 'process')[0]!.data).toMatchObject({ name: 'kubelet', pid: 4312 });
  });
  it('service-config probe: nssm AppParameters are the real arguments; WMI state and start mode', () => {
    const rows = [{ Name: 'kubelet', State: 'Start Pending', StartMode: 'Auto', PathName: 'C:\\k\\nssm.exe', Nssm: { Application: 'C:\\k\\kubelet.exe', AppParameters: '--hostname-override=win-1 --kube-reserved=memory=1Gi' } }];
    const r = parseServiceConfigJson(JSON.stringify(rows), CTX);
    expect(factsOf(r.facts, 'service')[0]!.data).toMatchObject({ status: 'StartPending', startType: 'Automatic' });
    expect(factsOf(r.facts, 'component-args')[0]!.data).toMatchObject({ component: 'kubelet', origin: 'nssm-app-parameters', args: ['C:\\k\\kubelet.exe', '--hostname-override=win-1', '--kube-reserved=memory=1Gi'] });
  });
});

describe('BitLocker and connectivity', () => {
  it('Get-BitLockerVolume table and JSON (enums as numbers)', () => {
    const t = 'VolumeType      Mount CapacityGB VolumeStatus           Encryption KeyProtector              AutoUnlock Protection\n                Point                                  Percentage                                      Enabled    Status\n';
    void t;
    const list = 'MountPoint           : C:\r\nVolumeStatus         : FullyDecrypted\r\nProtectionStatus     : Off\r\n';
    expect(factsOf(parseBitLocker(list, CTX).facts, 'bitlocker')[0]!.data).toMatchObject({ mountPoint: 'C:', protectionStatus: 'Off' });
    expect(factsOf(parseBitLocker('[{"MountPoint":"C:","VolumeStatus":1,"ProtectionStatus":1}]', CTX).facts, 'bitlocker')[0]!.data).toMatchObject({ protectionStatus: 'On', volumeStatus: 'FullyEncrypted' });
  });
  it('Test-NetConnection and the connectivity probe', () => {
    const tnc = 'ComputerName     : www.example.com\r\nRemoteAddress    : 93.184.216.34\r\nRemotePort       : 443\r\nInterfaceAlias   : vEthernet (Ethernet)\r\nTcpTestSucceeded : True\r\n';
    expect(factsOf(parseTestNetConnection(tnc, CTX).facts, 'connectivity')[0]!.data).toMatchObject({ scope: 'external', protocol: 'tcp', port: 443, ok: true });
    const probe = [{ target: '8.8.8.8', scope: 'external', protocol: 'icmp', port: null, ok: false }, { target: 'bogus', scope: 'nowhere', protocol: 'icmp', ok: false }];
    expect(factsOf(parseConnectivityJson(JSON.stringify(probe), CTX).facts, 'connectivity')).toHaveLength(1);
  });
});
