import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WindeckError } from '../../../shared/contract/errors';
import { runScript } from '../../../electron/services/powershell/invoke';
import { PinningVerifier } from '../../../electron/services/transports/ssh/host-keys';
import { SshTransport } from '../../../electron/services/transports/ssh/exec';
import { SshPool } from '../../../electron/services/transports/ssh/pool';
import type { SshTarget } from '../../../electron/services/transports/ssh/connect';
import { findHostEntries, hashHostName, knownHostsName, parseKnownHosts } from '../../../electron/services/transports/ssh/known-hosts';
import { openStore } from '../../../electron/services/store/database';
import { HostKeysRepo } from '../../../electron/services/store/repos/host-keys';
import { startWindowsNodeSimulator, type WindowsNodeSimulator } from '../../../electron/sim/windows-node/simulator';
import { publicKeyBlob } from '../../../electron/sim/windows-node/ssh-server';
import { tempDir } from '../../helpers/temp-dir';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sim(name = 'win-1', address = '127.0.10.11', scenario = 'healthy'): Promise<WindowsNodeSimulator> {
  const s = await startWindowsNodeSimulator({ name, address, scenario });
  cleanups.push(() => s.stop());
  return s;
}

function trustedVerifier(s: WindowsNodeSimulator): PinningVerifier {
  const line = `${knownHostsName(s.ssh.host, s.ssh.port)} ${s.ssh.hostKeyPublic}`;
  return new PinningVerifier({ knownHosts: parseKnownHosts(line, 'test-known-hosts') });
}

function pool(verifier: PinningVerifier, extra: Partial<ConstructorParameters<typeof SshPool>[0]> = {}): SshPool {
  const p = new SshPool({ verifier, ...extra });
  cleanups.push(() => p.dispose());
  return p;
}

function target(s: WindowsNodeSimulator, auth: 'key' | 'password' = 'key'): SshTarget {
  return {
    node: s.name,
    host: s.ssh.host,
    port: s.ssh.port,
    auth: auth === 'key' ? { username: s.credentials.username, privateKey: s.credentials.privateKey } : { username: s.credentials.username, password: s.credentials.password },
  };
}

describe('SSH transport against the Windows node simulator', () => {
  it('runs the services probe script and gets PowerShell 5.1 JSON back', async () => {
    const s = await sim();
    const t = new SshTransport(s.name, target(s), pool(trustedVerifier(s)));
    const result = await runScript(t, 'services', { names: ['kubelet', 'kube-proxy', 'flanneld', 'containerd'] }, { signal: new AbortController().signal });
    expect(result.exitCode).toBe(0);
    expect(result.transport).toBe('ssh');
    expect(result.stdout).toContain('\r\n');
    expect(result.stdout).toContain('"Name":  "kubelet"');
    const parsed = JSON.parse(result.stdout) as Array<{ Name: string; Status: number; StartType: number }>;
    expect(parsed.map((p) => p.Name).sort()).toEqual(['containerd', 'flanneld', 'kube-proxy', 'kubelet']);
    expect(parsed.every((p) => p.Status === 4 && p.StartType === 2)).toBe(true);
    expect(s.commandHost.invocations.at(-1)?.scriptId).toBe('services');
  });

  it('authenticates with a password too, and reuses one pooled connection for many runs', async () => {
    const s = await sim();
    const p = pool(trustedVerifier(s));
    const t = new SshTransport(s.name, target(s, 'password'), p);
    const runs = await Promise.all(Array.from({ length: 12 }, () => runScript(t, 'os', {}, { signal: new AbortController().signal })));
    expect(runs.every((r) => r.exitCode === 0 && r.stdout.includes('Windows Server 2022'))).toBe(true);
    expect(p.dials).toBe(1);
    expect(s.ssh.server.connectionCount).toBe(1);
  });

  it('refuses an unknown host key with no authentication attempt reaching the server', async () => {
    const s = await sim();
    const t = new SshTransport(s.name, target(s), pool(new PinningVerifier({})));
    const error = await runScript(t, 'services', { names: ['kubelet'] }, { signal: new AbortController().signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WindeckError);
    expect((error as WindeckError).code).toBe('HOST_KEY_UNKNOWN');
    expect((error as WindeckError).message).toContain(s.ssh.hostKeyFingerprint);
    expect(s.ssh.server.connectionCount).toBe(1);
    expect(s.ssh.server.authAttempts).toEqual([]);
    expect(s.commandHost.invocations).toEqual([]);
  });

  it('accepts an unknown key only by its exact SHA256 fingerprint, and remembers it in the store', async () => {
    const s = await sim();
    const tmp = tempDir();
    cleanups.push(() => tmp.cleanup());
    const store = openStore(path.join(tmp.dir, 'windeck.db'));
    cleanups.push(() => store.close());
    const repo = new HostKeysRepo(store.db);
    const wrong = new SshTransport(s.name, target(s), pool(new PinningVerifier({ store: repo, accept: [{ fingerprint: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }] })));
    const e1 = await runScript(wrong, 'os', {}, { signal: new AbortController().signal }).catch((e: unknown) => e);
    expect((e1 as WindeckError).code).toBe('HOST_KEY_UNKNOWN');
    expect(s.ssh.server.authAttempts).toEqual([]);

    const right = new SshTransport(s.name, target(s), pool(new PinningVerifier({ store: repo, accept: [{ host: s.ssh.host, port: s.ssh.port, fingerprint: s.ssh.hostKeyFingerprint }] })));
    expect((await runScript(right, 'os', {}, { signal: new AbortController().signal })).exitCode).toBe(0);
    expect(repo.list(s.ssh.host, s.ssh.port).map((k) => k.fingerprint)).toEqual([s.ssh.hostKeyFingerprint]);

    const later = new SshTransport(s.name, target(s), pool(new PinningVerifier({ store: repo })));
    expect((await runScript(later, 'os', {}, { signal: new AbortController().signal })).exitCode).toBe(0);
  });

  it('refuses a changed host key, sends nothing, and accepting its fingerprint does not help', async () => {
    const s = await sim();
    s.setFaults({ hostKeyChange: true });
    const line = `${knownHostsName(s.ssh.host, s.ssh.port)} ${s.ssh.hostKeyPublic}`;
    const verifier = new PinningVerifier({ knownHosts: parseKnownHosts(line, 'known'), accept: [{ fingerprint: s.ssh.server.alternateHostKeyFingerprint }] });
    const t = new SshTransport(s.name, target(s), pool(verifier));
    const error = await runScript(t, 'services', { names: ['kubelet'] }, { signal: new AbortController().signal }).catch((e: unknown) => e);
    expect((error as WindeckError).code).toBe('HOST_KEY_CHANGED');
    expect((error as WindeckError).message).toContain(s.ssh.server.alternateHostKeyFingerprint);
    expect((error as WindeckError).message).toContain(s.ssh.hostKeyFingerprint);
    expect(s.ssh.server.authAttempts).toEqual([]);
    expect(s.commandHost.invocations).toEqual([]);
  });

  it('reports refused connections, bad credentials and unknown users with their own codes', async () => {
    const s = await sim();
    const v = trustedVerifier(s);
    const closedPort = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(port));
      });
    });
    const refused = new SshTransport('gone', { node: 'gone', host: '127.0.0.1', port: closedPort, auth: { username: 'x', password: 'y' } }, pool(v));
    const e1 = await runScript(refused, 'os', {}, { signal: new AbortController().signal }).catch((e: unknown) => e);
    expect((e1 as WindeckError).code).toBe('UNREACHABLE');
    expect((e1 as WindeckError).message).toMatch(/refused/);

    const badPw = new SshTransport(s.name, { ...target(s, 'password'), auth: { username: s.credentials.username, password: 'wrong' } }, pool(v));
    const e2 = await runScript(badPw, 'os', {}, { signal: new AbortController().signal }).catch((e: unknown) => e);
    expect((e2 as WindeckError).code).toBe('AUTH_FAILED');
    expect((e2 as WindeckError).message).not.toContain('wrong');

    s.setFaults({ authFailure: true });
    const e3 = await runScript(new SshTransport(s.name, target(s), pool(v)), 'os', {}, { signal: new AbortController().signal }).catch((e: unknown) => e);
    expect((e3 as WindeckError).code).toBe('AUTH_FAILED');
  });

  it('cancel closes the channel promptly, and a stalled node hits the idle timeout', async () => {
    const s = await sim();
    s.setFaults({ stallAfterBytes: 10 });
    const t = new SshTransport(s.name, target(s), pool(trustedVerifier(s)));
    const ac = new AbortController();
    const started = Date.now();
    const p = runScript(t, 'services', { names: ['kubelet'] }, { signal: ac.signal, onStdout: () => ac.abort() }).catch((e: unknown) => e);
    const e = await p;
    expect((e as WindeckError).code).toBe('CANCELLED');
    expect(Date.now() - started).toBeLessThan(5000);

    const e2 = await runScript(t, 'services', { names: ['kubelet'] }, { signal: new AbortController().signal, timeouts: { idleMs: 300 } }).catch((x: unknown) => x);
    expect((e2 as WindeckError).code).toBe('TIMEOUT');
    expect((e2 as WindeckError).context?.step).toBe('idle');
  });

  it('separate stages: command timeout on slow output, output cap on huge output, handshake timeout on a silent peer', async () => {
    const s = await sim();
    s.setFaults({ slowOutput: { chunkBytes: 16, delayMs: 50 } });
    const t = new SshTransport(s.name, target(s), pool(trustedVerifier(s)));
    const slow = await runScript(t, 'hns-networks', {}, { signal: new AbortController().signal, timeouts: { commandMs: 400, idleMs: 5000 } }).catch((x: unknown) => x);
    expect((slow as WindeckError).code).toBe('TIMEOUT');
    expect((slow as WindeckError).context?.step).toBe('command');

    s.setFaults({ hugeOutputBytes: 2_000_000, scripts: ['files'] });
    const capped = new SshTransport(s.name, target(s), pool(trustedVerifier(s)), { maxOutputBytes: 200_000 });
    const huge = await runScript(capped, 'files', { paths: ['C:\\k\\kubelet.log'], maxBytes: 8_000_000 }, { signal: new AbortController().signal }).catch((x: unknown) => x);
    expect((huge as WindeckError).code).toBe('REMOTE_FAILED');
    expect((huge as WindeckError).context?.step).toBe('output');
    // Without the cap the same huge answer arrives whole.
    const whole = await runScript(t, 'files', { paths: ['C:\\k\\kubelet.log'], maxBytes: 8_000_000 }, { signal: new AbortController().signal });
    expect(whole.stdout.length).toBeGreaterThan(2_000_000);

    const held = new Set<net.Socket>();
    const silent = net.createServer((x) => void held.add(x));
    await new Promise<void>((r) => silent.listen(0, '127.0.10.40', () => r()));
    cleanups.push(() => new Promise<void>((r) => (held.forEach((x) => x.destroy()), silent.close(() => r()))));
    const mute = new SshTransport('mute', { node: 'mute', host: '127.0.10.40', port: (silent.address() as net.AddressInfo).port, auth: { username: 'x', password: 'y' } }, pool(trustedVerifier(s)));
    const started = Date.now();
    const hs = await runScript(mute, 'os', {}, { signal: new AbortController().signal, timeouts: { connectMs: 300 } }).catch((x: unknown) => x);
    expect((hs as WindeckError).code).toBe('TIMEOUT');
    expect((hs as WindeckError).context?.step).toBe('handshake');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('reports a connection dropped mid-output as UNREACHABLE, and keeps non-UTF-8 bytes visible', async () => {
    const s = await sim();
    s.setFaults({ dropAfterBytes: 40 });
    const t = new SshTransport(s.name, target(s), pool(trustedVerifier(s)));
    const e = await runScript(t, 'hns-networks', {}, { signal: new AbortController().signal }).catch((x: unknown) => x);
    expect((e as WindeckError).code).toBe('UNREACHABLE');
    expect((e as WindeckError).message).toMatch(/dropped|closed/);

    s.setFaults({ nonUtf8: true });
    const chunks: Buffer[] = [];
    const t2 = new SshTransport(s.name, target(s), pool(trustedVerifier(s)));
    const r = await runScript(t2, 'os', {}, { signal: new AbortController().signal, onStdout: (c) => chunks.push(c) });
    expect(Buffer.concat(chunks).subarray(0, 4)).toEqual(Buffer.from([0x43, 0x61, 0x66, 0xe9]));
    expect(r.stdout).toContain('\uFFFD');
  });

  it('unknown commands get the PowerShell "not recognized" error', async () => {
    const s = await sim();
    const p = pool(trustedVerifier(s));
    const lease = await p.lease(target(s), { connectTimeoutMs: 5000 });
    const out = await new Promise<{ code: number | null; err: string }>((resolve, reject) => {
      lease.connection.client.exec('Get-Secrets -All', (error, ch) => {
        if (error) return reject(error);
        let err = '';
        let code: number | null = null;
        ch.stderr.on('data', (d: Buffer) => (err += d.toString()));
        ch.on('exit', (c: number) => (code = c));
        ch.on('close', () => resolve({ code, err }));
        ch.resume();
      });
    });
    lease.release();
    expect(out.code).toBe(1);
    expect(out.err).toContain("The term 'Get-Secrets' is not recognized as the name of a cmdlet");
  });

  it('downloads a log file over SFTP as a stream', async () => {
    const s = await sim();
    const t = new SshTransport(s.name, target(s), pool(trustedVerifier(s)));
    const chunks: Buffer[] = [];
    const { Writable } = await import('node:stream');
    const sink = new Writable({ write: (c: Buffer, _e, cb) => (chunks.push(c), cb()) });
    const bytes = await t.download('C:\\k\\kubelet.log', sink, { signal: new AbortController().signal });
    expect(bytes).toBe(s.model.file('C:\\k\\kubelet.log')!.bytes.length);
    expect(Buffer.concat(chunks).toString()).toContain('Successfully registered node');
    const missing = await t.download('C:\\k\\nope.log', sink, { signal: new AbortController().signal }).catch((x: unknown) => x);
    expect((missing as WindeckError).code).toBe('NOT_FOUND');
  });
});

describe('known_hosts and fingerprints agree with OpenSSH tools', () => {
  it('hashed entries match exactly what ssh-keygen -F finds, and the fingerprint equals ssh-keygen -lf', async () => {
    const s = await sim('win-2', '127.0.10.12');
    const tmp = tempDir();
    cleanups.push(() => tmp.cleanup());
    const kh = path.join(tmp.dir, 'known_hosts');
    const other = await sim('win-3', '127.0.10.13');
    fs.writeFileSync(
      kh,
      [
        `${hashHostName(knownHostsName(s.ssh.host, s.ssh.port))} ${s.ssh.hostKeyPublic}`,
        `${hashHostName(knownHostsName(other.ssh.host, other.ssh.port))} ${other.ssh.hostKeyPublic}`,
        `[127.0.10.99]:2222,plain.example ${other.ssh.hostKeyPublic}`,
      ].join('\n') + '\n',
    );
    const entries = parseKnownHosts(fs.readFileSync(kh, 'utf8'), kh);
    for (const [host, port, lines] of [
      [s.ssh.host, s.ssh.port, [1]],
      [other.ssh.host, other.ssh.port, [2]],
      ['127.0.10.99', 2222, [3]],
      ['plain.example', 22, [3]],
      ['127.0.10.77', 22, []],
      [s.ssh.host, 22, []],
    ] as const) {
      const name = knownHostsName(host, port);
      let keygenLines: number[] = [];
      try {
        const out = execFileSync('ssh-keygen', ['-F', name, '-f', kh], { encoding: 'utf8' });
        keygenLines = [...out.matchAll(/^# Host .* found: line (\d+)/gm)].map((m) => Number(m[1]));
      } catch {
        keygenLines = [];
      }
      const ours = findHostEntries(entries, host, port).map((e) => e.line);
      expect(ours, name).toEqual(keygenLines);
      expect(ours, name).toEqual(lines);
    }
    const pub = path.join(tmp.dir, 'host.pub');
    fs.writeFileSync(pub, s.ssh.hostKeyPublic + ' sim\n');
    const lf = execFileSync('ssh-keygen', ['-lf', pub], { encoding: 'utf8' });
    expect(lf.split(' ')[1]).toBe(s.ssh.hostKeyFingerprint);
    expect(publicKeyBlob(s.ssh.hostKeyPublic).length).toBeGreaterThan(0);

    // The verifier uses the same matching: the hashed file trusts the node.
    const t = new SshTransport(s.name, target(s), pool(new PinningVerifier({ knownHosts: entries })));
    expect((await runScript(t, 'os', {}, { signal: new AbortController().signal })).exitCode).toBe(0);
  });
});

