import { once } from 'node:events';
import { WindeckError } from '../../../shared/contract/errors';
import { startDemo, type RunningDemo } from '../../services/kube/demo';
import type { CommandDef } from '../command';
import { EXIT } from '../exit-codes';
import { startWebHost, type WebHost } from '../../web/server';
import { rendererDir } from './serve';
import { preloadTransportsWhenIdle } from '../../services/transports/preload';
import type { CliIo } from '../io';

/**
 * `windeck demo [--nodes N] [--windows M] [--scenario NAME]` (DESIGN.md section 10): runs the simulated cluster in
 * the foreground until Ctrl-C. First stdout line `kubeconfig: <absolute path>`, then one line per node (name,
 * OS, scenario, endpoints); with `--json` one JSON line. The Windows node scenario order is documented in
 * electron/services/kube/demo.ts.
 */

function intFlag(io: CliIo, name: string): number | undefined {
  const v = io.args.string(name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new WindeckError('VALIDATION', `${name} needs a whole number, not "${v}".`);
  return Number(v);
}

function lines(demo: RunningDemo): string {
  const w = (k: keyof RunningDemo['nodes'][number]) => Math.max(...demo.nodes.map((n) => String(n[k] ?? '-').length));
  const nameW = w('name');
  const scenW = Math.max(8, w('scenario'));
  const out = [`kubeconfig: ${demo.kubeconfig}`];
  for (const n of demo.nodes) {
    const endpoints = n.os === 'windows' ? `ssh ${n.ssh}  winrm ${n.winrm}` : '-';
    out.push(`${n.name.padEnd(nameW)}  ${n.os.padEnd(7)}  ${(n.scenario ?? '-').padEnd(scenW)}  ${endpoints}`);
  }
  return out.join('\n');
}

export async function runDemo(io: CliIo): Promise<number> {
  const core = io.services().core;
  const nodes = intFlag(io, '--nodes');
  const windows = intFlag(io, '--windows');
  const demo = await startDemo(core, {
    ...(nodes !== undefined ? { nodes } : {}),
    ...(windows !== undefined ? { windows } : {}),
    scenario: io.args.string('--scenario') ?? null,
  });
  let web: WebHost | null = null;
  try {
    // `--serve` (what `npm start` uses without a kubeconfig): the web host over the same services, so the console
    // opens on the demo's store.
    if (io.args.bool('--serve')) {
      web = await startWebHost({ services: io.services(), staticDir: rendererDir() });
      preloadTransportsWhenIdle(io.services().core);
    }
    if (io.json) {
      io.streams.stdout.write(
        `${JSON.stringify({ kubeconfig: demo.kubeconfig, apiServer: demo.apiServer, nodes: demo.nodes.map((n) => ({ name: n.name, os: n.os, scenario: n.scenario, ssh: n.ssh, winrm: n.winrm })), ...(web ? { console: web.url } : {}) })}\n`,
      );
    } else {
      io.out(lines(demo));
      if (web) io.out(`console: ${web.url}`);
    }
    // A first diagnosis of every simulated Windows node, in the background (operations in the activity list), so the
    // console shows the planted problems without a click. Nodes whose scenario breaks access report that instead.
    if (io.args.bool('--serve')) {
      for (const n of demo.nodes) if (n.os === 'windows') void io.services().dispatch('diagnose:node', { node: n.name }, { host: 'cli' });
    }
    io.err(
      `SIMULATED cluster "windeck-demo" (not a real cluster): API ${demo.apiServer}. Use --kubeconfig ${demo.kubeconfig} with other commands; Ctrl-C stops the demo.`,
    );
    if (!io.signal.aborted) await once(io.signal, 'abort');
  } finally {
    if (web) await web.close();
    await demo.stop();
  }
  io.err('Demo stopped.');
  return EXIT.OK;
}

export const demoCommand: CommandDef = {
  name: 'demo',
  summary: 'Run the simulated demo cluster in the foreground',
  usage:
    'windeck demo [--nodes N] [--windows M] [--scenario NAME] [--serve] [--json]   (N nodes in all, default 8; M Windows, default 5; the first Windows node is healthy, the others carry the scenarios in the order of electron/sim/windows-node/scenario.ts, or all NAME)',
  flags: { '--nodes': 'string', '--windows': 'string', '--scenario': 'string', '--serve': 'boolean' },
  run: runDemo,
};
