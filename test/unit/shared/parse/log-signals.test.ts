import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../shared/logic/facts';
import { LogSignalScanner, scanLogSignals } from '../../../../shared/parse/log-signals';
import { CTX, sampleText } from './samples';

const signals = (text: string) => factsOf(scanLogSignals(text, CTX).facts, 'log-signal').map((f) => f.data.signal);

describe('log signatures', () => {
  it('joins a hard-wrapped klog entry before matching (sandbox context on line 2, mismatch on line 5)', () => {
    const f = factsOf(scanLogSignals(sampleText('logs/kubelet-log-pause-os-mismatch-0xc0370101.log'), CTX).facts, 'log-signal');
    expect(f.map((x) => x.data.signal)).toEqual(['pause-os-mismatch']);
    expect(f[0]!.line).toBe(5);
    expect(f[0]!.data.component).toBe('kubelet');
  });

  it('counts repeats in one fact', () => {
    const f = factsOf(scanLogSignals(sampleText('logs/kubelet-cni-flannel-vxlan0-subnet-env-missing-crashloop.log'), CTX).facts, 'log-signal');
    expect(f).toHaveLength(1);
    expect(f[0]!.data.count).toBe(3);
  });

  it('captures the network name and the node from an event row', () => {
    const f = factsOf(scanLogSignals(sampleText('logs/flannel-windows-pod-sandbox-network-host-not-found-after-reboot.txt'), CTX).facts, 'log-signal')[0]!;
    expect(f.data).toMatchObject({ signal: 'hns-network-not-found', captures: { network: 'host' } });
    expect(f.node).toBe('kub2win01');
  });

  it('tells near misses apart', () => {
    expect(signals('Endpoint information not available for service kube-system/metrics-server:. Not applying any policy')).toEqual([]);
    expect(signals('failed to find HNSEndpoint x_flannel.4096: Endpoint x_flannel.4096 not found')).toEqual(['hns-endpoint-failed']);
    expect(signals('unable to do port forwarding: socat not found.')).toEqual(['socat-missing']);
    expect(signals('hcsshim::System::Start abc: context deadline exceeded')).toEqual([]);
    expect(signals('the container operating system does not match the host operating system.')).toEqual(['container-os-mismatch']);
  });

  it('reads FLAG: lines into component arguments', () => {
    const text = ['I0101 00:00:00.000000    100 flags.go:64] FLAG: --kubeconfig="C:\\k\\config"', 'I0101 00:00:00.000001    100 flags.go:64] FLAG: --windows-priorityclass=""', 'I0101 00:00:00.000002    100 flags.go:64] FLAG: --system-reserved=""'].join('\n');
    const args = factsOf(scanLogSignals(text, CTX).facts, 'component-args')[0]!.data;
    expect(args.component).toBe('kubelet');
    expect(args.args).toEqual(['--kubeconfig=C:\\k\\config']);
  });

  it('streams: feeding lines one by one gives the same facts as a whole-text scan', () => {
    const text = sampleText('logs/port-forward-wincat-missing-containerd-aks.txt');
    const s = new LogSignalScanner(CTX, null);
    text.split(/\r?\n/).forEach((l, i) => s.pushLine(l, i + 1));
    expect(s.finish()).toEqual(scanLogSignals(text, CTX).facts);
  });

  it('keeps memory bounded on a flood of distinct matches', () => {
    const s = new LogSignalScanner(CTX, null);
    for (let i = 0; i < 5000; i++) s.pushLine(`E0101 00:00:00.000000 1 cni.go:1] error: Network net${i} not found`, i + 1);
    const f = factsOf(s.finish(), 'log-signal');
    expect(f.length).toBeLessThanOrEqual(20);
  });

  it('empty input: nothing', () => {
    expect(scanLogSignals('', CTX).facts).toEqual([]);
  });
});
