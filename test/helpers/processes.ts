import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RunningProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Wait until stdout matches, or fail with what the process printed. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGINT, then SIGKILL after a grace period; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = path.join(ROOT, 'dist', 'cli.js');

/** Start the built `windeck` (dist/cli.js) as a real process. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): RunningProcess {
  return startProcess(process.execPath, [CLI, ...args], env);
}

export function startProcess(command: string, args: string[], env: NodeJS.ProcessEnv = {}): RunningProcess {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    async waitForOutput(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = out.match(pattern);
        if (match) return match;
        if (child.exitCode !== null || Date.now() > deadline) {
          throw new Error(`process did not print ${pattern} (exit ${child.exitCode}).\nstdout:\n${out}\nstderr:\n${err}`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async stop(graceMs = 5_000) {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
