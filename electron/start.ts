// `npm start`: the Electron window where the Electron binary exists, else the web host on 127.0.0.1 with the
// reason printed. With no kubeconfig at all, the built-in demo cluster (simulated, and labelled so) is opened.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findElectronBinary, hasDisplay } from './electron-binary';
import { runCli } from './cli/main';

const here = path.dirname(fileURLToPath(import.meta.url));
const packageRoot = path.basename(here) === 'dist' ? path.dirname(here) : path.resolve(here, '..');

function kubeconfigPresent(env: NodeJS.ProcessEnv): boolean {
  if (env.KUBECONFIG) return env.KUBECONFIG.split(path.delimiter).some((p) => p !== '' && fs.existsSync(p));
  return fs.existsSync(path.join(os.homedir(), '.kube', 'config'));
}

async function main(): Promise<number> {
  const electron = findElectronBinary(path.join(packageRoot, 'node_modules', 'electron'));
  const mainJs = path.join(packageRoot, 'dist', 'electron', 'main.js');
  if (electron.found && hasDisplay() && fs.existsSync(mainJs) && process.env.WINDECK_NO_ELECTRON !== '1') {
    const child = spawn(electron.path, [mainJs, ...process.argv.slice(2)], { stdio: 'inherit' });
    return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  }
  const why = !electron.found ? electron.reason : !hasDisplay() ? 'there is no display (DISPLAY is not set)' : !fs.existsSync(mainJs) ? 'the Electron main bundle is not built' : 'WINDECK_NO_ELECTRON=1';
  process.stderr.write(`Windeck: not opening a desktop window because ${why}.\nStarting the web host instead; open the URL below in a browser on this machine.\n`);

  const controller = new AbortController();
  process.on('SIGINT', () => controller.abort());
  process.on('SIGTERM', () => controller.abort());
  const streams = { stdout: process.stdout, stderr: process.stderr, stdinIsTTY: process.stdin.isTTY === true, env: process.env };
  const args = kubeconfigPresent(process.env) ? ['serve'] : ['demo', '--serve'];
  if (args[0] === 'demo') process.stderr.write('No kubeconfig found (KUBECONFIG, ~/.kube/config): opening the built-in SIMULATED demo cluster.\n');
  return runCli(args, streams, controller.signal);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`windeck: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
