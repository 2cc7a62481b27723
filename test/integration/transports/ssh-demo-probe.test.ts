import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../electron/cli/main';
import { tempDir, waitFor } from '../../helpers/temp-dir';

/**
 * Issue 4 "done when": while `windeck demo` runs, `windeck probe <node> --json` from another invocation with the same
 * home and the demo's kubeconfig returns the node's services over SSH and over WinRM, with no other setup.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function streams(env: NodeJS.ProcessEnv) {
  const out = { stdout: '', stderr: '' };
  return { out, streams: { stdout: { write: (t: string) => (out.stdout += t) }, stderr: { write: (t: string) => (out.stderr += t) }, stdinIsTTY: false, env } };
}

describe('windeck probe against the running demo', () => {
  it('reaches the demo Windows nodes over ssh and winrm with no setup', async () => {
    const tmp = tempDir();
    cleanups.push(() => tmp.cleanup());
    const userHome = tempDir();
    cleanups.push(() => userHome.cleanup());
    const env = { HOME: userHome.dir, PATH: process.env.PATH ?? '' };
    const demoAbort = new AbortController();
    const demo = streams(env);
    const demoDone = runCli(['demo', '--nodes', '3', '--windows', '2', '--json', '--home', tmp.dir], demo.streams, demoAbort.signal);
    cleanups.push(async () => {
      demoAbort.abort();
      await demoDone;
    });
    const info = await waitFor(() => {
      const line = demo.out.stdout.split('\n').find((l) => l.startsWith('{'));
      return line ? (JSON.parse(line) as { kubeconfig: string; nodes: Array<{ name: string; os: string; ssh: string | null; scenario: string | null }> }) : null;
    }, 60_000);
    const windows = info.nodes.filter((n) => n.os === 'windows');
    expect(windows.length).toBe(2);
    for (const transport of ['ssh', 'winrm'] as const) {
      const p = streams(env);
      const code = await runCli(['probe', windows[0]!.name, '--probe', 'services', '--transport', transport, '--json', '--home', tmp.dir, '--kubeconfig', info.kubeconfig], p.streams, new AbortController().signal);
      expect(code, p.out.stderr + p.out.stdout).toBe(0);
      const report = JSON.parse(p.out.stdout) as { node: string; transport: string; probes: { services: { ok: boolean; parsed: { services: Array<{ name: string; status: string; startType: string }> } } } };
      expect(report.transport).toBe(transport);
      expect(report.probes.services.ok).toBe(true);
      expect(report.probes.services.parsed.services.find((s) => s.name === 'kubelet')).toMatchObject({ status: 'Running', startType: 'Automatic' });
    }
    const second = streams(env);
    const code = await runCli(['probe', windows[1]!.name, '--probe', 'services', '--json', '--home', tmp.dir, '--kubeconfig', info.kubeconfig], second.streams, new AbortController().signal);
    expect(code, second.out.stderr).toBe(0);
    expect((JSON.parse(second.out.stdout) as { transport: string }).transport).toBe('ssh');
  });
});
