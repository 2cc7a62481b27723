import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../electron/cli/main';
import { startDemo, type RunningDemo } from '../../../electron/services/kube/demo';
import { defaultRestartPorts } from '../../../electron/services/restart/default-ports';
import { installRestartService } from '../../../electron/services/restart/restarts';
import { testServices } from '../../helpers/services';
import { FAST } from './rig';

/**
 * `windeck restart` as DESIGN.md section 10 states it, in-process through the real CLI, against `windeck demo`'s
 * simulators (registered in the same WINDECK_HOME, reached over SSH and the Kubernetes API on loopback).
 * win-1 is healthy, win-2 has kube-proxy stopped.
 */

function capture(stdinIsTTY = false) {
  let stdout = '';
  let stderr = '';
  return {
    streams: {
      stdout: { write: (t: string) => ((stdout += t), true) },
      stderr: { write: (t: string) => ((stderr += t), true) },
      stdinIsTTY,
      env: {} as NodeJS.ProcessEnv,
    },
    out: () => stdout,
    err: () => stderr,
  };
}

let t: ReturnType<typeof testServices>;
let demo: RunningDemo;

beforeAll(async () => {
  t = testServices();
  demo = await startDemo(t.services.core, { nodes: 3, windows: 2, liveSync: false });
}, 120_000);

afterAll(async () => {
  await demo?.stop();
  await t?.cleanup();
});

function args(...rest: string[]): string[] {
  return [...rest, '--home', t.home, '--kubeconfig', demo.kubeconfig];
}

function restartCalls(node: string): unknown[] {
  return demo.windows
    .get(node)!
    .ssh.commandHost.invocations.filter((i) => i.scriptId === 'restart-service')
    .map((i) => i.args);
}

describe('windeck restart (CLI)', () => {
  it('refuses a component outside the allowed list, with the list (exit 1)', async () => {
    const c = capture();
    expect(await runCli(args('restart', 'win-2', 'vmcompute', '--dry-run'), c.streams, new AbortController().signal)).toBe(1);
    expect(c.err()).toMatch(/only kubelet, kube-proxy, flanneld, containerd, hns/);
  });

  it('without --yes and without a terminal it refuses before touching anything (exit 1)', async () => {
    const calls = demo.windows.get('win-2')!.ssh.commandHost.invocations.length;
    const c = capture(false);
    expect(await runCli(args('restart', 'win-2', 'kube-proxy', '--json'), c.streams, new AbortController().signal)).toBe(1);
    const out = JSON.parse(c.out()) as { error: { code: string; message: string } };
    expect(out.error.code).toBe('VALIDATION');
    expect(out.error.message).toMatch(/typed confirmation on a terminal.*--yes/);
    expect(demo.windows.get('win-2')!.ssh.commandHost.invocations.length).toBe(calls);
  });

  it('--dry-run lists every command and changes nothing (the simulators prove it)', async () => {
    const rv = demo.api.store.resourceVersion;
    const c = capture();
    expect(await runCli(args('restart', 'win-2', 'kube-proxy', '--dry-run', '--json'), c.streams, new AbortController().signal)).toBe(0);
    const out = JSON.parse(c.out()) as {
      node: string;
      component: string;
      method: string;
      dryRun: boolean;
      outcome: null;
      steps: Array<{ commands: Array<{ sent: string; equivalent: string; mutating: boolean }> }>;
      auditId: null;
    };
    expect(out).toMatchObject({ node: 'win-2', component: 'kube-proxy', method: 'nssm-service', dryRun: true, outcome: null, auditId: null });
    expect(out.steps.flatMap((s) => s.commands)).toEqual([
      {
        via: 'node',
        sent: 'restart-service v1 {"name":"kube-proxy","timeoutSeconds":90}',
        equivalent: "Restart-Service -Name 'kube-proxy' -Force; (Get-Service -Name 'kube-proxy').WaitForStatus('Running', '00:01:30')",
        mutating: true,
      },
    ]);
    expect(restartCalls('win-2')).toEqual([]);
    expect(demo.api.store.resourceVersion).toBe(rv);
    expect(demo.windows.get('win-2')!.ssh.model.service('kube-proxy')?.status).toBe('Stopped');
    // Human form too.
    const h = capture();
    expect(await runCli(args('restart', 'win-2', 'kube-proxy', '--dry-run'), h.streams, new AbortController().signal)).toBe(0);
    expect(h.out()).toMatch(/sends: restart-service v1 \{"name":"kube-proxy","timeoutSeconds":90\}/);
    expect(h.out()).toMatch(/same as: Restart-Service -Name 'kube-proxy' -Force/);
    expect(h.out()).toMatch(/Dry run: nothing was changed\./);
    expect(restartCalls('win-2')).toEqual([]);
  });

  it('Ctrl-C during the grace period cancels: exit 130, outcome cancelled, nothing changed', async () => {
    const c = capture();
    const controller = new AbortController();
    const running = runCli(args('restart', 'win-1', 'kubelet', '--yes', '--json'), c.streams, controller.signal);
    const deadline = Date.now() + 30_000;
    while (!/Grace period/.test(c.err()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    expect(await running).toBe(130);
    const out = JSON.parse(c.out()) as { outcome: string; summary: string; auditId: number };
    expect(out.outcome).toBe('cancelled');
    expect(out.summary).toMatch(/before anything was changed on win-1/);
    expect(restartCalls('win-1')).toEqual([]);
    expect(t.services.core.repos.audit.list({ node: 'win-1' })[0]).toMatchObject({ id: out.auditId, outcome: 'cancelled' });
  }, 60_000);

  it('--yes restarts the stopped kube-proxy; the JSON and the audit row say it recovered', async () => {
    const c = capture();
    const code = await runCli(args('restart', 'win-2', 'kube-proxy', '--yes', '--json'), c.streams, new AbortController().signal);
    expect(code, c.err()).toBe(0);
    const out = JSON.parse(c.out()) as Record<string, unknown> & {
      steps: unknown[];
      before: { loadBalancerCount: number };
      after: { loadBalancerCount: number };
      auditId: number;
    };
    expect(Object.keys(out)).toEqual(expect.arrayContaining(['node', 'component', 'method', 'outcome', 'steps', 'before', 'after', 'auditId']));
    expect(out).toMatchObject({ node: 'win-2', component: 'kube-proxy', method: 'nssm-service', outcome: 'succeeded' });
    expect(out.before.loadBalancerCount).toBe(0);
    expect(out.after.loadBalancerCount).toBeGreaterThan(0);
    expect(restartCalls('win-2')).toEqual([{ name: 'kube-proxy', timeoutSeconds: 90 }]);
    expect(demo.windows.get('win-2')!.ssh.model.service('kube-proxy')?.status).toBe('Running');
    expect(c.err()).toMatch(/Grace period/);
    const history = t.services.core.repos.audit.list({ node: 'win-2' });
    expect(history[0]).toMatchObject({ id: out.auditId, action: 'restart', outcome: 'succeeded' });
    expect(history[0]!.clusterId).toBe(demo.clusterId);
  }, 120_000);

  it('over WinRM with the product ports (endpoints, credentials and host keys from the store)', async () => {
    const restarts = installRestartService(t.services.core, defaultRestartPorts(t.services.core), FAST);
    const plan = await restarts.startPlan({ node: 'win-1', component: 'kubelet', kubeconfig: demo.kubeconfig, transport: 'winrm' }).done;
    expect(plan.transport).toBe('winrm');
    expect(plan.canExecute).toBe(true);
    const result = await restarts.startExecute({ planHash: plan.planHash, confirm: { node: 'win-1', component: 'kubelet' } }).result;
    expect(result.transport).toBe('winrm');
    expect(result.outcome, result.stillWrong.join(' ')).toBe('succeeded');
    expect(restartCalls('win-1')).toEqual([{ name: 'kubelet', timeoutSeconds: 20 }]);
  }, 120_000);
});
