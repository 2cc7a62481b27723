import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Services } from './create-services';
import { kubeInventory } from './kube/inventory';
import { startDemo } from './kube/demo';

export interface ConsoleSource {
  kind: 'live' | 'demo' | 'stored';
  /** One sentence for the user: what the console shows and why. */
  message: string;
  /** Set for the demo: its console-independent kubeconfig. */
  kubeconfig?: string;
}

/** Whether kubectl would find a kubeconfig: KUBECONFIG entries that exist, else ~/.kube/config. */
export function kubeconfigPresent(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): boolean {
  if (env.KUBECONFIG) return env.KUBECONFIG.split(path.delimiter).some((p) => p !== '' && fs.existsSync(p));
  return fs.existsSync(path.join(home, '.kube', 'config'));
}

/**
 * What a console host (the desktop window, `npm start`) shows: a live list+watch of the kubeconfig's context when
 * there is a kubeconfig, else the built-in SIMULATED demo cluster (DESIGN.md sections 1 and 9), whose Windows nodes
 * are diagnosed in the background so their planted problems show without a click. The demo stops with the services.
 */
export async function startConsoleSource(services: Services, options: { kubeconfig?: string | null; context?: string | null; env?: NodeJS.ProcessEnv } = {}): Promise<ConsoleSource> {
  const { core } = services;
  const env = options.env ?? process.env;
  if (options.kubeconfig || kubeconfigPresent(env)) {
    const target = { kubeconfig: options.kubeconfig ?? null, context: options.context ?? null };
    try {
      const inventory = kubeInventory(core);
      const { ctx, clusterId } = inventory.resolve(target);
      inventory.startLive(target);
      core.repos.settings.set('activeCluster', clusterId);
      return { kind: 'live', message: `Syncing context "${ctx.contextName}" live into the store.` };
    } catch (error) {
      return { kind: 'stored', message: `No live cluster sync: ${(error as Error).message} The console shows stored data only.` };
    }
  }
  const demo = await startDemo(core);
  core.own({ dispose: () => demo.stop() });
  for (const n of demo.nodes) if (n.os === 'windows') void services.dispatch('diagnose:node', { node: n.name });
  return { kind: 'demo', message: 'No kubeconfig found (KUBECONFIG, ~/.kube/config): showing the built-in SIMULATED demo cluster.', kubeconfig: demo.kubeconfig };
}
