import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../shared/logic/facts';
import { parseHnsdiag, parseHnsJson, parseHnsList, parseHnsNetworkTable, parseHnsRequestLog } from '../../../../shared/parse/hns';
import { CTX, sampleText } from './samples';

describe('hnsdiag list', () => {
  it('reads endpoint blocks with padded values', () => {
    const r = parseHnsdiag(sampleText('hns/hnsdiag-list-endpoints-win2004-flannel.txt'), CTX);
    const eps = factsOf(r.facts, 'hns-endpoint');
    expect(eps.map((e) => [e.data.name, e.data.ipAddress])).toEqual([
      ['Ethernet', '172.21.246.55'],
      ['df0a2aa4b779b5b4ab864330553bce7f7a87a45fc46771d402a5dd1f42c67447_flannel.4096', '10.112.6.40'],
      ['f3dd5012d2daba957c8f6fdb19c3cae1011799c238c3b57ae650fc345fb916ec_flannel.4096', '10.112.6.46'],
      ['1057facc9092f4d83f4de47177925647bd694f72283341c1d5e45f5b20b3f99d_flannel.4096', '10.112.6.47'],
    ]);
    // An endpoint listing says nothing about which networks exist.
    expect(factsOf(r.facts, 'hns-network-listing')).toEqual([]);
  });

  it('reads network blocks into a listing', () => {
    const r = parseHnsdiag('Network : 6f7e13a2-8ade-48ee-844e-ac0b0aff235d\n    Name             : cbr0\n    Type             : L2Bridge\n\nNetwork : 1f7e13a2-8ade-48ee-844e-ac0b0aff235d\n    Name             : nat\n    Type             : NAT\n', CTX);
    expect(factsOf(r.facts, 'hns-network-listing')[0]!.data.names).toEqual(['cbr0', 'nat']);
  });

  it('empty input: nothing', () => {
    expect(parseHnsdiag('', CTX).facts).toEqual([]);
  });
});

describe('Get-HnsNetwork / Get-HnsEndpoint list format', () => {
  it('reads a network with wrapped continuation lines', () => {
    const r = parseHnsList(sampleText('hns/get-hnsnetwork-list-external-overlay-kubecluster.txt'), CTX);
    const n = factsOf(r.facts, 'hns-network')[0]!.data;
    expect(n).toMatchObject({ name: 'External', type: 'overlay', managementIP: '10.0.0.6', adapterName: 'Ethernet 2' });
    expect(n.subnets).toEqual([{ addressPrefix: '192.168.255.0/30', gatewayAddress: '192.168.255.1' }]);
    expect(factsOf(r.facts, 'hns-network-listing')[0]!.data).toMatchObject({ names: ['External'], truncated: false });
  });

  it('reads continuation lines pasted without indent', () => {
    const r = parseHnsList(sampleText('hns/get-hnsnetwork-list-calico-overlay-fixed-mgmt-ip.txt'), CTX);
    const n = factsOf(r.facts, 'hns-network')[0]!.data;
    expect(n).toMatchObject({ name: 'Calico', type: 'Overlay', managementIP: '10.20.30.11' });
    expect(n.policyTypes).toEqual(['HostRoute', 'RemoteSubnetRoute']);
    expect(n.subnets[0]!.addressPrefix).toBe('100.244.206.64/26');
  });

  it('marks a cut-off listing as truncated', () => {
    const r = parseHnsList(sampleText('hns/get-hnsnetwork-list-flannel.4096-containerd-interfaceconstraint.txt'), CTX);
    expect(factsOf(r.facts, 'hns-network')[0]!.data.name).toBe('flannel.4096');
    expect(factsOf(r.facts, 'hns-network-listing')[0]!.data.truncated).toBe(true);
  });

  it('reads endpoints with a comma-separated DNSSuffix, and endpoints without one', () => {
    const ovn = factsOf(parseHnsList(sampleText('hns/get-hnsendpoint-list-ovn-dnssuffix-8888.txt'), CTX).facts, 'hns-endpoint')[0]!.data;
    expect(ovn.dnsSuffix).toEqual(['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'localdomain']);
    expect(ovn.dnsServerList).toEqual(['8.8.8.8']);
    const agent = factsOf(parseHnsList(sampleText('hns/get-hnsendpoint-list-nsx-agent0.txt'), CTX).facts, 'hns-endpoint')[0]!.data;
    expect(agent).toMatchObject({ name: 'agent0', ipAddress: '169.254.1.0', dnsSuffix: null });
  });

  it('empty input: nothing', () => {
    expect(parseHnsList('', CTX).facts).toEqual([]);
  });
});

describe('HNS JSON', () => {
  it('repairs author elisions and trailing commas (collectlogs endpoint.txt excerpt)', () => {
    const r = parseHnsJson(sampleText('hns/hns-endpoint-json-excerpt-calico-collectlogs.txt'), CTX);
    const e = factsOf(r.facts, 'hns-endpoint')[0]!;
    expect(e.data.dnsSuffix).toEqual(['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local']);
    expect(e.line).toBe(5);
    expect(r.warnings.join()).toMatch(/repaired/);
  });

  it('re-joins console-wrapped, cut JSON and recovers the network name', () => {
    const r = parseHnsJson(sampleText('hns/hns-networks-raw-json-transparent-vmxnet3-wrapped.txt'), CTX);
    const nets = factsOf(r.facts, 'hns-network');
    expect(nets.map((n) => [n.data.name, n.data.type])).toEqual([['vmxnet3 Ethernet Adapter - Virtual Switch', 'Transparent']]);
    expect(factsOf(r.facts, 'hns-network-listing')[0]!.data.truncated).toBe(true);
  });

  it('reads Get-HnsNetwork | ConvertTo-Json, the HNS envelope, and a single object', () => {
    const one = { ActivityId: 'A', Name: 'cbr0', Type: 'L2Bridge', ManagementIP: '10.0.0.4', Subnets: [{ AddressPrefix: '10.244.1.0/24', GatewayAddress: '10.244.1.1' }] };
    expect(factsOf(parseHnsJson(JSON.stringify([one], null, 4), CTX).facts, 'hns-network-listing')[0]!.data).toMatchObject({ names: ['cbr0'], truncated: false });
    expect(factsOf(parseHnsJson(JSON.stringify({ Output: [one], Success: true }), CTX).facts, 'hns-network')[0]!.data.managementIP).toBe('10.0.0.4');
    expect(factsOf(parseHnsJson(JSON.stringify(one), CTX).facts, 'hns-network')[0]!.data.subnets[0]!.addressPrefix).toBe('10.244.1.0/24');
  });

  it('empty input: no facts, no throw', () => {
    expect(parseHnsJson('', CTX).facts).toEqual([]);
  });
});

describe('collectlogs network.txt table', () => {
  it('reads Name/Type/Id/AddressPrefix rows as a listing', () => {
    const r = parseHnsNetworkTable('Name Type     Id                                   AddressPrefix\r\n---- ----     --                                   -------------\r\ncbr0 L2Bridge 6F7E13A2-8ADE-48EE-844E-AC0B0AFF235D {10.244.1.0/24}\r\n', CTX);
    expect(factsOf(r.facts, 'hns-network-listing')[0]!.data.names).toEqual(['cbr0']);
  });
});

describe('HNS request log', () => {
  it('pairs the POST body with its result', () => {
    const r = parseHnsRequestLog(sampleText('logs/new-hnsnetwork-external-overlay-adapter-not-found-vmware.txt'), CTX);
    const req = factsOf(r.facts, 'hns-request')[0]!;
    expect(req.data).toMatchObject({ method: 'POST', path: '/networks', name: 'External', type: 'Overlay', success: false, errorCode: 2151350278 });
    expect(req.data.error).toMatch(/An adapter was not found/);
    expect(req.line).toBe(20);
  });

  it('reads a request without a result (cut before it) and the K2s HcnCreateNetwork line', () => {
    const wg = factsOf(parseHnsRequestLog(sampleText('logs/new-hnsnetwork-overlay-on-wireguard-wg0-adapter-not-found.txt'), CTX).facts, 'hns-request')[0]!.data;
    expect(wg).toMatchObject({ name: 'External', adapterName: 'wg0', success: null, error: null });
    const k2s = factsOf(parseHnsRequestLog(sampleText('logs/k2s-l2bridge-create-already-exists-hns-restart-failed-ws2022.log'), CTX).facts, 'hns-request')[0]!.data;
    expect(k2s).toMatchObject({ method: 'HcnCreateNetwork', errorCode: 2151350288, success: false });
  });
});
