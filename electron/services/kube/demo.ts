import fs from 'node:fs';
import path from 'node:path';
import { WindeckError } from '../../../shared/contract/errors';
import { DEMO_DEFAULT_NODE_COUNT, DEMO_DEFAULT_WINDOWS_COUNT } from '../../../shared/domain/limits';
import { SIM_CLUSTER_CIDR, SIM_DNS_SERVICE_IP, SIM_SERVICE_CIDR, type GeneratedCluster, type WindowsNodeOverride } from '../../sim/kube-api/generate';
import { KubeApiSimulator } from '../../sim/kube-api/server';
import { resolveScenario, SCENARIO_NAMES } from '../../sim/windows-node/scenario';
import { startWindowsNodeSimulator, type WindowsNodeSimulator } from '../../sim/windows-node/simulator';
import { startDaemonSetReplacer } from '../../sim/windows-node/restart-behaviour';
import { startWinrmEndpoint, type WinrmEndpoint } from '../../sim/windows-node/winrm-server';
import type { ServiceCore } from '../create-services';
import { demoDir } from '../lib/paths';
import { clusterIdFor } from '../store/repos/clusters';
import { registerSimulatedNode, unregisterSimulatedCluster } from '../transports/simulated-node-registration';
import { kubeInventory, type LiveInventory } from './inventory';
import { processAlive } from '../lib/process-alive';

/**
 * The built-in demo (DESIGN.md sections 9 and 10): a simulated mixed cluster (the Kubernetes API simulator) whose
 * Windows nodes are simulated hosts (SSH + WinRM on their own 127.x InternalIP), registered in the store so every
 * other command given the demo's kubeconfig and the same home reaches them with no setup.
 *
 * Windows node scenarios, in this fixed order: the first Windows node is `healthy`; the others take the
 * scenarios of electron/sim/windows-node/scenario.ts SCENARIO_NAMES after `healthy`, in that order
 * (kube-proxy-stopped, hns-network-missing, flannel-waiting, pause-mismatch, service-not-automatic,
 * kubelet-restart-fails, wrong-mgmt-ip, ...), wrapping around when there are more nodes than scenarios. With
 * `--scenario NAME` every Windows node after the first carries NAME (a single Windows node carries it itself).
 * Linux nodes: `linux-cp-1` (control plane) then `linux-1`, `linux-2`, ...
 */

export const DEMO_CONTEXT = 'windeck-demo';
/** Nodes the demo can start a Windows simulator for (each gets SSH + WinRM listeners). */
export const DEMO_MAX_WINDOWS = 200;
export const DEMO_MAX_NODES = 5_000;

export interface DemoOptions {
  nodes?: number;
  windows?: number;
  scenario?: string | null;
  /** Start a live list+watch into the store while the demo runs (default true). */
  liveSync?: boolean;
}

export interface DemoNode {
  name: string;
  os: 'windows' | 'linux';
  scenario: string | null;
  /** `127.x.y.z:PORT` of the SSH endpoint (Windows nodes). */
  ssh: string | null;
  /** WinRM URL (Windows nodes). */
  winrm: string | null;
}

export interface RunningDemo {
  kubeconfig: string;
  apiServer: string;
  clusterId: string;
  nodes: DemoNode[];
  api: KubeApiSimulator;
  windows: Map<string, { ssh: WindowsNodeSimulator; winrm: WinrmEndpoint }>;
  cluster: GeneratedCluster;
  stop(): Promise<void>;
}

/** The scenario of each Windows node, in the documented order. */
export function demoScenarioOrder(windows: number, scenario?: string | null): string[] {
  const rest = SCENARIO_NAMES.filter((n) => n !== 'healthy');
  const out: string[] = [];
  for (let i = 0; i < windows; i++) {
    if (scenario) out.push(windows === 1 || i > 0 ? scenario : 'healthy');
    else out.push(i === 0 ? 'healthy' : rest[(i - 1) % rest.length]!);
  }
  return out;
}

function checkCount(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new WindeckError('VALIDATION', `--${name} must be a whole number from ${min} to ${max}, not ${value}.`);
  return value;
}


/** Claim WINDECK_HOME/demo.lock; CONFLICT when another live demo holds it. */
function claimDemoLock(home: string): string {
  const file = path.join(home, 'demo.lock');
  fs.mkdirSync(home, { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return file;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(fs.readFileSync(file, 'utf8').trim());
      if (processAlive(pid)) {
        throw new WindeckError('CONFLICT', `Another \`windeck demo\` (pid ${pid}) is running with the data directory ${home}; stop it first (Ctrl-C in its terminal) or use another --home.`, { path: file });
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new WindeckError('CONFLICT', `Could not claim ${file}.`, { path: file });
}

/** Everything the store holds about a cluster (a fresh demo forgets the previous run). */
function forgetCluster(core: ServiceCore, clusterId: string): void {
  const db = core.store.db;
  unregisterSimulatedCluster(db, clusterId);
  db.transaction(() => {
    for (const table of ['pods', 'kube_events', 'daemonsets', 'workloads', 'inventory_status', 'findings']) db.prepare(`DELETE FROM ${table} WHERE cluster_id = ?`).run(clusterId);
  })();
  core.repos.clusters.remove(clusterId);
}

function runtimeOf(spec: ReturnType<typeof resolveScenario>['spec']): string {
  if (spec.runtime.containerd) return `containerd://${spec.runtime.containerd.version.replace(/^v/, '')}`;
  if (spec.runtime.docker) return `docker://${spec.runtime.docker.version}`;
  return 'containerd://1.7.13';
}

/**
 * Start the demo in this process: fresh state under WINDECK_HOME/demo, the API simulator, one Windows node
 * simulator (SSH + WinRM) per Windows node, the cluster and node access registered in the store, an initial
 * inventory sync and (by default) a live sync. `stop()` ends it all and releases the lock.
 */
export async function startDemo(core: ServiceCore, options: DemoOptions = {}): Promise<RunningDemo> {
  const total = checkCount('nodes', options.nodes ?? DEMO_DEFAULT_NODE_COUNT, 1, DEMO_MAX_NODES);
  const windows = checkCount('windows', options.windows ?? Math.min(DEMO_DEFAULT_WINDOWS_COUNT, total), 0, Math.min(total, DEMO_MAX_WINDOWS));
  if (options.scenario && !SCENARIO_NAMES.includes(options.scenario)) {
    throw new WindeckError('VALIDATION', `Unknown scenario "${options.scenario}". Known: ${SCENARIO_NAMES.join(', ')}.`);
  }
  const lock = claimDemoLock(core.home);
  const cleanups: Array<() => Promise<void> | void> = [() => fs.rmSync(lock, { force: true })];
  const cleanup = async () => {
    for (const c of cleanups.reverse()) {
      try {
        await c();
      } catch (error) {
        core.log.warn('demo cleanup step failed', { error: String(error) });
      }
    }
    cleanups.length = 0;
  };
  try {
    const dir = demoDir(core.home);
    const kubeconfigPath = path.join(dir, 'kubeconfig');
    const clusterId = clusterIdFor(kubeconfigPath, DEMO_CONTEXT);
    // Fresh state at each start.
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    forgetCluster(core, clusterId);

    const order = demoScenarioOrder(windows, options.scenario);
    const overrides: WindowsNodeOverride[] = order.map((scenario, i) => {
      const spec = resolveScenario(scenario, { nodeName: `win-${i + 1}`, nodeIp: '127.0.0.1' }).spec;
      return {
        scenario,
        kernelVersion: `${spec.os.version}.${spec.os.ubr}`,
        osImage: spec.os.caption.replace(/^Microsoft\s+/, ''),
        containerRuntimeVersion: runtimeOf(spec),
      };
    });
    const api = new KubeApiSimulator({ cluster: { nodes: total, windows, windowsNodes: overrides, workloads: 'demo' } });
    await api.start();
    cleanups.push(() => api.stop());
    // Deleted DaemonSet pods come back, as the DaemonSet controller does (guided restarts of HostProcess pods).
    const replacer = startDaemonSetReplacer(api.store);
    cleanups.push(() => replacer.stop());
    const kubeconfig = api.writeKubeconfig(kubeconfigPath, { context: DEMO_CONTEXT });
    const cluster = api.cluster!;

    const started = await startDemoWindowsNodes(core, clusterId, dir, cluster);
    cleanups.push(() => started.stop());
    const bridge = bridgeKubeletToNodeReady(api, started.nodes);
    cleanups.push(() => bridge.stop());

    const inventory = kubeInventory(core);
    const target = { kubeconfig, context: DEMO_CONTEXT };
    inventory.register(inventory.resolve(target).ctx, clusterId, true);
    await inventory.syncOperation(target).done;
    core.repos.settings.set('activeCluster', clusterId);
    core.repos.settings.set('demo', { kubeconfig, pid: process.pid, startedAt: core.clock.now() });
    cleanups.push(() => core.repos.settings.delete('demo'));
    let live: LiveInventory | null = null;
    if (options.liveSync !== false) {
      try {
        live = inventory.startLive(target);
        cleanups.push(() => live?.dispose());
      } catch (error) {
        // Another Windeck process (the app) already keeps this cluster live: the demo runs without its own watch.
        core.log.info('demo without its own live sync', { reason: String((error as Error).message) });
      }
    }
    core.changed(['clusters', 'nodes', 'settings'], clusterId);

    const nodes: DemoNode[] = cluster.nodes.map((n) => {
      const w = started.nodes.get(n.name);
      return { name: n.name, os: n.os, scenario: n.scenario, ssh: w ? `${w.ssh.ssh.host}:${w.ssh.ssh.port}` : null, winrm: w ? w.winrm.url : null };
    });
    return { kubeconfig, apiServer: api.url, clusterId, nodes, api, windows: started.nodes, cluster, stop: cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/**
 * Start the Windows node simulators of a generated cluster (SSH and WinRM on each node's InternalIP) and register
 * their endpoints, trusted host keys and throwaway credentials in the store (keys in clear under `dir`/keys).
 */
export async function startDemoWindowsNodes(
  core: ServiceCore,
  clusterId: string,
  dir: string,
  cluster: GeneratedCluster,
): Promise<{ nodes: Map<string, { ssh: WindowsNodeSimulator; winrm: WinrmEndpoint }>; stop(): Promise<void> }> {
  const nodes = new Map<string, { ssh: WindowsNodeSimulator; winrm: WinrmEndpoint }>();
  const stop = async () => {
    await Promise.allSettled([...nodes.values()].flatMap((n) => [n.winrm.stop(), n.ssh.stop()]));
    nodes.clear();
  };
  try {
    for (const n of cluster.nodes.filter((x) => x.os === 'windows')) {
      const ssh = await startWindowsNodeSimulator({
        name: n.name,
        address: n.internalIP,
        scenario: n.scenario ?? 'healthy',
        podCidr: n.podCIDR,
        clusterCidr: SIM_CLUSTER_CIDR,
        serviceCidr: SIM_SERVICE_CIDR,
        dnsServiceIp: SIM_DNS_SERVICE_IP,
      });
      let winrm: WinrmEndpoint;
      try {
        winrm = await startWinrmEndpoint({ address: n.internalIP, commandHost: ssh.commandHost, credentials: { username: ssh.credentials.username, password: ssh.credentials.password }, https: true });
      } catch (error) {
        await ssh.stop();
        throw error;
      }
      nodes.set(n.name, { ssh, winrm });
      await registerSimulatedNode(core.store.db, {
        clusterId,
        node: n.name,
        demoDir: dir,
        ssh: { host: ssh.ssh.host, port: ssh.ssh.port, hostKeyPublic: ssh.ssh.hostKeyPublic },
        credentials: ssh.credentials,
        winrm: { url: winrm.url, username: ssh.credentials.username, password: ssh.credentials.password, auth: 'ntlm', ...(winrm.certThumbprint ? { pinnedSha256: winrm.certThumbprint } : {}) },
        now: core.clock.now(),
      });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes, stop };
}

/** How often the demo looks at the simulated kubelets to reflect them in the Node objects. */
export const DEMO_KUBELET_POLL_MS = 1_000;

/**
 * Keep the API's Node objects honest about the simulated hosts: when a node's kubelet service is not Running (a
 * stop, a failed restart), its Ready condition turns Unknown ("Kubelet stopped posting node status.", as the node
 * lifecycle controller reports it); when the kubelet runs again, the condition it had before comes back.
 */
export function bridgeKubeletToNodeReady(api: KubeApiSimulator, nodes: Map<string, { ssh: WindowsNodeSimulator }>, intervalMs = DEMO_KUBELET_POLL_MS): { check(): void; stop(): void } {
  type Condition = { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string };
  const baseline = new Map<string, Condition>();
  const down = new Set<string>();
  const now = () => new Date(api.store.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const check = () => {
    for (const [name, n] of nodes) {
      const kubelet = n.ssh.model.service('kubelet');
      const running = !kubelet || kubelet.status === 'Running';
      if (!running && !down.has(name)) {
        down.add(name);
        api.store.update('nodes', '', name, (o) => {
          const ready = (o.status?.conditions ?? []).find((c: Condition) => c.type === 'Ready') as Condition | undefined;
          if (!ready) return;
          baseline.set(name, { ...ready });
          Object.assign(ready, { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: now() });
        });
      } else if (running && down.has(name)) {
        down.delete(name);
        const before = baseline.get(name);
        api.store.update('nodes', '', name, (o) => {
          const ready = (o.status?.conditions ?? []).find((c: Condition) => c.type === 'Ready') as Condition | undefined;
          if (ready && before) Object.assign(ready, { status: before.status, reason: before.reason, message: before.message, lastTransitionTime: now() });
        });
      }
    }
  };
  const timer = setInterval(() => {
    try {
      check();
    } catch {
      // a node removed from the API while the demo runs: nothing to reflect
    }
  }, intervalMs);
  timer.unref();
  return { check, stop: () => clearInterval(timer) };
}
