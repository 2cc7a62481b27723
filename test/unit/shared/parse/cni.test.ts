import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../shared/logic/facts';
import { parseCniConfigs } from '../../../../shared/parse/cni';
import { CTX, sampleText } from './samples';

describe('CNI configs and net-conf', () => {
  it('reads both "Generated ... Config [...]" wrappers of KubeCluster.ps1', () => {
    const r = parseCniConfigs(sampleText('cni-config/generated-cni-config-win-overlay-convertto-json.txt'), CTX);
    const c = factsOf(r.facts, 'cni-config')[0]!.data;
    expect(c).toMatchObject({ name: 'vxlan0', type: 'flannel', delegateType: 'win-overlay', dnsNameservers: ['10.96.0.10'], dnsSearch: ['svc.cluster.local'], searchLine: 11 });
    expect(c.outboundNat).toEqual([{ exceptionList: ['10.244.0.0/16', '10.96.0.0/12'] }]);
    expect(c.routes).toEqual([{ destinationPrefix: '10.96.0.0/12', needEncap: true }]);
    expect(factsOf(r.facts, 'flannel-net-conf')[0]!.data).toMatchObject({ network: '10.244.0.0/16', backendName: 'vxlan0', backendType: 'vxlan' });
  });

  it('reads a UTF-8 BOM + CRLF file exactly like its plain copy', () => {
    const bom = factsOf(parseCniConfigs(sampleText('encodings/cni-conf-utf8-bom-crlf.conf'), CTX).facts, 'cni-config')[0]!.data;
    const plain = factsOf(parseCniConfigs(sampleText('cni-config/sdn-flannel-l2bridge-cni.conf'), CTX).facts, 'cni-config')[0]!.data;
    expect(bom).toEqual(plain);
    expect(plain.outboundNat[0]!.exceptionList).toEqual(['10.244.0.0/16', '10.96.0.0/12', '10.127.130.0/24']);
  });

  it('reads win-bridge AdditionalArgs and a config without OutBoundNAT (nsx)', () => {
    const wb = factsOf(parseCniConfigs(sampleText('cni-config/win-bridge-l2bridge-dns-search-outboundnat.conf'), CTX).facts, 'cni-config')[0]!.data;
    expect(wb.dnsSearch).toEqual(['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local']);
    const nsx = factsOf(parseCniConfigs(sampleText('dns/ipconfig-all-pod-suffix-list-vs-cni-conf-nsx.txt'), CTX).facts, 'cni-config')[0]!.data;
    expect(nsx).toMatchObject({ name: 'nsx-cni', type: 'nsx.bat', outboundNat: [] });
  });

  it('reads a conflist with HNS v2 policies (Azure/containerd style)', () => {
    const conflist = { cniVersion: '0.3.0', name: 'flannel.4096', plugins: [{ type: 'flannel', capabilities: { dns: true }, delegate: { type: 'win-overlay', policies: [{ name: 'EndpointPolicy', value: { type: 'OutBoundNAT', settings: { exceptions: ['10.244.0.0/16', '10.96.0.0/12'] } } }, { name: 'EndpointPolicy', value: { type: 'SDNRoute', settings: { destinationPrefix: '10.96.0.0/12', needEncap: true } } }] } }] };
    const c = factsOf(parseCniConfigs(JSON.stringify(conflist, null, 2), CTX).facts, 'cni-config')[0]!.data;
    expect(c.type).toBe('conflist');
    expect(c.outboundNat).toEqual([{ exceptionList: ['10.244.0.0/16', '10.96.0.0/12'] }]);
    expect(c.routes).toEqual([{ destinationPrefix: '10.96.0.0/12', needEncap: true }]);
  });

  it('a cut-off config keeps what was there; empty gives nothing', () => {
    const cut = sampleText('cni-config/sdn-flannel-l2bridge-cni.conf').slice(0, 420);
    const c = factsOf(parseCniConfigs(cut, CTX).facts, 'cni-config')[0]!.data;
    expect(c.name).toBe('cbr0');
    expect(parseCniConfigs('', CTX).facts).toEqual([]);
  });
});
