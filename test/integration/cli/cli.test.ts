import { describe, expect, it } from 'vitest';
import { runCli, helpText } from '../../../electron/cli/main';
import { tempDir } from '../../helpers/temp-dir';

function capture() {
  let stdout = '';
  let stderr = '';
  return {
    streams: {
      stdout: { write: (t: string) => ((stdout += t), true) },
      stderr: { write: (t: string) => ((stderr += t), true) },
      stdinIsTTY: false,
      env: {} as NodeJS.ProcessEnv,
    },
    out: () => stdout,
    err: () => stderr,
  };
}

describe('windeck CLI', () => {
  it('--help lists every command of DESIGN.md section 10', async () => {
    const c = capture();
    expect(await runCli(['--help'], c.streams, new AbortController().signal)).toBe(0);
    for (const name of ['serve', 'demo', 'nodes', 'probe', 'diagnose', 'collect', 'report', 'restart', 'lint-workloads']) {
      expect(c.out()).toMatch(new RegExp(`^  ${name}\\s`, 'm'));
    }
    expect(helpText()).toContain('--json');
  });

  it('an unknown command or option is a usage error (exit 1) with a clear message', async () => {
    const a = capture();
    expect(await runCli(['frobnicate'], a.streams, new AbortController().signal)).toBe(1);
    expect(a.err()).toMatch(/Unknown command "frobnicate"/);
    const b = capture();
    expect(await runCli(['serve', '--bogus'], b.streams, new AbortController().signal)).toBe(1);
    expect(b.err()).toMatch(/Unknown option --bogus/);
  });

  it('--json failures print {"error": {code, message, context}} on stdout, never the envelope', async () => {
    const c = capture();
    expect(await runCli(['serve', '--port', 'abc', '--json'], c.streams, new AbortController().signal)).toBe(1);
    const parsed = JSON.parse(c.out()) as { error: { code: string; message: string; context: object }; ok?: unknown };
    expect(parsed.error.code).toBe('VALIDATION');
    expect(parsed.error.message).toMatch(/--port/);
    expect(parsed.ok).toBeUndefined();
  });

  it('serve prints the tokened URL and stops on cancel', async () => {
    const t = tempDir();
    const c = capture();
    const controller = new AbortController();
    const running = runCli(['serve', '--home', t.dir], c.streams, controller.signal);
    const deadline = Date.now() + 10_000;
    while (!c.out().includes('token=') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(c.out()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}\n/);
    controller.abort();
    expect(await running).toBe(0);
    t.cleanup();
  });
});
