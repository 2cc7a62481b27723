import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AccessCheckResult } from '../../../shared/contract/methods/access';
import type { Result } from '../../../shared/contract/result';
import { KeyedSecretStore } from '../../../electron/services/lib/secret-store';
import { nullSink } from '../../../electron/services/lib/log';
import { createServices, type Services } from '../../../electron/services/create-services';
import { startWindowsNodeSimulator, type WindowsNodeSimulator } from '../../../electron/sim/windows-node/simulator';
import { startWinrmEndpoint } from '../../../electron/sim/windows-node/winrm-server';
import { tempDir } from '../../helpers/temp-dir';

/**
 * Per-node access configuration through the contract (credentials, endpoints, host keys) and the capability
 * check against the Windows node simulator on loopback: works, auth failure, unknown host key (no login sent),
 * changed host key, refused port, timeout (a blackholed listener), not configured; WinRM NTLM over HTTP.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const SECRET_KEY = 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1';

interface World {
  services: Services;
  dir: string;
  call<T = unknown>(method: string, input: unknown): Promise<Result<T>>;
  ok<T = unknown>(method: string, input: unknown): Promise<T>;
}

function world(opts: { secretStore?: boolean } = {}): World {
  const tmp = tempDir();
  const userHome = path.join(tmp.dir, 'user');
  fs.mkdirSync(userHome, { recursive: true });
  const services = createServices({
    home: path.join(tmp.dir, 'home'),
    host: 'test',
    version: '0.0.0-test',
    logSink: nullSink,
    env: { HOME: userHome, PATH: process.env.PATH ?? '' },
    secretStore: opts.secretStore === false ? null : new KeyedSecretStore(SECRET_KEY),
  });
  cleanups.push(async () => {
    await services.dispose();
    tmp.cleanup();
  });
  const call = <T>(method: string, input: unknown) => services.dispatch(method, input, { host: 'test' }) as Promise<Result<T>>;
  return {
    services,
    dir: tmp.dir,
    call,
    async ok<T>(method: string, input: unknown): Promise<T> {
      const r = await call<T>(method, input);
      if (!r.ok) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
      return r.value;
    },
  };
}

async function sim(name: string, address: string): Promise<WindowsNodeSimulator> {
  const s = await startWindowsNodeSimulator({ name, address });
  cleanups.push(() => s.stop());
  return s;
}

/** Register an SSH key credential + endpoint for a simulated node. */
async function keyAccess(w: World, s: WindowsNodeSimulator): Promise<void> {
  const keyPath = path.join(w.dir, `${s.name}.key`);
  fs.writeFileSync(keyPath, s.credentials.privateKey, { mode: 0o600 });
  await w.ok('credentials:set', {
    cluster: 'cl',
    name: `${s.name}-key`,
    kind: 'ssh-key',
    scope: 'node',
    selector: s.name,
    username: s.credentials.username,
    keyPath,
  });
  await w.ok('endpoints:set', { cluster: 'cl', node: s.name, transport: 'ssh', host: s.ssh.host, port: s.ssh.port, credential: `${s.name}-key` });
}

async function check(w: World, node: string, extra: Record<string, unknown> = {}): Promise<AccessCheckResult> {
  return w.ok<AccessCheckResult>('nodes:access-check', { cluster: 'cl', node, ...extra });
}

describe('nodes:access-check against the simulator', () => {
  it('unknown host key: refused with its SHA256 fingerprint and no login sent; accepted by fingerprint, then works', async () => {
    const w = world();
    const s = await sim('win-a', '127.0.61.1');
    await keyAccess(w, s);
    const first = await check(w, 'win-a');
    expect(first.works).toBeNull();
    expect(first.checks[0]).toMatchObject({
      transport: 'ssh',
      outcome: 'host-key-unknown',
      ok: false,
      fingerprint: s.ssh.hostKeyFingerprint,
      credential: 'win-a-key',
      username: s.credentials.username,
    });
    expect(first.checks[0]!.message).toContain(s.ssh.hostKeyFingerprint);
    expect(first.checks[1]).toMatchObject({ transport: 'winrm', outcome: 'not-configured' });
    expect(s.ssh.server.authAttempts).toEqual([]);

    // A wrong fingerprint is refused and nothing is stored.
    const wrong = await w.call('hostkeys:accept', { cluster: 'cl', node: 'win-a', fingerprint: 'SHA256:' + 'A'.repeat(43) });
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) {
      expect(wrong.error.code).toBe('VALIDATION');
      expect(wrong.error.message).toContain(s.ssh.hostKeyFingerprint);
    }
    expect(await w.ok<unknown[]>('hostkeys:list', {})).toEqual([]);
    expect(s.ssh.server.authAttempts).toEqual([]);

    const accepted = await w.ok<{ fingerprint: string; host: string; port: number }>('hostkeys:accept', {
      cluster: 'cl',
      node: 'win-a',
      fingerprint: s.ssh.hostKeyFingerprint,
    });
    expect(accepted).toMatchObject({ fingerprint: s.ssh.hostKeyFingerprint, host: s.ssh.host, port: s.ssh.port });
    const second = await check(w, 'win-a');
    expect(second.works).toBe('ssh');
    expect(second.checks[0]).toMatchObject({ outcome: 'works', ok: true, fingerprint: null });
    expect(s.commandHost.invocations.map((i) => i.scriptId)).toContain('os');

    // The node is reinstalled: its key changes; always refused, nothing sent.
    const attempts = s.ssh.server.authAttempts.length;
    s.setFaults({ hostKeyChange: true });
    const changed = await check(w, 'win-a');
    expect(changed.checks[0]).toMatchObject({ outcome: 'host-key-changed', ok: false });
    expect(changed.checks[0]!.fingerprint).toMatch(/^SHA256:/);
    expect(changed.checks[0]!.fingerprint).not.toBe(s.ssh.hostKeyFingerprint);
    expect(s.ssh.server.authAttempts.length).toBe(attempts);
    // Forgetting the old key makes it "unknown" again (never silently trusted).
    expect((await w.ok<{ removed: number }>('hostkeys:forget', { fingerprint: s.ssh.hostKeyFingerprint })).removed).toBe(1);
    expect((await check(w, 'win-a')).checks[0]!.outcome).toBe('host-key-unknown');
  });

  it('auth failure: a wrong password (sealed in the store) is reported as auth; the right one works', async () => {
    const w = world();
    const s = await sim('win-b', '127.0.61.2');
    await w.ok('credentials:set', {
      cluster: 'cl',
      name: 'pw',
      kind: 'ssh-password',
      scope: 'node',
      selector: 'win-b',
      username: s.credentials.username,
      secret: 'not-the-password',
    });
    await w.ok('endpoints:set', { cluster: 'cl', node: 'win-b', transport: 'ssh', host: s.ssh.host, port: s.ssh.port });
    await w.ok('hostkeys:accept', { host: s.ssh.host, port: s.ssh.port, fingerprint: s.ssh.hostKeyFingerprint });
    const bad = await check(w, 'win-b', { transport: 'ssh' });
    expect(bad.checks).toHaveLength(1);
    expect(bad.checks[0]).toMatchObject({ outcome: 'auth', credential: 'pw' });
    expect(bad.checks[0]!.message).toContain(s.credentials.username);
    expect(bad.checks[0]!.message).not.toContain('not-the-password');
    // The secret never reaches the store in clear, nor the list.
    const raw = w.services.core.store.db.prepare('SELECT secret_blob FROM credentials').pluck().get() as Buffer;
    expect(raw.includes(Buffer.from('not-the-password'))).toBe(false);
    const listed = await w.ok<Array<Record<string, unknown>>>('credentials:list', { cluster: 'cl' });
    expect(JSON.stringify(listed)).not.toContain('not-the-password');
    expect(listed[0]).toMatchObject({ name: 'pw', kind: 'ssh-password', hasSecret: true, secretStoreKind: 'env-key' });

    await w.ok('credentials:set', {
      cluster: 'cl',
      name: 'pw',
      kind: 'ssh-password',
      scope: 'node',
      selector: 'win-b',
      username: s.credentials.username,
      secret: s.credentials.password,
    });
    expect((await check(w, 'win-b', { transport: 'ssh' })).checks[0]).toMatchObject({ outcome: 'works' });
  });

  it('refused port, timeout on a blackholed listener, and not configured', async () => {
    const w = world();
    const s = await sim('win-c', '127.0.61.3');
    const keyPath = path.join(w.dir, 'k');
    fs.writeFileSync(keyPath, s.credentials.privateKey, { mode: 0o600 });
    await w.ok('credentials:set', { cluster: 'cl', name: 'k', kind: 'ssh-key', scope: 'cluster', username: 'Administrator', keyPath });

    // A port nobody listens on.
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.61.4', () => r()));
    const freePort = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    await w.ok('endpoints:set', { cluster: 'cl', node: 'win-refused', transport: 'ssh', host: '127.0.61.4', port: freePort });
    const refused = await check(w, 'win-refused');
    expect(refused.checks[0]).toMatchObject({ outcome: 'refused', credential: 'k' });
    expect(refused.checks[0]!.message).toMatch(/refused/);

    // A listener that accepts and never speaks (a blackholed peer).
    const sockets = new Set<net.Socket>();
    const hole = net.createServer((sock) => void sockets.add(sock));
    await new Promise<void>((r) => hole.listen(0, '127.0.61.5', () => r()));
    cleanups.push(
      () =>
        new Promise<void>((r) => {
          for (const x of sockets) x.destroy();
          hole.close(() => r());
        }),
    );
    await w.ok('endpoints:set', { cluster: 'cl', node: 'win-hole', transport: 'ssh', host: '127.0.61.5', port: (hole.address() as net.AddressInfo).port });
    const started = Date.now();
    const timeout = await check(w, 'win-hole', { connectTimeoutMs: 600 });
    expect(timeout.checks[0]).toMatchObject({ outcome: 'timeout' });
    expect(timeout.checks[0]!.message).toMatch(/600 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);

    // An unknown node: NOT_FOUND; a known node without WinRM: not-configured with what to do.
    const unknown = await w.call('nodes:access-check', { cluster: 'cl', node: 'nope' });
    expect(!unknown.ok && unknown.error.code).toBe('NOT_FOUND');
    expect(refused.checks[1]).toMatchObject({ transport: 'winrm', outcome: 'not-configured' });
    expect(refused.checks[1]!.message).toContain('windeck endpoints set');
  });

  it('WinRM: NTLM over HTTP works; Basic over HTTP is refused at set time; a pinned thumbprint over HTTPS works', async () => {
    const w = world();
    const s = await sim('win-d', '127.0.61.6');
    const http = await startWinrmEndpoint({
      address: '127.0.61.6',
      commandHost: s.commandHost,
      credentials: { username: s.credentials.username, password: s.credentials.password },
    });
    cleanups.push(() => http.stop());
    const port = Number(new URL(http.url).port);
    await w.ok('credentials:set', {
      cluster: 'cl',
      name: 'ntlm',
      kind: 'winrm-ntlm',
      scope: 'node-group',
      selector: 'win-*',
      username: s.credentials.username,
      secret: s.credentials.password,
    });
    await w.ok('endpoints:set', { cluster: 'cl', node: 'win-d', transport: 'winrm', host: '127.0.61.6', port });
    const r = await check(w, 'win-d', { transport: 'winrm' });
    expect(r.checks[0]).toMatchObject({ transport: 'winrm', outcome: 'works', credential: 'ntlm' });

    await w.ok('credentials:set', {
      cluster: 'cl',
      name: 'basic',
      kind: 'winrm-basic-https',
      scope: 'node',
      selector: 'win-d',
      username: s.credentials.username,
      secret: s.credentials.password,
    });
    const refused = await w.call('endpoints:set', { cluster: 'cl', node: 'win-d', transport: 'winrm', host: '127.0.61.6', port, credential: 'basic' });
    expect(!refused.ok && refused.error.code).toBe('VALIDATION');
    expect(!refused.ok && refused.error.message).toMatch(/HTTPS/);

    const https = await startWinrmEndpoint({
      address: '127.0.61.7',
      commandHost: s.commandHost,
      https: true,
      credentials: { username: s.credentials.username, password: s.credentials.password },
    });
    cleanups.push(() => https.stop());
    const e = await w.ok<{ url: string }>('endpoints:set', {
      cluster: 'cl',
      node: 'win-d',
      transport: 'winrm',
      host: '127.0.61.7',
      port: Number(new URL(https.url).port),
      credential: 'basic',
      winrm: { pinnedSha256: https.certThumbprint! },
    });
    expect(e.url).toMatch(/^https:/);
    const viaHttps = await check(w, 'win-d', { transport: 'winrm' });
    expect(viaHttps.checks[0]).toMatchObject({ outcome: 'works', credential: 'basic' });
  });

  it('without a secret store, a secret is refused plainly and nothing is stored', async () => {
    const w = world({ secretStore: false });
    const r = await w.call('credentials:set', {
      cluster: 'cl',
      name: 'pw',
      kind: 'ssh-password',
      scope: 'cluster',
      username: 'Administrator',
      secret: 'hunter2',
    });
    expect(!r.ok && r.error.code).toBe('STORE_UNAVAILABLE');
    expect(!r.ok && r.error.message).toMatch(/WINDECK_SECRET_KEY/);
    expect(!r.ok && r.error.message).not.toContain('hunter2');
    expect(await w.ok<unknown[]>('credentials:list', { allClusters: true })).toEqual([]);
    // Without the secret it is stored (asked or taken from the environment at run time).
    const saved = await w.ok<{ hasSecret: boolean }>('credentials:set', {
      cluster: 'cl',
      name: 'pw',
      kind: 'ssh-password',
      scope: 'cluster',
      username: 'Administrator',
    });
    expect(saved.hasSecret).toBe(false);
  });
});

describe('ssh_config keepalive', () => {
  it('ServerAliveInterval / ServerAliveCountMax from ~/.ssh/config bound the detection of a blackholed peer', async () => {
    const w = world();
    const s = await sim('win-ka', '127.0.61.8');
    let silent = false;
    const sockets = new Set<net.Socket>();
    const relay = net.createServer((client) => {
      const up = net.connect(s.ssh.port, s.ssh.host);
      sockets.add(client).add(up);
      client.on('data', (d) => void (silent || up.write(d)));
      up.on('data', (d) => void (silent || client.write(d)));
      const end = () => {
        client.destroy();
        up.destroy();
      };
      client.on('error', end).on('close', end);
      up.on('error', end).on('close', end);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', () => r()));
    cleanups.push(
      () =>
        new Promise<void>((r) => {
          for (const x of sockets) x.destroy();
          relay.close(() => r());
        }),
    );
    const port = (relay.address() as net.AddressInfo).port;
    const env = w.services.core.config.env!;
    const keyPath = path.join(env.HOME!, 'win_key');
    fs.writeFileSync(keyPath, s.credentials.privateKey, { mode: 0o600 });
    fs.mkdirSync(path.join(env.HOME!, '.ssh'), { recursive: true });
    fs.writeFileSync(
      path.join(env.HOME!, '.ssh', 'config'),
      `Host win-ka\n  HostName 127.0.0.1\n  Port ${port}\n  User ${s.credentials.username}\n  IdentityFile ${keyPath}\n  ServerAliveInterval 1\n  ServerAliveCountMax 1\n`,
    );
    fs.writeFileSync(path.join(env.HOME!, '.ssh', 'known_hosts'), `[127.0.0.1]:${port} ${s.ssh.hostKeyPublic}\n`);
    // The endpoint names the ~/.ssh/config alias: it resolves to the block's HostName, as ssh does.
    await w.ok('endpoints:set', { cluster: 'cl', node: 'win-ka', transport: 'ssh', host: 'win-ka', port });

    const { nodeCandidates } = await import('../../../electron/services/transports/node-access');
    const { runScript } = await import('../../../electron/services/powershell/invoke');
    const { probeService } = await import('../../../electron/services/probes/probe-service');
    const ps = probeService(w.services.core);
    const { createSshAccess } = await import('../../../electron/services/transports/node-access');
    const ssh = await createSshAccess(ps.hostKeys, env);
    cleanups.push(() => ssh.pool.dispose());
    const [candidate] = await nodeCandidates(
      { clusterId: 'cl', node: 'win-ka', prefer: 'ssh' },
      { env, endpoints: ps.endpoints, credentials: ps.credentials, hostKeys: ps.hostKeys, secretStore: null, sshPool: ssh.pool, verifier: ssh.verifier },
    );
    expect(candidate!.available).toBe(true);
    if (!candidate!.available) return;
    const t = candidate!.open();
    expect((await runScript(t, 'os', {}, { signal: new AbortController().signal })).exitCode).toBe(0);
    silent = true;
    const started = Date.now();
    const error = (await runScript(
      t,
      'services',
      { names: ['kubelet'] },
      { signal: new AbortController().signal, timeouts: { idleMs: 30_000, commandMs: 60_000 } },
    ).catch((e: unknown) => e)) as { code: string; context?: { step?: string } };
    const took = Date.now() - started;
    expect(error.code).toBe('UNREACHABLE');
    expect(error.context?.step).toBe('keepalive');
    // 1 s x (1 + 1) = 2 s bound (the pool default would be 10 s x 4 = 40 s).
    expect(took).toBeLessThan(2_000 + 1_500);
  });
});
