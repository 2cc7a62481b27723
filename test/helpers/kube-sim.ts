import path from 'node:path';
import { KubeClient } from '../../electron/services/kube/client';
import { resolveKubeconfig, type ResolvedContext } from '../../electron/services/kube/kubeconfig';
import { KubeApiSimulator, type KubeApiSimOptions } from '../../electron/sim/kube-api/server';
import { tempDir } from './temp-dir';

/** A started API simulator with a kubeconfig in a temp dir, a resolved context and a client. `close()` ends all. */
export async function simWithClient(options: KubeApiSimOptions = {}): Promise<{
  sim: KubeApiSimulator;
  kubeconfig: string;
  ctx: ResolvedContext;
  client: KubeClient;
  dir: string;
  close(): Promise<void>;
}> {
  const tmp = tempDir('windeck-kube-');
  const sim = await new KubeApiSimulator({ cluster: { nodes: 8, windows: 5 }, ...options }).start();
  const kubeconfig = sim.writeKubeconfig(path.join(tmp.dir, 'kubeconfig'));
  const ctx = resolveKubeconfig({ explicitPath: kubeconfig, env: {} });
  const client = new KubeClient(ctx, { env: {} });
  return {
    sim,
    kubeconfig,
    ctx,
    client,
    dir: tmp.dir,
    async close() {
      client.close();
      await sim.stop();
      tmp.cleanup();
    },
  };
}
