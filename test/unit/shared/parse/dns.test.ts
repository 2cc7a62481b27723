import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../shared/logic/facts';
import { parseDnsProbeJson, parseNslookup, parseResolveDnsName } from '../../../../shared/parse/dns';
import { CTX, sampleText } from './samples';

const look = (r: { facts: import('../../../../shared/logic/facts').Fact[] }) => factsOf(r.facts, 'dns-lookup').map((f) => [f.data.query, f.data.outcome, f.data.addresses]);

describe('nslookup', () => {
  it('timeout with the command echo (padded console lines)', () => {
    expect(look(parseNslookup(sampleText('dns/nslookup-timeout-windows-pod-l2bridge-kops.txt'), CTX))).toEqual([['sample.test.aws', 'timeout', []]]);
  });
  it('timeout with the command echo at the end of a console-padded line', () => {
    expect(look(parseNslookup(sampleText('dns/nslookup-timeout-windows-pod-rancher-kubedns.txt'), CTX))).toEqual([['google.com', 'timeout', []]]);
  });
  it('timeout without any command echo', () => {
    expect(look(parseNslookup('DNS request timed out.\n    timeout was 2 seconds.\nServer:  UnKnown\nAddress:  10.96.0.10\n', CTX))).toEqual([['(not shown)', 'timeout', []]]);
  });
  it('an answer and an NXDOMAIN', () => {
    const ok = 'PS C:\\> nslookup kubernetes.default.svc.cluster.local\nServer:  kube-dns.kube-system.svc.cluster.local\nAddress:  10.96.0.10\n\nName:    kubernetes.default.svc.cluster.local\nAddress:  10.96.0.1\n';
    expect(look(parseNslookup(ok, CTX))).toEqual([['kubernetes.default.svc.cluster.local', 'ok', ['10.96.0.1']]]);
    const nx = 'PS C:\\> nslookup kubernetes.default\nServer:  UnKnown\nAddress:  10.96.0.10\n\n*** UnKnown can\'t find kubernetes.default: Non-existent domain\n';
    expect(look(parseNslookup(nx, CTX))).toEqual([['kubernetes.default', 'nxdomain', []]]);
  });
  it('empty: nothing', () => {
    expect(parseNslookup('', CTX).facts).toEqual([]);
  });
});

describe('Resolve-DnsName and the dns probe', () => {
  it('reads the answer table and error records', () => {
    const text = 'Name                                           Type   TTL   Section    IPAddress\n----                                           ----   ---   -------    ---------\nkubernetes.default.svc.cluster.local           A      5     Answer     10.96.0.1\n\nResolve-DnsName : kubernetes.default : DNS name does not exist\nAt line:1 char:1\n';
    expect(look(parseResolveDnsName(text, CTX))).toEqual([
      ['kubernetes.default', 'nxdomain', []],
      ['kubernetes.default.svc.cluster.local', 'ok', ['10.96.0.1']],
    ]);
  });
  it('reads the probe envelope, a single answer as object', () => {
    const probe = { SuffixSearchList: ['cluster.local'], Results: [{ Query: 'kubernetes.default.svc.cluster.local', Succeeded: true, Answers: { Name: 'x', Type: 1, IPAddress: '10.96.0.1' }, Error: null }, { Query: 'kube-dns.kube-system.svc.cluster.local', Succeeded: false, Answers: [], Error: 'kube-dns.kube-system.svc.cluster.local : This operation returned because the timeout period expired' }] };
    expect(look(parseDnsProbeJson(JSON.stringify(probe), CTX))).toEqual([
      ['kubernetes.default.svc.cluster.local', 'ok', ['10.96.0.1']],
      ['kube-dns.kube-system.svc.cluster.local', 'timeout', []],
    ]);
  });
});
