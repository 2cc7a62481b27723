import fs from 'node:fs';
import crypto from 'node:crypto';
import { WindeckError } from '../../../../shared/contract/errors';
import type { AccessCheck, AccessOutcome, CredentialInfo, CredentialKind, EndpointInfo, HostKeyInfo } from '../../../../shared/contract/methods/access';
import { NODE_CONNECT_TIMEOUT_MS } from '../../../../shared/domain/limits';
import type { ServiceCore } from '../../create-services';
import { probeService } from '../../probes/probe-service';
import type { Credential, CredentialAuthKind } from '../../store/repos/credentials';
import type { StoredHostKey } from '../../store/repos/host-keys';
import type { NodeEndpoint } from '../../store/repos/node-endpoints';
import { nodeCandidates, sshConfigFor } from '../../transports/node-access';
import { checkTransport, type CapabilityReason } from '../../transports/select';
import { PinningVerifier, defaultKnownHostsFiles, readKnownHostsFiles } from '../../transports/ssh/host-keys';
import { findHostKey } from '../../transports/ssh/host-key-scan';
import { SshPool } from '../../transports/ssh/pool';
import type { Handlers } from '../handler';

/**
 * Per-node access configuration (shared/contract/methods/access.ts): credential sets, endpoint overrides, host
 * keys accepted in Windeck, and the capability check. Secrets are sealed by the host's SecretStore before the
 * store sees them and never leave this file in clear (the list shows only whether one is stored).
 */

type Target = { cluster?: string | undefined; kubeconfig?: string | undefined; context?: string | undefined };

const KIND_OF: Record<CredentialKind, { transport: 'ssh' | 'winrm'; authKind: CredentialAuthKind }> = {
  'ssh-key': { transport: 'ssh', authKind: 'key' },
  'ssh-password': { transport: 'ssh', authKind: 'password' },
  'ssh-agent': { transport: 'ssh', authKind: 'agent' },
  'winrm-ntlm': { transport: 'winrm', authKind: 'password' },
  'winrm-basic-https': { transport: 'winrm', authKind: 'basic' },
};

export function credentialKind(c: Pick<Credential, 'transport' | 'authKind'>): CredentialKind {
  if (c.transport === 'winrm') return c.authKind === 'basic' ? 'winrm-basic-https' : 'winrm-ntlm';
  return c.authKind === 'key' ? 'ssh-key' : c.authKind === 'agent' ? 'ssh-agent' : 'ssh-password';
}

export function credentialInfo(c: Credential): CredentialInfo {
  return {
    id: c.id,
    name: c.name,
    kind: credentialKind(c),
    clusterId: c.clusterId,
    scope: c.scope,
    selector: c.selector,
    username: c.username,
    keyPath: c.authKind === 'key' ? c.keyPath : null,
    hasSecret: c.secretBlob !== null && c.secretBlob.length > 0,
    secretStoreKind: c.secretBlob ? c.secretStoreKind : null,
    priority: c.priority,
    createdAt: c.createdAt,
  };
}

function hostKeyInfo(k: StoredHostKey): HostKeyInfo {
  return {
    host: k.host,
    port: k.port,
    keyType: k.keyType,
    fingerprint: k.fingerprint,
    clusterId: k.clusterId,
    node: k.node,
    source: k.source,
    acceptedAt: k.acceptedAt,
  };
}

function repos(core: ServiceCore) {
  const s = probeService(core);
  return { endpoints: s.endpoints, credentials: s.credentials, hostKeys: s.hostKeys };
}

function clusterId(core: ServiceCore, target: Target): string {
  return probeService(core).clusterId(target);
}

function endpointInfo(core: ServiceCore, e: NodeEndpoint): EndpointInfo {
  const credential = e.credentialId ? repos(core).credentials.get(e.credentialId) : null;
  const url = e.transport === 'winrm' ? (typeof e.options.url === 'string' ? e.options.url : `http://${e.host}:${e.port}/wsman`) : null;
  return {
    clusterId: e.clusterId,
    node: e.node,
    transport: e.transport,
    host: e.host,
    port: e.port,
    url,
    options: e.options,
    credential: credential?.name ?? null,
    source: e.source,
    updatedAt: e.updatedAt,
  };
}

/** Why no secret can be stored on this host, and what works instead. */
function noSecretStore(core: ServiceCore): WindeckError {
  const where =
    core.host === 'electron'
      ? 'the OS keychain is not available to the desktop app'
      : 'this host has no secret store (the CLI and web host seal secrets only with WINDECK_SECRET_KEY set; the desktop app uses the OS keychain)';
  return new WindeckError(
    'STORE_UNAVAILABLE',
    `Cannot store the secret: ${where}. Nothing was saved, and Windeck never stores a secret in clear. Either set WINDECK_SECRET_KEY (16+ characters) and run the command again, or save the credential without its secret and give it at run time (the interactive prompt, or WINDECK_NODE_PASSWORD / WINDECK_SSH_PASSPHRASE).`,
    { step: 'credentials' },
  );
}

function outcomeOf(reason: CapabilityReason): AccessOutcome {
  switch (reason) {
    case 'ok':
      return 'works';
    case 'refused':
    case 'unreachable':
    case 'auth':
    case 'host-key-unknown':
    case 'host-key-changed':
    case 'timeout':
    case 'not-configured':
      return reason;
    default:
      return 'error';
  }
}

/** Resolve a node's SSH host and port as the transport would (stored endpoint, ~/.ssh/config, InternalIP). */
async function sshAddress(core: ServiceCore, cluster: string, node: string): Promise<{ host: string; port: number }> {
  const stored = repos(core).endpoints.get(cluster, node, 'ssh');
  const env = core.config.env ?? process.env;
  const fromConfig = await sshConfigFor(stored?.host ?? node, env);
  const model = core.repos.nodes.get(cluster, node);
  const host = stored?.host ?? (fromConfig && fromConfig.hostName !== node ? fromConfig.hostName : null) ?? model?.internalIP ?? null;
  if (!host)
    throw new WindeckError('NOT_FOUND', `No SSH address is known for ${node}: set one with \`windeck endpoints set ${node} --transport ssh --host HOST\`.`, {
      cluster,
      node,
    });
  return { host, port: stored?.port ?? fromConfig?.port ?? 22 };
}

export const accessHandlers: Pick<
  Handlers,
  | 'credentials:list'
  | 'credentials:set'
  | 'credentials:remove'
  | 'endpoints:list'
  | 'endpoints:set'
  | 'endpoints:remove'
  | 'hostkeys:list'
  | 'hostkeys:accept'
  | 'hostkeys:forget'
  | 'nodes:access-check'
> = {
  'credentials:list': (input, { core }) => {
    const { credentials } = repos(core);
    if (input.node) {
      const cluster = clusterId(core, input);
      const labels = core.repos.nodes.get(cluster, input.node)?.labels ?? {};
      return [...credentials.forNode(cluster, input.node, 'ssh', labels), ...credentials.forNode(cluster, input.node, 'winrm', labels)].map(credentialInfo);
    }
    if (input.allClusters) return credentials.list().map(credentialInfo);
    const hasTarget = input.cluster !== undefined || input.kubeconfig !== undefined;
    if (!hasTarget && core.repos.clusters.list().length === 0) return credentials.list().map(credentialInfo);
    return credentials.list(clusterId(core, input)).map(credentialInfo);
  },

  'credentials:set': (input, { core }) => {
    const { credentials } = repos(core);
    const { transport, authKind } = KIND_OF[input.kind];
    // Scope and selector.
    let selector: string | null = null;
    if (input.scope === 'cluster') {
      if (input.selector !== undefined) throw new WindeckError('VALIDATION', 'A cluster-wide credential takes no node or node-group selector.');
    } else {
      if (!input.selector)
        throw new WindeckError(
          'VALIDATION',
          input.scope === 'node'
            ? 'A node credential needs the node name (--node NODE).'
            : 'A node-group credential needs a selector: a node-name wildcard (win-*) or a label key=value (--group).',
        );
      if (input.scope === 'node' && !/^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?$/.test(input.selector))
        throw new WindeckError('VALIDATION', `"${input.selector}" is not a node name.`);
      selector = input.selector;
    }
    if (input.anyCluster && input.scope !== 'cluster' && input.scope !== 'node-group')
      throw new WindeckError('VALIDATION', 'Only cluster-wide and node-group credentials can apply to every cluster.');
    const cluster = input.anyCluster ? null : clusterId(core, input);
    // Kind-specific fields.
    if (authKind === 'key') {
      if (!input.keyPath) throw new WindeckError('VALIDATION', 'An ssh-key credential needs the private key file (--key PATH).');
      if (!fs.existsSync(input.keyPath)) throw new WindeckError('VALIDATION', `The key file ${input.keyPath} does not exist.`);
    } else if (input.keyPath) {
      throw new WindeckError('VALIDATION', `A ${input.kind} credential takes no key file.`);
    }
    if (authKind === 'agent' && input.secret !== undefined)
      throw new WindeckError('VALIDATION', 'An ssh-agent credential has no secret (the agent holds the key).');
    const existing = credentials.byName(input.name);
    let secretBlob: Buffer | null = null;
    let secretStoreKind: string | null = null;
    if (input.secret !== undefined) {
      if (!core.secretStore) throw noSecretStore(core);
      secretBlob = core.secretStore.encrypt(input.secret);
      secretStoreKind = core.secretStore.kind;
    } else if (input.keepSecret && existing?.secretBlob && credentialKind(existing) === input.kind) {
      secretBlob = existing.secretBlob;
      secretStoreKind = existing.secretStoreKind;
    }
    const credential: Credential = {
      id: existing?.id ?? `cred-${crypto.randomUUID()}`,
      name: input.name,
      clusterId: cluster,
      scope: input.scope,
      selector,
      transport,
      username: input.username,
      authKind,
      keyPath: authKind === 'key' ? input.keyPath! : null,
      secretBlob,
      secretStoreKind,
      priority: input.priority ?? existing?.priority ?? 0,
      createdAt: existing?.createdAt ?? core.clock.now(),
    };
    credentials.put(credential);
    core.log.info('credential set', { name: credential.name, kind: input.kind, scope: credential.scope, sealed: secretBlob !== null });
    core.changed(['settings']);
    return credentialInfo(credential);
  },

  'credentials:remove': (input, { core }) => {
    const { credentials, endpoints } = repos(core);
    const c = credentials.byName(input.name) ?? credentials.get(input.name);
    if (!c) throw new WindeckError('NOT_FOUND', `No credential named "${input.name}".`);
    const using = endpoints.usingCredential(c.id);
    if (using.length > 0 && !input.force) {
      throw new WindeckError(
        'CONFLICT',
        `The credential "${c.name}" is used by ${using.map((e) => `${e.node} (${e.transport})`).join(', ')}; remove those endpoints first or give --force.`,
      );
    }
    for (const e of using) endpoints.put({ ...e, credentialId: null, updatedAt: core.clock.now() });
    credentials.remove(c.id);
    core.changed(['settings']);
    return { removed: c.name, endpointsCleared: using.length };
  },

  'endpoints:list': (input, { core }) => {
    const { endpoints } = repos(core);
    const cluster = clusterId(core, input);
    const list = input.node ? endpoints.list(cluster, input.node) : endpoints.listCluster(cluster);
    return list.map((e) => endpointInfo(core, e));
  },

  'endpoints:set': (input, { core }) => {
    const { endpoints, credentials } = repos(core);
    const cluster = clusterId(core, input);
    let credentialId: string | null = null;
    let credential: Credential | null = null;
    if (input.credential) {
      credential = credentials.byName(input.credential);
      if (!credential) throw new WindeckError('NOT_FOUND', `No credential named "${input.credential}" (see \`windeck credentials list\`).`);
      if (credential.transport !== input.transport)
        throw new WindeckError('VALIDATION', `The credential "${credential.name}" is ${credentialKind(credential)}, not for ${input.transport}.`);
      credentialId = credential.id;
    }
    let options: Record<string, unknown> = {};
    let port = input.port;
    if (input.transport === 'ssh') {
      if (input.winrm) throw new WindeckError('VALIDATION', 'WinRM options given for an SSH endpoint.');
      port ??= 22;
      if (input.ssh?.username) options.username = input.ssh.username;
    } else {
      if (input.ssh) throw new WindeckError('VALIDATION', 'SSH options given for a WinRM endpoint.');
      const w = input.winrm ?? {};
      const https = w.https ?? Boolean(w.caPath || w.pinnedSha256);
      if ((w.caPath || w.pinnedSha256) && w.https === false) throw new WindeckError('VALIDATION', 'A CA file or pinned thumbprint needs HTTPS.');
      const basic = w.auth === 'basic' || credential?.authKind === 'basic';
      if (basic && !https)
        throw new WindeckError('VALIDATION', 'WinRM Basic authentication only over HTTPS (it would send the password in clear): use --https, or NTLM.');
      if (w.caPath && !fs.existsSync(w.caPath)) throw new WindeckError('VALIDATION', `The CA file ${w.caPath} does not exist.`);
      port ??= https ? 5986 : 5985;
      const hostPart = input.host.includes(':') ? `[${input.host}]` : input.host;
      options = {
        url: `${https ? 'https' : 'http'}://${hostPart}:${port}${w.path ?? '/wsman'}`,
        https,
        ...(w.auth ? { auth: w.auth } : {}),
        ...(w.caPath ? { caPath: w.caPath } : {}),
        ...(w.pinnedSha256 ? { pinnedSha256: w.pinnedSha256.replaceAll(':', '').toUpperCase() } : {}),
      };
    }
    const e: NodeEndpoint = {
      clusterId: cluster,
      node: input.node,
      transport: input.transport,
      host: input.host,
      port,
      options,
      credentialId,
      source: 'override',
      updatedAt: core.clock.now(),
    };
    endpoints.put(e);
    core.changed(['nodes'], cluster, input.node);
    return endpointInfo(core, e);
  },

  'endpoints:remove': (input, { core }) => {
    const cluster = clusterId(core, input);
    const removed = repos(core).endpoints.remove(cluster, input.node, input.transport);
    if (!removed) throw new WindeckError('NOT_FOUND', `No ${input.transport} endpoint is set for ${input.node}.`, { cluster, node: input.node });
    core.changed(['nodes'], cluster, input.node);
    return { removed };
  },

  'hostkeys:list': (input, { core }) => {
    const all = repos(core).hostKeys.all();
    return (input.host ? all.filter((k) => k.host === input.host!.toLowerCase()) : all).map(hostKeyInfo);
  },

  'hostkeys:accept': async (input, { core, signal }) => {
    let host = input.host;
    let port = input.port;
    let cluster: string | null = null;
    if (input.node) {
      cluster = clusterId(core, input);
      if (!host) {
        const a = await sshAddress(core, cluster, input.node);
        host = a.host;
        port ??= a.port;
      }
    }
    if (!host) throw new WindeckError('VALIDATION', 'Say whose host key: a node, or a host (and port).');
    port ??= 22;
    const key = await findHostKey(host, port, input.fingerprint, {
      timeoutMs: NODE_CONNECT_TIMEOUT_MS,
      ...(signal ? { signal } : {}),
      ...(input.node ? { node: input.node } : {}),
    });
    const stored: StoredHostKey = {
      host: host.toLowerCase(),
      port,
      keyType: key.keyType,
      keyBase64: key.keyBase64,
      fingerprint: key.fingerprint,
      clusterId: cluster,
      node: input.node ?? null,
      source: 'accepted',
      acceptedAt: core.clock.now(),
    };
    repos(core).hostKeys.put(stored);
    core.log.info('host key accepted', { host, port, fingerprint: key.fingerprint });
    core.changed(['settings'], cluster, input.node ?? null);
    return hostKeyInfo(stored);
  },

  'hostkeys:forget': (input, { core }) => {
    const { hostKeys } = repos(core);
    if (!input.fingerprint && !input.host) throw new WindeckError('VALIDATION', 'Say which host key to forget: a host (and port) or a fingerprint.');
    const removed = input.fingerprint ? hostKeys.removeFingerprint(input.fingerprint) : hostKeys.remove(input.host!, input.port ?? 22);
    core.changed(['settings']);
    return { removed };
  },

  'nodes:access-check': async (input, { core, signal }) => {
    const cluster = clusterId(core, input);
    const r = repos(core);
    if (r.endpoints.list(cluster, input.node).length === 0 && !core.repos.nodes.get(cluster, input.node)) {
      throw new WindeckError(
        'NOT_FOUND',
        `Node "${input.node}" is not known in cluster ${cluster}: no endpoint is set and the inventory has no such node (run \`windeck nodes\`, or \`windeck endpoints set\`).`,
        { cluster, node: input.node },
      );
    }
    const env = core.config.env ?? process.env;
    const home = env.HOME && env.HOME.trim() !== '' ? env.HOME : undefined;
    // Fresh connections: a check proves what a new connection would do, not what a pooled one did.
    const verifier = new PinningVerifier({
      store: r.hostKeys,
      knownHosts: await readKnownHostsFiles(defaultKnownHostsFiles(home)),
      now: () => core.clock.now(),
    });
    const pool = new SshPool({ verifier });
    const abort = signal ?? new AbortController().signal;
    try {
      const candidates = await nodeCandidates(
        { clusterId: cluster, node: input.node, prefer: input.transport ?? 'auto' },
        {
          env,
          endpoints: r.endpoints,
          credentials: r.credentials,
          hostKeys: r.hostKeys,
          nodes: core.repos.nodes,
          secretStore: core.secretStore,
          sshPool: pool,
          verifier,
        },
      );
      const checks: AccessCheck[] = [];
      for (const c of candidates) {
        const base = { credential: c.info?.credential ?? null, username: c.info?.username ?? null };
        if (!c.available) {
          checks.push({
            transport: c.kind,
            outcome: outcomeOf(c.reason),
            reason: c.reason,
            ok: false,
            message: c.message,
            endpoint: c.describe,
            ...base,
            fingerprint: null,
            durationMs: 0,
          });
          continue;
        }
        const t = c.open();
        try {
          const check = await checkTransport(t, c.describe, abort, { connectMs: input.connectTimeoutMs ?? NODE_CONNECT_TIMEOUT_MS });
          const hostKey = c.kind === 'ssh' && c.info?.host !== undefined ? verifier.seen.get(`${c.info.host}:${c.info.port}`) : undefined;
          const fingerprint =
            check.reason === 'host-key-unknown' || check.reason === 'host-key-changed'
              ? (hostKey ?? /SHA256:[A-Za-z0-9+/]{43}/.exec(check.message)?.[0] ?? null)
              : null;
          checks.push({
            transport: check.transport,
            outcome: outcomeOf(check.reason),
            reason: check.reason,
            ok: check.ok,
            message: check.message,
            endpoint: check.endpoint,
            ...base,
            fingerprint,
            durationMs: check.durationMs,
          });
        } finally {
          await t.close();
        }
      }
      return { clusterId: cluster, node: input.node, checks, works: checks.find((c) => c.ok)?.transport ?? null };
    } finally {
      await pool.dispose();
    }
  },
};
