import { createCommandHost, type CommandHost } from './command-host';
import type { SimFaults } from './faults';
import { WindowsNodeModel } from './node-model';
import { resolveScenario, type NodeParams, type ResolvedScenario } from './scenario';
import { generateKeyPair, publicKeyLine, startSimSshServer, type SimSshServer } from './ssh-server';

/**
 * One simulated Windows node: node model from a scenario, command host, SSH server on its own 127.x address.
 * The WinRM endpoint (another module) can be put in front of the same `commandHost`.
 *
 *   const sim = await startWindowsNodeSimulator({ name: 'win-1', address: '127.0.10.11', scenario: 'healthy' });
 *   sim.ssh      -> { host, port, hostKeyFingerprint, hostKeyPublic }
 *   sim.credentials -> { username, password, privateKey, publicKey } (throwaway, simulator only)
 *   await sim.stop();
 */

export interface WindowsNodeSimulatorOptions {
  name: string;
  /** Loopback address to bind (127.0.0.0/8 only). Default 127.0.0.1. */
  address?: string;
  /** SSH port; 0 (default) picks a free one. */
  sshPort?: number;
  scenario?: string;
  podCidr?: string;
  clusterCidr?: string;
  serviceCidr?: string;
  dnsServiceIp?: string;
  username?: string;
  password?: string;
  /** Client key pair to authorize (OpenSSH private key text); generated when absent. */
  clientPrivateKey?: string;
  hostKey?: string;
  alternateHostKey?: string;
  /** Merged over the scenario's faults. */
  faults?: SimFaults;
  /** Let SSH clients jump through this node to other 127.x addresses (a ProxyJump bastion in tests). */
  allowLoopbackForwarding?: boolean;
  now?: () => number;
}

export interface SimCredentials {
  username: string;
  password: string;
  /** OpenSSH private key text (unencrypted; a throwaway key for the simulator). */
  privateKey: string;
  publicKey: string;
}

export interface WindowsNodeSimulator {
  name: string;
  address: string;
  scenario: ResolvedScenario;
  model: WindowsNodeModel;
  commandHost: CommandHost;
  ssh: { host: string; port: number; hostKeyFingerprint: string; hostKeyPublic: string; hostKeyPrivate: string; server: SimSshServer };
  credentials: SimCredentials;
  setFaults(faults: SimFaults): void;
  stop(): Promise<void>;
}

function assertLoopback(address: string): void {
  if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address)) throw new Error(`the Windows node simulator binds loopback (127.0.0.0/8) only, not ${address}`);
}

export async function startWindowsNodeSimulator(options: WindowsNodeSimulatorOptions): Promise<WindowsNodeSimulator> {
  const address = options.address ?? '127.0.0.1';
  assertLoopback(address);
  const params: NodeParams = {
    nodeName: options.name,
    nodeIp: address,
    ...(options.podCidr ? { podCidr: options.podCidr } : {}),
    ...(options.clusterCidr ? { clusterCidr: options.clusterCidr } : {}),
    ...(options.serviceCidr ? { serviceCidr: options.serviceCidr } : {}),
    ...(options.dnsServiceIp ? { dnsServiceIp: options.dnsServiceIp } : {}),
  };
  const scenario = resolveScenario(options.scenario ?? 'healthy', params);
  const model = new WindowsNodeModel(scenario.spec, options.now ? { now: options.now } : {});
  const commandHost = createCommandHost({ model, faults: { ...scenario.faults, ...(options.faults ?? {}) } });
  const clientKey = options.clientPrivateKey ?? generateKeyPair(`windeck-demo@${options.name}`).privateKey;
  const credentials: SimCredentials = {
    username: options.username ?? 'Administrator',
    password: options.password ?? `sim-${Math.random().toString(36).slice(2, 12)}`,
    privateKey: clientKey,
    publicKey: publicKeyLine(clientKey),
  };
  const server = await startSimSshServer({
    commandHost,
    address,
    port: options.sshPort ?? 0,
    ...(options.hostKey ? { hostKey: options.hostKey } : {}),
    ...(options.alternateHostKey ? { alternateHostKey: options.alternateHostKey } : {}),
    users: [{ username: credentials.username, password: credentials.password, authorizedKeys: [credentials.publicKey] }],
    ...(options.allowLoopbackForwarding ? { allowLoopbackForwarding: true } : {}),
  });
  return {
    name: options.name,
    address,
    scenario,
    model,
    commandHost,
    ssh: { host: server.host, port: server.port, hostKeyFingerprint: server.hostKeyFingerprint, hostKeyPublic: server.hostKeyPublic, hostKeyPrivate: server.hostKeyPrivate, server },
    credentials,
    setFaults(faults) {
      commandHost.faults = { ...faults };
    },
    stop: () => server.stop(),
  };
}
