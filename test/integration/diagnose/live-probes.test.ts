/**
 * Live diagnosis path without transports: the Windows node simulator's script handlers produce exactly what the
 * shipped probe scripts print (electron/sim/windows-node/script-handlers.ts), those raw outputs go through
 * `diagnoseNode` → the same parsers and rules. Every scenario's planted rules must be found; the healthy node
 * must show no error.
 */
import { describe, expect, it } from 'vitest';
import type { NodeModel } from '../../../shared/domain/node';
import { diagnoseNode, type NodeProbeRun, type RunNodeProbes } from '../../../electron/services/diagnose/diagnose-node';
import { WindowsNodeModel } from '../../../electron/sim/windows-node/node-model';
import { resolveScenario, SCENARIO_NAMES } from '../../../electron/sim/windows-node/scenario';
import { SCRIPT_HANDLERS } from '../../../electron/sim/windows-node/script-handlers';

/** Arguments the probes service is expected to send (component names, the layout's files and log folders). */
const PROBE_ARGS: Record<string, Record<string, unknown>> = {
  services: { names: ['kubelet', 'kube-proxy', 'kubeproxy', 'flanneld', 'containerd', 'docker', 'hns'] },
  'service-config': { names: ['kubelet', 'kube-proxy', 'kubeproxy', 'flanneld', 'containerd'] },
  processes: { names: ['kubelet', 'kube-proxy', 'flanneld', 'containerd'] },
  'hns-networks': {},
  'hns-endpoints': {},
  'hns-policies': {},
  'net-adapters': {},
  dns: { names: ['kubernetes.default.svc.cluster.local', 'kube-dns.kube-system.svc.cluster.local', 'kubernetes.default', 'kubernetes'] },
  os: {},
  files: { maxBytes: 1048576, paths: ['C:\\k\\cni\\config\\cni.conf', 'C:\\etc\\kube-flannel\\net-conf.json', 'C:\\run\\flannel\\subnet.env', 'C:\\k\\SourceVip.json', 'C:\\k\\SourceVipRequest.json', 'C:\\var\\lib\\kubelet\\config.yaml', 'C:\\Program Files\\containerd\\config.toml'] },
  runtime: {},
  logs: { maxBytesPerFile: 1048576, sinceEpochMs: 0, sources: [{ dir: 'C:\\k', filter: '*.log' }] },
};

function nodeObject(name: string, ip: string): NodeModel {
  return {
    name, os: 'windows', ready: true, windowsBuild: 17763, windowsRelease: 'Windows Server 2019', kubeletVersion: 'v1.29.2', containerRuntime: 'containerd://1.7.13', internalIP: ip, podCount: 2, health: 'healthy', reasons: [], syncedAt: null,
    uid: null, labels: { 'kubernetes.io/os': 'windows' }, osImage: 'Windows Server 2019 Datacenter', kernelVersion: '10.0.17763.5458', kubeProxyVersion: 'v1.29.2', architecture: 'amd64', providerID: null,
    podCIDR: null, conditions: [{ type: 'Ready', status: 'True' }], taints: [], addresses: [{ type: 'InternalIP', address: ip }], unschedulable: false, createdAt: null,
  };
}

/** A RunNodeProbes over the simulator model (what the probes service does over SSH/WinRM). */
function simulatedRunner(scenario: string): RunNodeProbes {
  return async (node, { signal, onProgress }) => {
    const sc = resolveScenario(scenario, { nodeName: node, nodeIp: '10.20.30.11' });
    const model = new WindowsNodeModel(sc.spec);
    const run: NodeProbeRun = { node, transport: 'simulated', results: [], nodeObject: nodeObject(node, '10.20.30.11') };
    const ids = Object.keys(PROBE_ARGS);
    for (const [i, id] of ids.entries()) {
      const out = await SCRIPT_HANDLERS[id]!({ model, args: PROBE_ARGS[id]!, signal, faults: {} });
      run.results.push({ probeId: id, ok: out.exitCode === 0, raw: out.exitCode === 0 ? out.stdout.toString() : null, error: out.exitCode === 0 ? null : (out.stderr ?? 'failed') });
      onProgress?.({ probeId: id, done: i + 1, total: ids.length });
    }
    return run;
  };
}

const PLANTING = SCENARIO_NAMES.filter((n) => resolveScenario(n, { nodeName: 'x', nodeIp: '10.20.30.11' }).plants.length > 0);

describe('diagnose NODE over simulated probe outputs', () => {
  it('the healthy node: every probe recognized, no errors', async () => {
    const r = await diagnoseNode('win-1', simulatedRunner('healthy'), { signal: new AbortController().signal });
    expect(r.inputs.map((i) => i.path)).toEqual(['cluster:nodes', ...Object.keys(PROBE_ARGS).map((id) => `probe:${id}`)]);
    expect(r.inputs.filter((i) => i.kind === 'unknown' || i.kind === 'unreadable')).toEqual([]);
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    for (const f of r.findings) expect(f.node).toBe('win-1');
  });

  it('has scenarios that plant problems', () => {
    expect(PLANTING.length).toBeGreaterThanOrEqual(10);
  });

  for (const name of PLANTING) {
    it(`${name}: finds what the scenario planted`, async () => {
      const plants = resolveScenario(name, { nodeName: 'win-1', nodeIp: '10.20.30.11' }).plants;
      const progress: number[] = [];
      const r = await diagnoseNode('win-1', simulatedRunner(name), { signal: new AbortController().signal, onProgress: (p) => progress.push(p.done) });
      const ids = r.findings.map((f) => f.ruleId);
      for (const p of plants) expect(ids, `${name} planted ${p}`).toContain(p);
      expect(progress[progress.length - 1]).toBe(Object.keys(PROBE_ARGS).length);
    });
  }

  it('a failed probe is listed as unreadable, the others still count', async () => {
    const base = simulatedRunner('kube-proxy-stopped');
    const r = await diagnoseNode('win-1', async (n, o) => {
      const run = await base(n, o);
      run.results = run.results.map((x) => (x.probeId === 'dns' ? { ...x, ok: false, raw: null, error: 'TIMEOUT' } : x));
      return run;
    }, { signal: new AbortController().signal });
    expect(r.inputs.find((i) => i.path === 'probe:dns')!.kind).toBe('unreadable');
    expect(r.findings.map((f) => f.ruleId)).toContain('service-not-running');
  });

  it('refuses a bad node name before any probe runs', async () => {
    await expect(diagnoseNode('bad name;rm', simulatedRunner('healthy'), { signal: new AbortController().signal })).rejects.toMatchObject({ code: 'VALIDATION' });
  });
});
