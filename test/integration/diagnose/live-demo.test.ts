import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../../shared/domain/finding';
import { TERMINAL_STATES, type OperationProgress } from '../../../shared/domain/operation';
import { runCli } from '../../../electron/cli/main';
import { startDemo, type RunningDemo } from '../../../electron/services/kube/demo';
import { scenarioFile } from '../../../electron/sim/windows-node/scenario';
import { testServices } from '../../helpers/services';
import { tempDir, waitFor } from '../../helpers/temp-dir';

/**
 * Issue 5 "done when": on the demo cluster, `windeck diagnose <node>` finds the problems each scenario planted
 * (the scenario file's `plants`), over SSH and over WinRM; the healthy node has no error findings. The demo runs
 * in-process; the CLI runs in-process against the same home and the demo's kubeconfig, as a second invocation would.
 */

// healthy + the 13 scenarios after it in the demo order (through flannel-bare-process): every planted rule.
const WINDOWS = 14;

let t: ReturnType<typeof testServices>;
let userHome: ReturnType<typeof tempDir>;
let demo: RunningDemo;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  userHome = tempDir();
  env = { HOME: userHome.dir, PATH: process.env.PATH ?? '' };
  t = testServices({ env });
  demo = await startDemo(t.services.core, { nodes: WINDOWS + 1, windows: WINDOWS, liveSync: false });
}, 60_000);

afterAll(async () => {
  await demo?.stop();
  await t?.cleanup();
  userHome?.cleanup();
});

interface DiagnoseJson {
  inputs: Array<{ path: string; kind: string }>;
  findings: Finding[];
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const streams = { stdout: { write: (s: string) => (out.stdout += s) }, stderr: { write: (s: string) => (out.stderr += s) }, stdinIsTTY: false, env };
  const code = await runCli([...args, '--home', t.home, '--kubeconfig', demo.kubeconfig], streams, new AbortController().signal);
  return { code, ...out };
}

async function diagnose(node: string, transport: 'ssh' | 'winrm', extra: string[] = []): Promise<DiagnoseJson> {
  const r = await cli(['diagnose', node, '--json', '--transport', transport, ...extra]);
  expect(r.code, `${node} over ${transport}: ${r.stderr}\n${r.stdout.slice(0, 2000)}`).toBe(0);
  return JSON.parse(r.stdout) as DiagnoseJson;
}

const windowsNodes = () => demo.nodes.filter((n) => n.os === 'windows');

describe('windeck diagnose NODE on the demo cluster', () => {
  it('finds what each scenario planted over SSH, and the healthy node has no errors', async () => {
    const covered = new Set<string>();
    for (const node of windowsNodes()) {
      const plants = scenarioFile(node.scenario!).plants;
      const result = await diagnose(node.name, 'ssh');
      const ids = result.findings.map((f) => f.ruleId);
      // DESIGN.md section 10 shape: probes as inputs, findings with evidence from the probes.
      expect(result.inputs.some((i) => i.path === 'probe:services' && i.kind !== 'unknown' && i.kind !== 'unreadable'), JSON.stringify(result.inputs)).toBe(true);
      expect(result.inputs.filter((i) => i.path.startsWith('probe:')).length).toBeGreaterThan(5);
      // The stored Node object went in too (management-IP and version checks compare against it).
      expect(result.inputs).toContainEqual({ path: 'cluster:nodes', kind: 'node-json' });
      for (const f of result.findings) expect(f.node === null || f.node === node.name).toBe(true);
      for (const id of plants) {
        expect(ids, `${node.name} (${node.scenario}) should fire ${id}; got ${ids.join(', ')}`).toContain(id);
        covered.add(id);
      }
      if (node.scenario === 'healthy') {
        expect(result.findings.filter((f) => f.severity === 'error').map((f) => f.ruleId), 'healthy node').toEqual([]);
      }
    }
    // Every rule a first-14 scenario plants was checked.
    expect([...covered].sort()).toEqual(expect.arrayContaining(['service-not-running', 'hns-network-missing', 'pause-image-os-mismatch', 'hns-management-ip-mismatch', 'sourcevip-stale']));
  }, 60_000);

  it('finds the same over WinRM, stores the findings (source diagnose) and honours --fail-on', async () => {
    const healthy = windowsNodes().find((n) => n.scenario === 'healthy')!;
    const proxy = windowsNodes().find((n) => n.scenario === 'kube-proxy-stopped')!;
    const mgmt = windowsNodes().find((n) => n.scenario === 'wrong-mgmt-ip')!;
    for (const node of [proxy, mgmt]) {
      const result = await diagnose(node.name, 'winrm');
      for (const id of scenarioFile(node.scenario!).plants) expect(result.findings.map((f) => f.ruleId), `${node.name} over winrm`).toContain(id);
    }
    const h = await diagnose(healthy.name, 'winrm');
    expect(h.findings.filter((f) => f.severity === 'error')).toEqual([]);

    // Stored under source 'diagnose' and readable through the contract (what the UI calls).
    const listed = await t.services.dispatch('findings:list', { cluster: demo.clusterId, node: proxy.name });
    expect(listed.ok).toBe(true);
    const rows = (listed.ok ? listed.value : []) as Array<Finding & { source: string; foundAt: number }>;
    expect(rows.some((r) => r.ruleId === 'service-not-running' && r.source === 'diagnose' && r.foundAt > 0)).toBe(true);

    // --fail-on error: exit 4 on a broken node, 0 on the healthy one.
    expect((await cli(['diagnose', proxy.name, '--json', '--transport', 'ssh', '--fail-on', 'error'])).code).toBe(4);
    expect((await cli(['diagnose', healthy.name, '--json', '--transport', 'ssh', '--fail-on', 'error'])).code).toBe(0);
  }, 60_000);

  it('diagnose:node is an operation: it reports per-probe progress, and it can be cancelled', async () => {
    const healthy = windowsNodes().find((n) => n.scenario === 'healthy')!;
    const progress: OperationProgress[] = [];
    const unsubscribe = t.services.events.subscribe((event, payload) => {
      if (event === 'ops:progress') progress.push(payload as OperationProgress);
    });
    try {
      const startedResult = await t.services.dispatch('diagnose:node', { cluster: demo.clusterId, node: healthy.name, transport: 'ssh' });
      if (!startedResult.ok) throw new Error(startedResult.error.message);
      const started = { value: startedResult.value as { operationId: string } };
      const done = await waitFor(() => {
        const r = t.services.core.ops.get(started.value.operationId);
        return r && TERMINAL_STATES.has(r.state) ? r : null;
      }, 30_000);
      expect(done.state).toBe('succeeded');
      expect(done.kind).toBe('diagnose');
      const mine = progress.filter((p) => p.operationId === started.value.operationId && p.message?.startsWith('probe '));
      expect(mine.length).toBeGreaterThan(0);

      const secondResult = await t.services.dispatch('diagnose:node', { cluster: demo.clusterId, node: healthy.name, transport: 'winrm' });
      if (!secondResult.ok) throw new Error(secondResult.error.message);
      const second = { value: secondResult.value as { operationId: string } };
      const cancel = await t.services.dispatch('ops:cancel', { operationId: second.value.operationId });
      expect(cancel.ok).toBe(true);
      const cancelled = await waitFor(() => {
        const r = t.services.core.ops.get(second.value.operationId);
        return r && TERMINAL_STATES.has(r.state) ? r : null;
      }, 30_000);
      expect(cancelled.state).toBe('cancelled');
    } finally {
      unsubscribe();
    }
  }, 60_000);

  it('exits 2 with a JSON error when the node cannot be reached, 1 for an unknown node', async () => {
    const last = windowsNodes().at(-1)!;
    const sims = demo.windows.get(last.name)!;
    await sims.ssh.stop();
    await sims.winrm.stop();
    const r = await cli(['diagnose', last.name, '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(2);
    expect((JSON.parse(r.stdout) as { error: { code: string } }).error.code).toMatch(/UNREACHABLE|TIMEOUT/);
    const unknown = await cli(['diagnose', 'no-such-node', '--json']);
    expect(unknown.code).toBe(1);
    expect((JSON.parse(unknown.stdout) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  }, 60_000);
});
