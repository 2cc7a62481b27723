import { runCli } from './main';

// The `windeck` executable: Ctrl-C cancels the running operation, then the process exits 130.
const controller = new AbortController();
let interrupted = false;
process.on('SIGINT', () => {
  if (interrupted) process.exit(130);
  interrupted = true;
  controller.abort();
});
process.on('SIGTERM', () => controller.abort());

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdinIsTTY: process.stdin.isTTY === true, env: process.env }, controller.signal).then(
  (code) => {
    process.exitCode = interrupted && code === 0 ? 130 : code;
  },
  (error: unknown) => {
    process.stderr.write(`windeck: internal error: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
