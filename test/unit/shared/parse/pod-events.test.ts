import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../shared/logic/facts';
import { parseEventListJson, parsePodEvents } from '../../../../shared/parse/pod-events';
import { CTX, sampleText } from './samples';

describe('pod events', () => {
  it('reads the describe table, counts and the node in From', () => {
    const f = factsOf(parsePodEvents(sampleText('logs/flannel-windows-pod-sandbox-network-host-not-found-after-reboot.txt'), CTX).facts, 'pod-event');
    expect(f.map((e) => [e.data.reason, e.data.count])).toEqual([
      ['Scheduled', 1],
      ['FailedCreatePodSandBox', 2459],
      ['SandboxChanged', 3001],
    ]);
    expect(f[1]!.node).toBe('kub2win01');
  });

  it('reads a header-less row with a continued message', () => {
    const f = factsOf(parsePodEvents(sampleText('logs/kubelet-event-pause-os-mismatch-hcsshim-createcomputesystem.txt'), CTX).facts, 'pod-event')[0]!;
    expect(f.data.reason).toBe('FailedCreatePodSandBox');
    expect(f.data.message).toMatch(/extra info/);
    expect(f.node).toBe('w1');
  });

  it('reads an EventList JSON', () => {
    const list = { kind: 'EventList', items: [{ type: 'Warning', reason: 'FailedCreatePodSandBox', message: 'network host not found', count: 3, source: { component: 'kubelet', host: 'win-1' } }] };
    const f = factsOf(parseEventListJson(JSON.stringify(list), CTX).facts, 'pod-event')[0]!;
    expect(f.node).toBe('win-1');
    expect(f.data.count).toBe(3);
  });

  it('empty and garbage: nothing', () => {
    expect(parsePodEvents('', CTX).facts).toEqual([]);
    expect(parseEventListJson('{', CTX).facts).toEqual([]);
  });
});
