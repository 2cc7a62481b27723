import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../shared/logic/facts';
import { parseIpconfig } from '../../../../shared/parse/ipconfig';
import { CTX, sampleText } from './samples';

const one = (text: string) => factsOf(parseIpconfig(text, CTX).facts, 'ipconfig')[0]!.data;

describe('ipconfig', () => {
  it('inside a container taken with docker exec: container view, suffix list', () => {
    const d = one(sampleText('dns/docker-version-and-container-ipconfig-localdomain-1803.txt'));
    expect(d.view).toBe('container');
    expect(d.viewReason).toMatch(/docker exec/);
    expect(d.suffixSearchList).toEqual(['localdomain']);
    expect(d.adapters[0]!.name).toBe('vEthernet (test_endpoint)');
  });

  it('a pod on flannel: multi-line suffix list, trailing spaces after (Preferred)', () => {
    const d = one(sampleText('netinfo/ipconfig-all-pod-flannel.4096-container-adapter.txt'));
    expect(d.view).toBe('container');
    expect(d.suffixSearchList).toEqual(['development.svc.cluster.local', 'svc.cluster.local', 'cluster.local']);
    expect(d.adapters[0]!.ipv4).toEqual(['10.244.11.7']);
    expect(d.adapters[0]!.gateways).toEqual(['10.244.11.1']);
  });

  it('a working node: host view (DHCP, vEthernet (Ethernet 2)), empty DNS Servers at the end of a cut paste', () => {
    const d = one(sampleText('netinfo/ipconfig-all-aks-engine-1803-working-node.txt'));
    expect(d.view).toBe('host');
    expect(d.hostName).toBe('13832k8s9001');
    expect(d.adapters.map((a) => a.name)).toEqual(['vEthernet (Ethernet 2)']);
    expect(d.adapters[0]!.dnsServers).toEqual([]);
  });

  it('plain ipconfig before join: host view, two adapters', () => {
    const d = one(sampleText('netinfo/ipconfig-azure-node-before-join-kubecluster.txt'));
    expect(d.all).toBe(false);
    expect(d.view).toBe('host');
    expect(d.adapters.map((a) => [a.name, a.ipv4[0]])).toEqual([
      ['Ethernet 2', '10.0.0.6'],
      ['vEthernet (nat)', '172.28.96.1'],
    ]);
  });

  it('per-adapter "Connection-specific DNS Suffix Search List" and the end of the block at the next prompt', () => {
    const d = one(sampleText('dns/ipconfig-all-containerd-nat-and-dnsclientglobalsetting.txt'));
    expect(d.view).toBe('container');
    expect(d.adapters[0]!.suffixSearchList).toEqual(['google.com']);
    expect(d.adapters[0]!.dnsServers).toEqual(['10.128.0.1']);
  });

  it('German labels', () => {
    const de = 'Windows-IP-Konfiguration\r\n\r\n   Hostname  . . . . . . . . . . . . : win-1\r\n   Suchliste für DNS-Suffixe . . . . : corp.example\r\n\r\nEthernet-Adapter Ethernet:\r\n\r\n   IPv4-Adresse  . . . . . . . . . . : 10.1.2.3(Bevorzugt)\r\n   Subnetzmaske  . . . . . . . . . . : 255.255.255.0\r\n   DHCP aktiviert. . . . . . . . . . : Ja\r\n';
    const d = one(de);
    expect(d.hostName).toBe('win-1');
    expect(d.suffixSearchList).toEqual(['corp.example']);
    expect(d.adapters[0]!.ipv4).toEqual(['10.1.2.3']);
    expect(d.view).toBe('host');
  });

  it('ipconfig /allcompartments: compartment 1 is the host, others are pods', () => {
    const text = 'Windows IP Configuration\r\n\r\n==========\r\nNetwork Information for Compartment 1 (ACTIVE)\r\n==========\r\n   Host Name . . . . . . . . . . . . : win-1\r\n\r\nEthernet adapter vEthernet (Ethernet):\r\n\r\n   IPv4 Address. . . . . . . . . . . : 10.20.30.11(Preferred)\r\n\r\n==========\r\nNetwork Information for Compartment 3\r\n==========\r\n   DNS Suffix Search List. . . . . . : default.svc.cluster.local\r\n\r\nEthernet adapter vEthernet (abc_cbr0):\r\n\r\n   IPv4 Address. . . . . . . . . . . : 10.244.1.5(Preferred)\r\n';
    const views = factsOf(parseIpconfig(text, CTX).facts, 'ipconfig').filter((f) => f.data.adapters.length).map((f) => [f.data.view, f.data.adapters[0]!.name]);
    expect(views).toEqual([
      ['host', 'vEthernet (Ethernet)'],
      ['container', 'vEthernet (abc_cbr0)'],
    ]);
  });

  it('cut-off and empty input', () => {
    const cut = one('Windows IP Configuration\n\n   Host Name . . . . . . . . . . . . : 4f97e7c0eeae\n   DNS Suffix Sea');
    expect(cut.hostName).toBe('4f97e7c0eeae');
    expect(parseIpconfig('', CTX).facts).toEqual([]);
  });
});
