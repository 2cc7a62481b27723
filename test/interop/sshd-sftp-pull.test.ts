import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { SFTPWrapper } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PinningVerifier } from '../../electron/services/transports/ssh/host-keys';
import { SshTransport } from '../../electron/services/transports/ssh/exec';
import { knownHostsName, parseKnownHosts } from '../../electron/services/transports/ssh/known-hosts';
import { SshPool } from '../../electron/services/transports/ssh/pool';
import { sftpReadSize } from '../../electron/services/transports/ssh/sftp-read';
import { generateKeyPair, publicKeyLine } from '../../electron/sim/windows-node/ssh-server';
import { tempDir, waitFor } from '../helpers/temp-dir';
// @ts-expect-error plain JavaScript helper shared with bench/pull.mjs and bench/fanout.mjs
import { sshdConfigText } from './sshd-harness.mjs';

/**
 * Interop: a log pulled over SFTP from the real OpenSSH sshd (internal-sftp in a chroot that holds
 * `C:/logs/big.log`, the Windows OpenSSH layout), as bench/pull.mjs does: the bytes arrive intact (sha256) into a
 * file stream (READ buffers reused) and into a plain stream, and ssh2 knows the server's max read length
 * (`limits@openssh.com`), which the first READs are sized from. Needs root (sshd chroot) and sshd.
 */

const SIZE = 24 * 1024 * 1024 + 12_345;
const clientKey = generateKeyPair('windeck-sftp-interop').privateKey;
const user = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();
let tmp: { dir: string; cleanup(): void };
let chroot: string;
let sshd: ChildProcess;
let port: number;
let hostKeyPublic: string;
let sourceHash: string;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

beforeAll(async () => {
  tmp = tempDir('windeck-sftp-interop-');
  // ChrootDirectory: every path component root-owned and not group/world-writable (so not under /tmp).
  chroot = fs.mkdtempSync('/run/windeck-sftp-interop-');
  fs.chmodSync(chroot, 0o755);
  fs.mkdirSync(path.join(chroot, 'C:', 'logs'), { recursive: true });
  const source = path.join(chroot, 'C:', 'logs', 'big.log');
  const fd = fs.openSync(source, 'w');
  const hash = crypto.createHash('sha256');
  for (let left = SIZE; left > 0;) {
    const block = crypto.randomBytes(Math.min(left, 1024 * 1024));
    fs.writeSync(fd, block);
    hash.update(block);
    left -= block.length;
  }
  fs.closeSync(fd);
  sourceHash = hash.digest('hex');
  const hostKey = path.join(tmp.dir, 'ssh_host_ed25519_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'windeck-sftp-interop-host', '-f', hostKey]);
  hostKeyPublic = fs.readFileSync(`${hostKey}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
  const authorized = path.join(tmp.dir, 'authorized_keys');
  fs.writeFileSync(authorized, publicKeyLine(clientKey) + '\n', { mode: 0o600 });
  port = await freePort();
  const config = path.join(tmp.dir, 'sshd_config');
  fs.writeFileSync(
    config,
    sshdConfigText({
      listen: [{ host: '127.0.0.1', port }],
      hostKey,
      pidFile: path.join(tmp.dir, 'sshd.pid'),
      authorizedKeysFile: authorized,
      extra: ['Subsystem sftp internal-sftp', 'ForceCommand internal-sftp', `ChrootDirectory ${chroot}`],
    }),
  );
  const sshdBin = ['/usr/sbin/sshd', '/usr/local/sbin/sshd'].find((p) => fs.existsSync(p));
  if (!sshdBin) throw new Error('OpenSSH sshd is not installed: apt-get install -y openssh-server');
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  execFileSync(sshdBin, ['-t', '-f', config]);
  const log = fs.openSync(path.join(tmp.dir, 'sshd.log'), 'a');
  sshd = spawn(sshdBin, ['-D', '-e', '-f', config], { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1');
        s.once('connect', () => (s.destroy(), resolve(true)));
        s.once('error', () => resolve(false));
      }).then((up) => up || null),
    10_000,
    50,
  );
});

afterAll(async () => {
  if (sshd && sshd.exitCode === null && sshd.signalCode === null) {
    const exited = new Promise((r) => sshd.once('exit', r));
    sshd.kill('SIGTERM');
    await exited;
  }
  tmp?.cleanup();
  if (chroot) fs.rmSync(chroot, { recursive: true, force: true });
});

function newPool(): SshPool {
  const knownHosts = parseKnownHosts(`${knownHostsName('127.0.0.1', port)} ${hostKeyPublic}\n`, 'sftp-interop-known-hosts');
  return new SshPool({ verifier: new PinningVerifier({ knownHosts }) });
}

function target() {
  return { node: 'win-sftp', host: '127.0.0.1', port, auth: { username: user, privateKey: clientKey } };
}

describe('SFTP pull from real OpenSSH sshd', () => {
  it('pulls a 24 MB log intact into a file stream and into a plain stream', async () => {
    const pool = newPool();
    try {
      const t = new SshTransport('win-sftp', target(), pool);
      const dest = path.join(tmp.dir, 'pulled.log');
      const file = fs.createWriteStream(dest);
      let progress = 0;
      const bytes = await t.download('C:\\logs\\big.log', file, { signal: new AbortController().signal, onProgress: (n) => (progress += n) });
      await new Promise<void>((resolve, reject) => file.end((e?: Error | null) => (e ? reject(e) : resolve())));
      expect(bytes).toBe(SIZE);
      expect(progress).toBe(SIZE);
      expect(crypto.createHash('sha256').update(fs.readFileSync(dest)).digest('hex')).toBe(sourceHash);

      const hash = crypto.createHash('sha256');
      let seen = 0;
      const sink = new Writable({
        write(chunk: Buffer, _e, cb) {
          hash.update(chunk);
          seen += chunk.length;
          cb();
        },
      });
      expect(await t.download('C:\\logs\\big.log', sink, { signal: new AbortController().signal })).toBe(SIZE);
      expect(seen).toBe(SIZE);
      expect(hash.digest('hex')).toBe(sourceHash);
    } finally {
      await pool.dispose();
    }
  });

  it('ssh2 learned the server read limit (limits@openssh.com) that sizes the first READs', async () => {
    const pool = newPool();
    try {
      const lease = await pool.lease(target(), { connectTimeoutMs: 10_000, signal: new AbortController().signal });
      try {
        const sftp = await new Promise<SFTPWrapper>((resolve, reject) => lease.connection.client.sftp((e, s) => (e ? reject(e) : resolve(s))));
        // OpenSSH 9.x answers READs up to 256 KiB - 1 KiB; ssh2 keeps that in `_maxReadLen`. If ssh2 renames the
        // field, the first READs fall back to the preferred size and this says so.
        const known = (sftp as unknown as { _maxReadLen?: unknown })._maxReadLen;
        expect(typeof known).toBe('number');
        expect(sftpReadSize(sftp, 1024 * 1024)).toBe(known);
        expect(known as number).toBeGreaterThan(64 * 1024);
        sftp.end();
      } finally {
        lease.release();
      }
    } finally {
      await pool.dispose();
    }
  });
});
