import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WindeckError } from '../../../shared/contract/errors';
import type { NodeModel } from '../../../shared/domain/node';
import type { SecretStore } from '../lib/secret-store';
import type { Credential, CredentialsRepo } from '../store/repos/credentials';
import type { HostKeysRepo } from '../store/repos/host-keys';
import type { NodeEndpoint, NodeEndpointsRepo } from '../store/repos/node-endpoints';
import type { NodeTransport } from './node-transport';
import type { CandidateInfo, NodeTransportKind, TransportCandidate } from './select';
import type { SshAuth, SshHop, SshTarget } from './ssh/connect';
import { SshTransport } from './ssh/exec';
import { defaultKnownHostsFiles, PinningVerifier, readKnownHostsFiles } from './ssh/host-keys';
import { SshPool } from './ssh/pool';
import { SSH_KEEPALIVE_COUNT_MAX, SSH_KEEPALIVE_INTERVAL_MS } from '../../../shared/domain/limits';
import { keepaliveFromConfig, parseSshConfig, resolveSshHost, type ResolvedSshHost, type SshConfigBlock } from './ssh/ssh-config';
import { WinrmTransport } from './winrm/winrm-transport';

/**
 * Which address and credentials reach a node (issue 4 item 4):
 * - address: an endpoint stored for (cluster, node, transport) (set by the user or by `windeck demo`); else the
 *   user's ~/.ssh/config block for the node name (HostName, Port, User, IdentityFile, ProxyJump); else the
 *   node's InternalIP from the inventory; else the node name itself;
 * - credentials: the endpoint's credential; else the most specific credential set of the store (node, node group,
 *   cluster, any); else ssh_config identities / ssh-agent. Secrets come from the SecretStore (sealed blobs), a
 *   file the credential names, or the environment (WINDECK_NODE_PASSWORD, WINDECK_SSH_PASSPHRASE); never from
 *   the store in clear.
 */

/**
 * A password the user typed at the CLI prompt for this run (after an SSH AUTH_FAILED): for SSH password
 * credentials (and the ~/.ssh/config fallback) it takes precedence over a stored one, which is what just failed.
 * Lives only in the process environment of that run; WinRM credentials never use it.
 */
export const PROMPTED_PASSWORD_ENV = 'WINDECK_PROMPTED_PASSWORD';

export interface NodeAccessDeps {
  env: NodeJS.ProcessEnv;
  endpoints: NodeEndpointsRepo;
  credentials: CredentialsRepo;
  hostKeys: HostKeysRepo;
  nodes?: { get(clusterId: string, name: string): NodeModel | null } | null;
  secretStore: SecretStore | null;
  /** Shared SSH pool (one per services instance). */
  sshPool: SshPool;
  verifier: PinningVerifier;
  /** ~/.ssh/config path (default from HOME). */
  sshConfigPath?: string;
}

export interface NodeAccessRequest {
  clusterId: string;
  node: string;
  /** Transport order: `auto` = ssh then winrm (or the endpoint order). */
  prefer?: 'auto' | NodeTransportKind;
  /** `SHA256:` fingerprints the user accepted for this run. */
  acceptHostKeys?: string[];
}

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME && env.HOME.trim() !== '' ? env.HOME : os.homedir();
}

/** Parse ~/.ssh/config and its Include files (literal paths, relative to ~/.ssh); null when absent. */
async function loadSshConfigBlocks(configPath: string, home: string): Promise<SshConfigBlock[] | null> {
  let text: string;
  try {
    text = await fs.readFile(configPath, 'utf8');
  } catch {
    return null;
  }
  const included = new Map<string, string>();
  for (const m of text.matchAll(/^\s*Include\s+(.+)$/gim)) {
    for (const p of m[1]!.trim().split(/\s+/)) {
      const abs = p.startsWith('~/') ? path.join(home, p.slice(2)) : path.isAbsolute(p) ? p : path.join(home, '.ssh', p);
      try {
        included.set(p, await fs.readFile(abs, 'utf8'));
      } catch {
        // a missing include is ignored, as ssh does
      }
    }
  }
  return parseSshConfig(text, (pattern) => (included.has(pattern) ? [included.get(pattern)!] : []));
}

function aliasPattern(p: string): RegExp {
  return new RegExp(
    '^' +
      p
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replaceAll('*', '.*')
        .replaceAll('?', '.') +
      '$',
    'i',
  );
}

/** The ssh_config view of `alias` (as `ssh -G alias` would resolve it), or null without a config file. */
export async function sshConfigFor(alias: string, env: NodeJS.ProcessEnv, configPath?: string): Promise<ResolvedSshHost | null> {
  const home = homeOf(env);
  const blocks = await loadSshConfigBlocks(configPath ?? path.join(home, '.ssh', 'config'), home);
  if (!blocks) return null;
  return resolveSshHost(blocks, alias, { home, localUser: env.USER ?? env.USERNAME ?? 'root' });
}

/** Whether a Host block names `alias` specifically (not only `Host *`). */
export function hasSpecificBlock(blocks: readonly SshConfigBlock[], alias: string): boolean {
  return blocks.slice(1).some((b) => b.patterns.some((p) => !p.startsWith('!') && p !== '*' && aliasPattern(p).test(alias)));
}

async function readSecretFile(p: string): Promise<string> {
  try {
    return (await fs.readFile(p, 'utf8')).replace(/\r?\n$/, '');
  } catch (error) {
    throw new WindeckError(
      'AUTH_FAILED',
      `The credential file ${p} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`,
      { step: 'credentials' },
      { cause: error },
    );
  }
}

function openSecret(c: Credential, store: SecretStore | null): string | null {
  if (!c.secretBlob) return null;
  if (!store)
    throw new WindeckError(
      'AUTH_FAILED',
      `The credential "${c.name}" is sealed, but this host has no secret store key (set WINDECK_SECRET_KEY, or use the desktop app).`,
      { step: 'credentials' },
    );
  return store.decrypt(c.secretBlob);
}

/** SSH auth for a credential (reads key files, opens sealed secrets). */
export async function sshAuthFor(c: Credential, deps: Pick<NodeAccessDeps, 'env' | 'secretStore'>): Promise<SshAuth> {
  // A password typed at the prompt for this run replaces the stored one (which is what failed, or cannot be opened).
  const prompted = deps.env[PROMPTED_PASSWORD_ENV];
  if ((c.authKind === 'password' || c.authKind === 'basic') && prompted) return { username: c.username, password: prompted };
  const secret = openSecret(c, deps.secretStore);
  switch (c.authKind) {
    case 'key': {
      if (!c.keyPath) throw new WindeckError('AUTH_FAILED', `The credential "${c.name}" names no key file.`, { step: 'credentials' });
      const privateKey = await fs.readFile(c.keyPath).catch((error: unknown) => {
        throw new WindeckError(
          'AUTH_FAILED',
          `The private key ${c.keyPath} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`,
          { step: 'credentials' },
          { cause: error },
        );
      });
      const passphrase = secret ?? deps.env.WINDECK_SSH_PASSPHRASE;
      return { username: c.username, privateKey, ...(passphrase ? { passphrase } : {}) };
    }
    case 'password':
    case 'basic': {
      const password = secret ?? (c.keyPath ? await readSecretFile(c.keyPath) : deps.env.WINDECK_NODE_PASSWORD);
      if (!password)
        throw new WindeckError('AUTH_FAILED', `No password for "${c.name}": none is stored (no secret store key) and WINDECK_NODE_PASSWORD is not set.`, {
          step: 'credentials',
        });
      return { username: c.username, password };
    }
    case 'agent': {
      const agent = deps.env.SSH_AUTH_SOCK;
      if (!agent) throw new WindeckError('AUTH_FAILED', `"${c.name}" uses ssh-agent, but SSH_AUTH_SOCK is not set.`, { step: 'credentials' });
      return { username: c.username, agent };
    }
  }
}

function endpointText(host: string, port: number): string {
  return `${host}:${port}`;
}

async function sshCandidate(req: NodeAccessRequest, deps: NodeAccessDeps): Promise<TransportCandidate> {
  const stored = deps.endpoints.get(req.clusterId, req.node, 'ssh');
  const fromConfig = await sshConfigFor(stored?.host ?? req.node, deps.env, deps.sshConfigPath);
  const model = deps.nodes?.get(req.clusterId, req.node) ?? null;
  // A stored host that is a ~/.ssh/config alias resolves to its HostName, as ssh does.
  const host = stored
    ? fromConfig && fromConfig.hostName !== stored.host
      ? fromConfig.hostName
      : stored.host
    : ((fromConfig && fromConfig.hostName !== req.node ? fromConfig.hostName : null) ?? model?.internalIP ?? req.node);
  const port = stored?.port ?? fromConfig?.port ?? 22;
  const describe = endpointText(host, port);
  let credential: Credential | null = stored?.credentialId ? deps.credentials.get(stored.credentialId) : null;
  credential = credential ?? deps.credentials.forNode(req.clusterId, req.node, 'ssh', model?.labels ?? {})[0] ?? null;
  const configUser = fromConfig?.user ?? (typeof stored?.options.username === 'string' ? stored.options.username : null);
  const info: CandidateInfo = credential
    ? { credential: credential.name, username: credential.username, authKind: credential.authKind, host, port }
    : { credential: null, username: configUser, authKind: 'ssh-config', host, port };
  let auth: SshAuth;
  try {
    if (credential) {
      auth = await sshAuthFor(credential, deps);
    } else {
      const user = configUser;
      const identity = fromConfig?.identityFiles[0];
      const agent = fromConfig?.identityAgent ?? deps.env.SSH_AUTH_SOCK;
      if (!user || (!identity && !agent && !deps.env.WINDECK_NODE_PASSWORD && !deps.env[PROMPTED_PASSWORD_ENV])) {
        return {
          kind: 'ssh',
          available: false,
          describe,
          reason: 'not-configured',
          message: `No SSH credential applies to ${req.node} (no credential set in Windeck, no User/IdentityFile in ~/.ssh/config, no ssh-agent). Add one with \`windeck credentials add\`.`,
          info,
        };
      }
      auth = {
        username: user,
        ...(identity ? { privateKey: await fs.readFile(identity).catch(() => undefined) } : {}),
        ...(agent ? { agent } : {}),
        ...(deps.env[PROMPTED_PASSWORD_ENV] || deps.env.WINDECK_NODE_PASSWORD
          ? { password: deps.env[PROMPTED_PASSWORD_ENV] || deps.env.WINDECK_NODE_PASSWORD }
          : {}),
        ...(deps.env.WINDECK_SSH_PASSPHRASE ? { passphrase: deps.env.WINDECK_SSH_PASSPHRASE } : {}),
      } as SshAuth;
      if (auth.privateKey === undefined) delete auth.privateKey;
    }
  } catch (error) {
    return { kind: 'ssh', available: false, describe, reason: 'auth', message: (error as Error).message, info };
  }
  const keepaliveDefaults = { intervalMs: SSH_KEEPALIVE_INTERVAL_MS, countMax: SSH_KEEPALIVE_COUNT_MAX };
  const keepalive = keepaliveFromConfig(fromConfig, keepaliveDefaults);
  const jumps: SshHop[] = [];
  for (const j of fromConfig?.proxyJump ?? []) {
    const jc = await sshConfigFor(j.host, deps.env, deps.sshConfigPath);
    const jIdentity = jc?.identityFiles[0];
    const jKeepalive = keepaliveFromConfig(jc, keepaliveDefaults);
    jumps.push({
      host: jc?.hostName ?? j.host,
      port: j.port ?? jc?.port ?? 22,
      ...(jKeepalive ? { keepalive: jKeepalive } : {}),
      auth: {
        username: j.user ?? jc?.user ?? auth.username,
        ...(jIdentity ? { privateKey: await fs.readFile(jIdentity).catch(() => Buffer.alloc(0)) } : auth.privateKey ? { privateKey: auth.privateKey } : {}),
        ...(deps.env.SSH_AUTH_SOCK ? { agent: deps.env.SSH_AUTH_SOCK } : {}),
      },
    });
  }
  for (const fp of req.acceptHostKeys ?? []) deps.verifier.accept(fp, { host, port, clusterId: req.clusterId, node: req.node });
  const target: SshTarget = {
    node: req.node,
    host,
    port,
    auth,
    ...(jumps.length > 0 ? { jumps } : {}),
    ...(fromConfig?.hostKeyAlias ? { hostKeyAlias: fromConfig.hostKeyAlias } : {}),
    ...(keepalive ? { keepalive } : {}),
  };
  const connectMs = fromConfig?.connectTimeoutSec ? fromConfig.connectTimeoutSec * 1000 : undefined;
  return {
    kind: 'ssh',
    available: true,
    describe: jumps.length > 0 ? `${describe} via ${jumps.map((j) => endpointText(j.host, j.port)).join(' > ')}` : describe,
    info,
    open: () => new SshTransport(req.node, target, deps.sshPool, connectMs ? { timeouts: { connectMs } } : {}),
  };
}

async function winrmCandidate(req: NodeAccessRequest, deps: NodeAccessDeps): Promise<TransportCandidate> {
  const stored = deps.endpoints.get(req.clusterId, req.node, 'winrm');
  if (!stored)
    return {
      kind: 'winrm',
      available: false,
      describe: '(none)',
      reason: 'not-configured',
      message: `No WinRM endpoint is registered for ${req.node} (set one with \`windeck endpoints set ${req.node} --transport winrm --host HOST\`).`,
    };
  const url = typeof stored.options.url === 'string' ? stored.options.url : `http://${stored.host}:${stored.port}/wsman`;
  const model = deps.nodes?.get(req.clusterId, req.node) ?? null;
  const credential =
    (stored.credentialId ? deps.credentials.get(stored.credentialId) : null) ??
    deps.credentials.forNode(req.clusterId, req.node, 'winrm', model?.labels ?? {})[0] ??
    null;
  if (!credential)
    return {
      kind: 'winrm',
      available: false,
      describe: url,
      reason: 'not-configured',
      message: `No WinRM credential applies to ${req.node}. Add one with \`windeck credentials add NAME --kind winrm-ntlm ...\`.`,
      info: { credential: null, username: null, authKind: null },
    };
  const info: CandidateInfo = { credential: credential.name, username: credential.username, authKind: credential.authKind };
  let password: string;
  try {
    password =
      openSecret(credential, deps.secretStore) ?? (credential.keyPath ? await readSecretFile(credential.keyPath) : (deps.env.WINDECK_NODE_PASSWORD ?? ''));
    if (!password) throw new WindeckError('AUTH_FAILED', `No WinRM password for "${credential.name}" (none stored, WINDECK_NODE_PASSWORD not set).`);
  } catch (error) {
    return { kind: 'winrm', available: false, describe: url, reason: 'auth', message: (error as Error).message, info };
  }
  const method = stored.options.auth === 'basic' || credential.authKind === 'basic' ? 'basic' : 'ntlm';
  const pinned = typeof stored.options.pinnedSha256 === 'string' ? stored.options.pinnedSha256 : undefined;
  let ca = typeof stored.options.caPem === 'string' ? stored.options.caPem : undefined;
  if (!ca && typeof stored.options.caPath === 'string') {
    try {
      ca = await fs.readFile(stored.options.caPath, 'utf8');
    } catch (error) {
      return {
        kind: 'winrm',
        available: false,
        describe: url,
        info,
        reason: 'not-configured',
        message: `The CA file ${stored.options.caPath} set for ${req.node} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`,
      };
    }
  }
  return {
    kind: 'winrm',
    available: true,
    describe: url,
    info,
    open: (): NodeTransport =>
      new WinrmTransport({
        node: req.node,
        url,
        cluster: req.clusterId,
        credentials: { username: credential.username, password, method },
        ...(pinned || ca ? { trust: { ...(pinned ? { pinnedSha256: pinned } : {}), ...(ca ? { ca } : {}) } } : {}),
      }),
  };
}

/** Candidates in the order to try: `prefer` first; `auto` tries ssh then winrm. */
export async function nodeCandidates(req: NodeAccessRequest, deps: NodeAccessDeps): Promise<TransportCandidate[]> {
  const order: NodeTransportKind[] = req.prefer === 'ssh' ? ['ssh'] : req.prefer === 'winrm' ? ['winrm'] : ['ssh', 'winrm'];
  const out: TransportCandidate[] = [];
  for (const kind of order) out.push(kind === 'ssh' ? await sshCandidate(req, deps) : await winrmCandidate(req, deps));
  return out;
}

/** Shared SSH state of one services instance: the pool and its host-key verifier (known_hosts + store). */
export async function createSshAccess(hostKeys: HostKeysRepo, env: NodeJS.ProcessEnv): Promise<{ pool: SshPool; verifier: PinningVerifier }> {
  const verifier = new PinningVerifier({ store: hostKeys, knownHosts: await readKnownHostsFiles(defaultKnownHostsFiles(homeOf(env))) });
  return { pool: new SshPool({ verifier }), verifier };
}

/** Register a node's endpoint (override or demo). */
export function putEndpoint(repo: NodeEndpointsRepo, e: Omit<NodeEndpoint, 'updatedAt'>, now = Date.now()): void {
  repo.put({ ...e, updatedAt: now });
}
