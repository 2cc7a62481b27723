import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../shared/logic/facts';
import { parseProbeOutput } from '../../../../shared/parse/probe-output';

const P = (id: string) => ({ source: `probe:${id}`, node: 'win-1' });

describe('probe outputs', () => {
  it('an empty hns-networks answer is a complete, empty listing', () => {
    const r = parseProbeOutput('hns-networks', '[]\r\n', P('hns-networks'));
    expect(factsOf(r.facts, 'hns-network-listing')[0]!.data).toEqual({ names: [], truncated: false, format: 'hns-json' });
  });

  it('the services probe listing is complete (asked by name)', () => {
    const r = parseProbeOutput('services', '{"Name":"kubelet","DisplayName":"kubelet","Status":4,"StartType":2}', P('services'));
    expect(factsOf(r.facts, 'service-listing')[0]!.data.complete).toBe(true);
    expect(r.facts.every((f) => f.node === 'win-1')).toBe(true);
  });

  it('the files probe: base64 content parsed per path, missing files noted', () => {
    const rows = [
      { Path: 'C:\\run\\flannel\\subnet.env', Exists: false, Length: 0, ContentBase64: null },
      { Path: 'C:\\k\\SourceVip.json', Exists: true, Length: 60, ContentBase64: Buffer.from('{"cniVersion":"0.2.0","ip4":{"ip":"10.244.9.2/24"}}').toString('base64') },
    ];
    const r = parseProbeOutput('files', JSON.stringify(rows), P('files'));
    expect(r.kind).toBe('file-content-json');
    expect(factsOf(r.facts, 'node-file').map((f) => [f.data.role, f.data.exists])).toEqual([
      ['subnet-env', false],
      ['source-vip', true],
    ]);
    const vip = factsOf(r.facts, 'source-vip')[0]!;
    expect(vip.source).toBe('probe:files#C:\\k\\SourceVip.json');
    expect(vip.data.ip).toBe('10.244.9.2/24');
  });

  it('text output from a probe still goes through content classification', () => {
    const r = parseProbeOutput('logs', 'E0101 00:00:00.000000 1 cni.go:1] error while GETHNSNewtorkByName(cbr0): Network cbr0 not found', P('logs'));
    expect(factsOf(r.facts, 'log-signal')[0]!.data.signal).toBe('hns-network-not-found');
  });
});
