import { KubeClient } from '../../../electron/services/kube/client';
import { resolveKubeconfig } from '../../../electron/services/kube/kubeconfig';
import { probeFindings } from '../../../electron/services/restart/findings';
import { KubeRestartApi } from '../../../electron/services/restart/kube-access';
import { TransportNodeHost } from '../../../electron/services/restart/node-host';
import type { RestartPorts } from '../../../electron/services/restart/ports';
import { installRestartService } from '../../../electron/services/restart/restarts';
import type { RestartService } from '../../../electron/services/restart/service';
import type { RestartTunables } from '../../../electron/services/restart/tunables';
import { PinningVerifier } from '../../../electron/services/transports/ssh/host-keys';
import { SshTransport } from '../../../electron/services/transports/ssh/exec';
import { SshPool } from '../../../electron/services/transports/ssh/pool';
import { knownHostsName, parseKnownHosts } from '../../../electron/services/transports/ssh/known-hosts';
import { KubeApiSimulator } from '../../../electron/sim/kube-api/server';
import { startDaemonSetReplacer } from '../../../electron/sim/windows-node/restart-behaviour';
import { startWindowsNodeSimulator, type WindowsNodeSimulator } from '../../../electron/sim/windows-node/simulator';
import type { Services } from '../../../electron/services/create-services';
import { testServices } from '../../helpers/services';
import { tempDir } from '../../helpers/temp-dir';
import path from 'node:path';

/**
 * A restart test rig over the real simulators on loopback: the Windows node simulator behind its SSH server,
 * reached by Windeck's SSH transport; the Kubernetes API simulator over HTTPS, reached by Windeck's kube client;
 * the services over a temp SQLite store, with the restart service installed on these ports.
 */

export interface Rig {
  node: string;
  sim: WindowsNodeSimulator;
  kube: KubeApiSimulator | null;
  services: Services;
  restarts: RestartService;
  /** Mutating scripts the node received (the simulator's own record). */
  mutatingCalls(): string[];
  /** Mutating requests the API simulator received (DELETE/PATCH/POST), counted from its store history. */
  podNames(): string[];
  cleanup(): Promise<void>;
}

/** Short limits so a test takes seconds; every wait is still real (polls against the simulators). */
export const FAST: Partial<RestartTunables> = {
  graceMs: 0,
  settleMs: 1_200,
  pollMs: 100,
  networkWaitMs: 4_000,
  loadBalancerWaitMs: 4_000,
  nodeReadyWaitMs: 2_000,
  podReplaceTimeoutMs: 10_000,
  drainTimeoutMs: 10_000,
  serviceTimeoutMs: 20_000,
  readTimeoutMs: 10_000,
  cancelCheckTimeoutMs: 5_000,
};

let addressCounter = 40;

export async function startRig(options: {
  scenario: string;
  node?: string;
  cluster?: boolean;
  tunables?: Partial<RestartTunables>;
  replaceDaemonSetPods?: boolean;
}): Promise<Rig> {
  const node = options.node ?? 'win-r1';
  const address = `127.0.33.${addressCounter++}`;
  const cleanups: Array<() => Promise<void> | void> = [];
  try {
    let kube: KubeApiSimulator | null = null;
    let podCidr: string | undefined;
    let kubeApi: KubeRestartApi | null = null;
    if (options.cluster !== false) {
      kube = new KubeApiSimulator({
        host: '127.0.0.1',
        cluster: { nodes: 2, windows: 1, windowsNodes: [{ name: node, internalIP: address, scenario: options.scenario }] },
      });
      await kube.start();
      cleanups.push(() => kube!.stop());
      podCidr = kube.cluster?.nodes.find((n) => n.name === node)?.podCIDR;
      if (options.replaceDaemonSetPods !== false) {
        const replacer = startDaemonSetReplacer(kube.store, { createAfterMs: 100, readyAfterMs: 300, nodes: [node] });
        cleanups.push(() => replacer.stop());
      }
    }
    const sim = await startWindowsNodeSimulator({ name: node, address, scenario: options.scenario, ...(podCidr ? { podCidr } : {}) });
    cleanups.push(() => sim.stop());
    const t = testServices();
    cleanups.push(() => t.cleanup());
    if (kube) {
      const kubeconfig = kube.writeKubeconfig(path.join(t.home, 'kubeconfig'));
      const client = new KubeClient(resolveKubeconfig({ explicitPath: kubeconfig }));
      cleanups.push(() => client.close());
      kubeApi = new KubeRestartApi(client);
    }
    const verifier = new PinningVerifier({ knownHosts: parseKnownHosts(`${knownHostsName(sim.ssh.host, sim.ssh.port)} ${sim.ssh.hostKeyPublic}`) });
    const pool = new SshPool({ verifier });
    cleanups.push(() => pool.dispose());
    const ports: RestartPorts = {
      async openNode(target) {
        const transport = new SshTransport(
          target.node,
          { node: target.node, host: sim.ssh.host, port: sim.ssh.port, auth: { username: sim.credentials.username, privateKey: sim.credentials.privateKey } },
          pool,
        );
        return new TransportNodeHost(transport, { onClose: async () => undefined, findings: probeFindings(t.services.core, 'rig-cluster', target.node) });
      },
      async kube() {
        return kubeApi;
      },
    };
    const restarts = installRestartService(t.services.core, ports, { ...FAST, ...(options.tunables ?? {}) });
    const rig: Rig = {
      node,
      sim,
      kube,
      services: t.services,
      restarts,
      mutatingCalls: () => sim.commandHost.invocations.filter((i) => i.scriptId === 'restart-service').map((i) => JSON.stringify(i.args)),
      podNames: () => {
        if (!kube) return [];
        const page = kube.store.list('pods', { fields: [{ field: 'spec.nodeName', value: node, negate: false }] });
        return page.items.map((i) => i.name);
      },
      async cleanup() {
        for (const c of cleanups.splice(0).reverse()) await c();
      },
    };
    return rig;
  } catch (error) {
    for (const c of cleanups.reverse()) await c();
    throw error;
  }
}

export { tempDir };
