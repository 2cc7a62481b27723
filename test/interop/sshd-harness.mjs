// A real OpenSSH sshd on 127.0.0.1 with a generated config and keys, in front of the Windows node simulator
// (via sshd's ForceCommand and the simulator's command relay). Used by test/interop/sshd.test.ts and
// bench/fanout.mjs. Plain JavaScript so the benchmark can use it without a TypeScript step.
/* global process, setTimeout, clearTimeout */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const SSHD_INSTALL_HINT = 'apt-get install -y openssh-server (Debian package openssh-server provides /usr/sbin/sshd)';

/** Absolute path of sshd, or throw with the install command. */
export function findSshd() {
  for (const p of ['/usr/sbin/sshd', '/usr/local/sbin/sshd', '/sbin/sshd']) if (fs.existsSync(p)) return p;
  throw new Error(`OpenSSH sshd is not installed: ${SSHD_INSTALL_HINT}`);
}

function freePort(host) {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const port = s.address().port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * The sshd_config every loopback sshd of the tests and benches shares: listen addresses, host key, pid file, one
 * authorized_keys file, public-key login only (no PAM, no passwords, no forwarding, no TTY), then `extra` lines
 * (ForceCommand, ChrootDirectory, Ciphers, limits...).
 */
export function sshdConfigText({ listen, hostKey, pidFile, authorizedKeysFile, extra = [] }) {
  return [
    ...listen.map((a) => `ListenAddress ${a.host}:${a.port}`),
    `HostKey ${hostKey}`,
    `PidFile ${pidFile}`,
    `AuthorizedKeysFile ${authorizedKeysFile}`,
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    'StrictModes no',
    'PermitRootLogin prohibit-password',
    'AllowTcpForwarding no',
    'X11Forwarding no',
    'PermitTTY no',
    ...extra,
    '',
  ].join('\n');
}

/**
 * Start sshd. `relay` is {host, port} of the simulator's command relay; `authorizedKeys` are public key lines
 * for the current user. Resolves once sshd listens. `stop()` kills it and waits. `forceCommand` replaces the
 * relay helper with another command line (the fan-out benchmark replays recorded answers with `/bin/sh`).
 */
export async function startSshd({
  dir,
  relay,
  authorizedKeys,
  helperPath,
  nodePath = process.execPath,
  maxSessions = 64,
  maxStartups = '512:30:1024',
  listen = null,
  hostKey: givenHostKey = null,
  forceCommand = null,
  logLevel = 'VERBOSE',
  // Scheduling niceness of sshd and everything it starts (benchmarks: simulated nodes that would be other machines
  // in a real cluster should not take CPU from the process measured); 0 = as the caller runs.
  nice = 0,
}) {
  const sshd = findSshd();
  fs.mkdirSync(dir, { recursive: true });
  // Privilege separation directory Debian's sshd insists on.
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  // sshd accepts at most 16 ListenAddress sockets per process.
  if (listen && listen.length > 16) throw new Error('one sshd listens on at most 16 addresses');
  const hostKey = givenHostKey ?? path.join(dir, 'ssh_host_ed25519_key');
  if (!fs.existsSync(hostKey)) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'windeck-interop-host', '-f', hostKey]);
  fs.chmodSync(hostKey, 0o600);
  const authorized = path.join(dir, 'authorized_keys');
  fs.writeFileSync(authorized, authorizedKeys.join('\n') + '\n', { mode: 0o600 });
  const logFile = path.join(dir, 'sshd.log');
  let lastError = null;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const port = listen ? listen[0].port : await freePort('127.0.0.1');
    const addresses = listen ?? [{ host: '127.0.0.1', port }];
    const config = path.join(dir, 'sshd_config');
    fs.writeFileSync(
      config,
      sshdConfigText({
        listen: addresses,
        hostKey,
        pidFile: path.join(dir, 'sshd.pid'),
        authorizedKeysFile: authorized,
        extra: [
          `LogLevel ${logLevel}`,
          `MaxSessions ${maxSessions}`,
          `MaxStartups ${maxStartups}`,
          `ForceCommand ${forceCommand ?? `${nodePath} ${helperPath} ${relay.host}:${relay.port}`}`,
        ],
      }),
    );
    execFileSync(sshd, ['-t', '-f', config]);
    const log = fs.openSync(logFile, 'a');
    // `nice` execs sshd in place: the child's pid is sshd's.
    const child =
      nice > 0
        ? spawn('nice', ['-n', String(nice), sshd, '-D', '-e', '-f', config], { stdio: ['ignore', log, log] })
        : spawn(sshd, ['-D', '-e', '-f', config], { stdio: ['ignore', log, log] });
    fs.closeSync(log);
    const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
    const up = await Promise.race([
      (async () => {
        const deadline = Date.now() + 10_000;
        while (Date.now() < deadline) {
          const ok = await new Promise((r) => {
            const s = net.connect(addresses[0].port, addresses[0].host);
            s.once('connect', () => (s.destroy(), r(true)));
            s.once('error', () => r(false));
          });
          if (ok) return true;
          await new Promise((r) => setTimeout(r, 50));
        }
        return false;
      })(),
      exited.then(() => false),
    ]);
    if (!up) {
      child.kill('SIGKILL');
      if (listen) throw new Error(`sshd did not start: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
      lastError = new Error(`sshd did not start: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
      continue;
    }
    return {
      port,
      host: addresses[0].host,
      addresses,
      hostKeyPath: hostKey,
      hostKeyPublic: fs
        .readFileSync(hostKey + '.pub', 'utf8')
        .trim()
        .split(/\s+/)
        .slice(0, 2)
        .join(' '),
      log: () => fs.readFileSync(logFile, 'utf8'),
      pid: child.pid,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const t = setTimeout(() => child.kill('SIGKILL'), 3000);
          await exited;
          clearTimeout(t);
        }
      },
    };
  }
  throw lastError ?? new Error('sshd did not start');
}

/** A free TCP port on `host` (bind 0, read, close). */
export { freePort };

export function tempDir(prefix = 'windeck-sshd-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
