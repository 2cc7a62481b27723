import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WindeckError } from '../../../shared/contract/errors';
import { KeyedSecretStore } from '../../../electron/services/lib/secret-store';
import { openStore, type OpenedStore } from '../../../electron/services/store/database';
import { CredentialsRepo, type Credential } from '../../../electron/services/store/repos/credentials';
import { HostKeysRepo } from '../../../electron/services/store/repos/host-keys';
import { NodeEndpointsRepo } from '../../../electron/services/store/repos/node-endpoints';
import { createSshAccess, nodeCandidates, type NodeAccessDeps } from '../../../electron/services/transports/node-access';
import { checkCandidates, selectTransport } from '../../../electron/services/transports/select';
import { hashHostName, knownHostsName } from '../../../electron/services/transports/ssh/known-hosts';
import { startWindowsNodeSimulator, type WindowsNodeSimulator } from '../../../electron/sim/windows-node/simulator';
import { tempDir, waitFor } from '../../helpers/temp-dir';

/** Endpoint and credential resolution, ~/.ssh/config, ProxyJump, key passphrases, ssh-agent and capability checks. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface World {
  home: string;
  env: NodeJS.ProcessEnv;
  store: OpenedStore;
  deps(extra?: Partial<NodeAccessDeps>): Promise<NodeAccessDeps>;
}

async function world(): Promise<World> {
  const tmp = tempDir();
  cleanups.push(() => tmp.cleanup());
  const home = path.join(tmp.dir, 'user');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true, mode: 0o700 });
  const store = openStore(path.join(tmp.dir, 'windeck.db'));
  cleanups.push(() => store.close());
  const env: NodeJS.ProcessEnv = { HOME: home };
  return {
    home,
    env,
    store,
    async deps(extra = {}) {
      const hostKeys = new HostKeysRepo(store.db);
      const ssh = await createSshAccess(hostKeys, env);
      cleanups.push(() => ssh.pool.dispose());
      return { env, endpoints: new NodeEndpointsRepo(store.db), credentials: new CredentialsRepo(store.db), hostKeys, secretStore: null, sshPool: ssh.pool, verifier: ssh.verifier, ...extra };
    },
  };
}

async function sim(name: string, address: string, extra: Parameters<typeof startWindowsNodeSimulator>[0] extends infer O ? Partial<O> : never = {}): Promise<WindowsNodeSimulator> {
  const s = await startWindowsNodeSimulator({ name, address, ...extra });
  cleanups.push(() => s.stop());
  return s;
}

function credential(over: Partial<Credential>): Credential {
  return { id: 'c1', name: 'test', clusterId: 'cl', scope: 'node', selector: 'win-a', transport: 'ssh', username: 'Administrator', authKind: 'key', keyPath: null, secretBlob: null, secretStoreKind: null, priority: 0, createdAt: 0, ...over };
}

describe('node access over SSH', () => {
  it('follows ~/.ssh/config (alias, port, user, IdentityFile) through a ProxyJump host, checking both host keys', async () => {
    const w = await world();
    const jump = await sim('bastion', '127.0.50.1', { allowLoopbackForwarding: true });
    const target = await sim('win-a', '127.0.50.2');
    fs.writeFileSync(path.join(w.home, '.ssh', 'win_key'), target.credentials.privateKey, { mode: 0o600 });
    fs.writeFileSync(path.join(w.home, '.ssh', 'jump_key'), jump.credentials.privateKey, { mode: 0o600 });
    fs.writeFileSync(
      path.join(w.home, '.ssh', 'config'),
      [
        'Host win-a',
        `  HostName ${target.ssh.host}`,
        `  Port ${target.ssh.port}`,
        `  User ${target.credentials.username}`,
        '  IdentityFile ~/.ssh/win_key',
        `  ProxyJump ${jump.credentials.username}@bastion`,
        'Host bastion',
        `  HostName ${jump.ssh.host}`,
        `  Port ${jump.ssh.port}`,
        '  IdentityFile ~/.ssh/jump_key',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(w.home, '.ssh', 'known_hosts'),
      `${hashHostName(knownHostsName(target.ssh.host, target.ssh.port))} ${target.ssh.hostKeyPublic}\n${knownHostsName(jump.ssh.host, jump.ssh.port)} ${jump.ssh.hostKeyPublic}\n`,
    );
    const deps = await w.deps();
    const candidates = await nodeCandidates({ clusterId: 'cl', node: 'win-a', prefer: 'ssh' }, deps);
    expect(candidates[0]).toMatchObject({ kind: 'ssh', available: true, describe: `${target.ssh.host}:${target.ssh.port} via ${jump.ssh.host}:${jump.ssh.port}` });
    const { transport, checks } = await selectTransport('win-a', candidates, new AbortController().signal);
    expect(checks.map((c) => c.reason)).toEqual(['ok']);
    expect(transport.kind).toBe('ssh');
    expect(target.commandHost.invocations.map((i) => i.scriptId)).toEqual(['os']);
    expect(jump.commandHost.invocations).toEqual([]);
    expect(jump.ssh.server.authAttempts.some((a) => a.accepted && a.method === 'publickey')).toBe(true);

    // The jump host's key changes: refused at the first hop, nothing reaches the target.
    jump.setFaults({ hostKeyChange: true });
    deps.sshPool.forget({ node: 'win-a', host: target.ssh.host, port: target.ssh.port, auth: { username: 'x' } });
    const fresh = await w.deps();
    const again = await selectTransport('win-a', await nodeCandidates({ clusterId: 'cl', node: 'win-a', prefer: 'ssh' }, fresh), new AbortController().signal).catch((e: unknown) => e);
    expect((again as WindeckError).code).toBe('HOST_KEY_CHANGED');
    expect(target.ssh.server.connectionCount).toBe(1);
  });

  it('opens a passphrase-protected key with the passphrase sealed by the SecretStore, and says why when it cannot', async () => {
    const w = await world();
    const target = await sim('win-a', '127.0.50.3');
    const keyPath = path.join(w.home, 'enc_key');
    fs.writeFileSync(keyPath, target.credentials.privateKey, { mode: 0o600 });
    execFileSync('ssh-keygen', ['-q', '-p', '-N', 'correct horse', '-P', '', '-f', keyPath]);
    expect(fs.readFileSync(keyPath, 'utf8')).not.toBe(target.credentials.privateKey);
    const secrets = new KeyedSecretStore('0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef');
    const repo = new CredentialsRepo(w.store.db);
    repo.put(credential({ keyPath, secretBlob: secrets.encrypt('correct horse'), secretStoreKind: secrets.kind }));
    new NodeEndpointsRepo(w.store.db).put({ clusterId: 'cl', node: 'win-a', transport: 'ssh', host: target.ssh.host, port: target.ssh.port, options: {}, credentialId: 'c1', source: 'override', updatedAt: 0 });
    new HostKeysRepo(w.store.db).put({ host: target.ssh.host, port: target.ssh.port, keyType: 'ssh-ed25519', keyBase64: target.ssh.hostKeyPublic.split(' ')[1]!, fingerprint: target.ssh.hostKeyFingerprint, clusterId: 'cl', node: 'win-a', source: 'accepted', acceptedAt: 0 });
    // The blob in the store is not the passphrase.
    const raw = w.store.db.prepare('SELECT secret_blob FROM credentials').pluck().get() as Buffer;
    expect(raw.includes(Buffer.from('correct horse'))).toBe(false);

    const ok = await selectTransport('win-a', await nodeCandidates({ clusterId: 'cl', node: 'win-a', prefer: 'ssh' }, await w.deps({ secretStore: secrets })), new AbortController().signal);
    expect(ok.checks[0]?.ok).toBe(true);

    const noKey = await checkCandidates(await nodeCandidates({ clusterId: 'cl', node: 'win-a', prefer: 'ssh' }, await w.deps({ secretStore: null })), new AbortController().signal);
    expect(noKey[0]).toMatchObject({ ok: false, reason: 'auth' });
    expect(noKey[0]!.message).toMatch(/sealed.*no secret store key/);

    repo.put(credential({ keyPath, secretBlob: null }));
    const wrong = await checkCandidates(await nodeCandidates({ clusterId: 'cl', node: 'win-a', prefer: 'ssh' }, await w.deps({ env: { ...w.env, WINDECK_SSH_PASSPHRASE: 'wrong' } })), new AbortController().signal);
    expect(wrong[0]).toMatchObject({ ok: false, reason: 'auth' });
    expect(wrong[0]!.message).not.toContain('wrong');
  });

  it('authenticates through ssh-agent', async () => {
    const w = await world();
    const target = await sim('win-a', '127.0.50.4');
    const sock = path.join(w.home, 'agent.sock');
    const agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
    cleanups.push(() => {
      agent.kill('SIGTERM');
    });
    await waitFor(() => fs.existsSync(sock), 10_000);
    const keyPath = path.join(w.home, 'agent_key');
    fs.writeFileSync(keyPath, target.credentials.privateKey, { mode: 0o600 });
    execFileSync('ssh-add', [keyPath], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: 'ignore' });
    new CredentialsRepo(w.store.db).put(credential({ authKind: 'agent' }));
    new NodeEndpointsRepo(w.store.db).put({ clusterId: 'cl', node: 'win-a', transport: 'ssh', host: target.ssh.host, port: target.ssh.port, options: {}, credentialId: null, source: 'override', updatedAt: 0 });
    const deps = await w.deps({ env: { ...w.env, SSH_AUTH_SOCK: sock } });
    const { checks } = await selectTransport('win-a', await nodeCandidates({ clusterId: 'cl', node: 'win-a', prefer: 'ssh', acceptHostKeys: [target.ssh.hostKeyFingerprint] }, deps), new AbortController().signal);
    expect(checks[0]?.ok).toBe(true);
    // ssh2 tries "none", asks whether the key would do (no signature), then signs; no password is ever offered.
    expect([...new Set(target.ssh.server.authAttempts.map((a) => a.method))].sort()).toEqual(['none', 'publickey']);
    expect(target.ssh.server.authAttempts.at(-1)).toMatchObject({ method: 'publickey', accepted: true });
  });
});

describe('capability check: which transport works, and why not', () => {
  it('names refused, auth, host key, timeout and not-configured, and picks the first that works', async () => {
    const w = await world();
    const good = await sim('win-ok', '127.0.51.1');
    const held = new Set<net.Socket>();
    const silent = net.createServer((s) => void held.add(s)); // accepts TCP, never speaks SSH
    await new Promise<void>((r) => silent.listen(0, '127.0.51.2', () => r()));
    cleanups.push(() => new Promise<void>((r) => (held.forEach((s) => s.destroy()), silent.close(() => r()))));
    const closedPort = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.51.3', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const keyPath = path.join(w.home, 'k');
    fs.writeFileSync(keyPath, good.credentials.privateKey, { mode: 0o600 });
    const creds = new CredentialsRepo(w.store.db);
    creds.put(credential({ id: 'all', scope: 'cluster', selector: null, keyPath }));
    const endpoints = new NodeEndpointsRepo(w.store.db);
    const put = (node: string, host: string, port: number) => endpoints.put({ clusterId: 'cl', node, transport: 'ssh', host, port, options: {}, credentialId: null, source: 'override', updatedAt: 0 });
    put('n-refused', '127.0.51.3', closedPort);
    put('n-timeout', '127.0.51.2', (silent.address() as net.AddressInfo).port);
    put('n-hostkey', good.ssh.host, good.ssh.port);
    put('n-auth', good.ssh.host, good.ssh.port);
    creds.put(credential({ id: 'bad', scope: 'node', selector: 'n-auth', authKind: 'password', keyPath: null }));
    fs.writeFileSync(path.join(w.home, '.ssh', 'config'), 'Host *\n  ConnectTimeout 1\n');
    const deps = await w.deps({ env: { ...w.env, WINDECK_NODE_PASSWORD: 'not-it' } });
    const reasons: Record<string, string[]> = {};
    for (const node of ['n-refused', 'n-timeout', 'n-hostkey']) {
      const checks = await checkCandidates(await nodeCandidates({ clusterId: 'cl', node }, deps), new AbortController().signal);
      reasons[node] = checks.map((c) => `${c.transport}:${c.reason}`);
    }
    const e = await selectTransport('n-hostkey', await nodeCandidates({ clusterId: 'cl', node: 'n-hostkey' }, deps), new AbortController().signal).catch((x: unknown) => x);
    expect((e as WindeckError).code).toBe('HOST_KEY_UNKNOWN');
    expect((e as WindeckError).message).toMatch(/ssh: host-key-unknown .*winrm: not-configured/);
    // Accepting the fingerprint (stored from now on) gets past the host key; the wrong password then fails auth.
    const authChecks = await checkCandidates(await nodeCandidates({ clusterId: 'cl', node: 'n-auth', acceptHostKeys: [good.ssh.hostKeyFingerprint] }, deps), new AbortController().signal);
    reasons['n-auth'] = authChecks.map((c) => `${c.transport}:${c.reason}`);
    expect(reasons).toEqual({
      'n-refused': ['ssh:refused', 'winrm:not-configured'],
      'n-timeout': ['ssh:timeout', 'winrm:not-configured'],
      'n-hostkey': ['ssh:host-key-unknown', 'winrm:not-configured'],
      'n-auth': ['ssh:auth', 'winrm:not-configured'],
    });
    const picked = await selectTransport('n-hostkey', await nodeCandidates({ clusterId: 'cl', node: 'n-hostkey' }, deps), new AbortController().signal);
    expect(picked.transport.kind).toBe('ssh');
    // Another cluster: no credential set applies, ~/.ssh/config names no user: not configured.
    const none = await nodeCandidates({ clusterId: 'other', node: 'n-none' }, await w.deps());
    expect(none[0]).toMatchObject({ available: false, reason: 'not-configured' });
  });
});
