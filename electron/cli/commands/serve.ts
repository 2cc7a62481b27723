import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WindeckError } from '../../../shared/contract/errors';
import { startWebHost } from '../../web/server';
import { startLiveSource } from '../../services/console-source';
import { preloadTransportsWhenIdle } from '../../services/transports/preload';
import type { CommandDef } from '../command';
import { EXIT } from '../exit-codes';

/** dist/renderer next to the bundled CLI (dist/cli.js). */
export function rendererDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.basename(here) === 'dist' ? path.join(here, 'renderer') : path.resolve(here, '..', '..', '..', 'dist', 'renderer');
}

/** Wait for Ctrl-C (the io signal), then resolve. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

export const serveCommand: CommandDef = {
  name: 'serve',
  summary: 'Run the web host on 127.0.0.1 and print its URL with a per-launch token',
  usage: 'windeck serve [--port N]',
  flags: { '--port': 'string' },
  async run(io) {
    const portText = io.args.string('--port') ?? '0';
    const port = Number(portText);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new WindeckError('VALIDATION', `--port must be a number from 0 to 65535, not "${portText}".`);
    const services = io.services();
    const host = await startWebHost({ services, staticDir: rendererDir(), port });
    preloadTransportsWhenIdle(services.core);
    // Store-first: the console opens on what the store has; a live list+watch of the kubeconfig's context refreshes
    // it (unless --offline). A kubeconfig that cannot be used is said once and the console stays on stored data.
    if (!io.args.bool('--offline')) {
      const target = { kubeconfig: io.args.string('--kubeconfig') ?? null, context: io.args.string('--context') ?? null };
      // Switching to another context later is `clusters:select` (electron/services/console-source.ts).
      const source = startLiveSource(services.core, target);
      for (const warning of source.warnings) io.err(`windeck: warning: ${warning}`);
      io.err(`Windeck: ${source.message}`);
    }
    if (io.json) io.out(JSON.stringify({ url: host.url, port: host.port }));
    else io.out(host.url);
    io.err('Windeck web host: open the URL above in a browser on this machine. Ctrl-C stops it.');
    await untilAborted(io.signal);
    await host.close();
    return EXIT.OK;
  },
};
