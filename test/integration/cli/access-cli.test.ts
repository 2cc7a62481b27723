import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../electron/cli/main';
import { openStore } from '../../../electron/services/store/database';
import { startWindowsNodeSimulator, type WindowsNodeSimulator } from '../../../electron/sim/windows-node/simulator';
import { tempDir } from '../../helpers/temp-dir';

/** `windeck credentials / endpoints / access` end to end through the real CLI, and the password prompt retry. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const SECRET_KEY = 'windeck-test-secret-key-0123456789';

interface Setup {
  dir: string;
  home: string;
  kubeconfig: string;
  sim: WindowsNodeSimulator;
  env: NodeJS.ProcessEnv;
}

async function setup(address: string, env: NodeJS.ProcessEnv = { WINDECK_SECRET_KEY: SECRET_KEY }): Promise<Setup> {
  const tmp = tempDir();
  cleanups.push(() => tmp.cleanup());
  const home = path.join(tmp.dir, 'home');
  const userHome = path.join(tmp.dir, 'user');
  fs.mkdirSync(userHome, { recursive: true });
  const kubeconfig = path.join(tmp.dir, 'kubeconfig');
  // Never contacted: the commands need the cluster id only.
  fs.writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: sim',
      'clusters:',
      '- name: sim',
      '  cluster:',
      '    server: https://127.0.0.1:9',
      'users:',
      '- name: u',
      '  user:',
      '    token: abc',
      'contexts:',
      '- name: sim',
      '  context:',
      '    cluster: sim',
      '    user: u',
      '',
    ].join('\n'),
  );
  const sim = await startWindowsNodeSimulator({ name: 'win-1', address });
  cleanups.push(() => sim.stop());
  return { dir: tmp.dir, home, kubeconfig, sim, env: { HOME: userHome, PATH: process.env.PATH ?? '', ...env } };
}

interface CliOptions {
  stdin?: string;
  prompt?: (q: string, o: { echo: boolean }) => Promise<string | null>;
}

async function cli(s: Setup, args: string[], opts: CliOptions = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    [...args, '--home', s.home, '--kubeconfig', s.kubeconfig],
    {
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
      stdinIsTTY: opts.prompt !== undefined,
      env: s.env,
      ...(opts.prompt ? { prompt: opts.prompt } : {}),
      ...(opts.stdin !== undefined ? { stdin: Readable.from([opts.stdin]) } : {}),
    },
    new AbortController().signal,
  );
  return { code, stdout, stderr };
}

describe('windeck credentials / endpoints / access', () => {
  it('configures a node from nothing and checks it: key credential, endpoint, host key by fingerprint', async () => {
    const s = await setup('127.0.62.1');
    const keyPath = path.join(s.dir, 'id_win');
    fs.writeFileSync(keyPath, s.sim.credentials.privateKey, { mode: 0o600 });

    const add = await cli(s, [
      'credentials',
      'add',
      'win-key',
      '--kind',
      'ssh-key',
      '--user',
      s.sim.credentials.username,
      '--key',
      keyPath,
      '--group',
      'win-*',
      '--json',
    ]);
    expect(add.stderr).toBe('');
    expect(add.code).toBe(0);
    expect(JSON.parse(add.stdout)).toMatchObject({ name: 'win-key', kind: 'ssh-key', scope: 'node-group', selector: 'win-*', hasSecret: false });

    const ep = await cli(s, ['endpoints', 'set', 'win-1', '--transport', 'ssh', '--host', s.sim.ssh.host, '--port', String(s.sim.ssh.port), '--json']);
    expect(ep.code).toBe(0);
    expect(JSON.parse(ep.stdout)).toMatchObject({ node: 'win-1', transport: 'ssh', host: s.sim.ssh.host, port: s.sim.ssh.port, source: 'override' });

    const listed = await cli(s, ['endpoints', 'list']);
    expect(listed.stdout).toContain(`${s.sim.ssh.host}:${s.sim.ssh.port}`);

    // Unknown host key: exit 2, the table names the fingerprint and how to accept it.
    const first = await cli(s, ['access', 'win-1']);
    expect(first.code).toBe(2);
    expect(first.stdout).toContain('host-key-unknown');
    expect(first.stdout).toContain(`--accept-host-key ${s.sim.ssh.hostKeyFingerprint}`);
    expect(s.sim.ssh.server.authAttempts).toEqual([]);

    const ok = await cli(s, ['access', 'win-1', '--accept-host-key', s.sim.ssh.hostKeyFingerprint, '--json']);
    expect(ok.code).toBe(0);
    const result = JSON.parse(ok.stdout) as { works: string; checks: Array<{ transport: string; outcome: string; credential: string | null }> };
    expect(result.works).toBe('ssh');
    expect(result.checks.map((c) => [c.transport, c.outcome])).toEqual([
      ['ssh', 'works'],
      ['winrm', 'not-configured'],
    ]);
    expect(result.checks[0]!.credential).toBe('win-key');

    // Probe now works through the configured access.
    const probe = await cli(s, ['probe', 'win-1', '--probe', 'services', '--json']);
    expect(probe.code).toBe(0);
    expect(JSON.parse(probe.stdout).transport).toBe('ssh');

    // In use: removal refused without --force; then endpoint removal and credential removal.
    await cli(s, ['endpoints', 'set', 'win-1', '--transport', 'ssh', '--host', s.sim.ssh.host, '--port', String(s.sim.ssh.port), '--credential', 'win-key']);
    const busy = await cli(s, ['credentials', 'remove', 'win-key']);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain('used by win-1');
    expect((await cli(s, ['endpoints', 'remove', 'win-1', '--transport', 'ssh'])).code).toBe(0);
    expect((await cli(s, ['credentials', 'remove', 'win-key'])).code).toBe(0);
    const empty = await cli(s, ['credentials', 'list', '--json']);
    expect(JSON.parse(empty.stdout)).toEqual([]);
  });

  it('takes secrets from stdin or a file (sealed, never echoed), never from an argument; refuses hostile values', async () => {
    const s = await setup('127.0.62.2');
    const viaStdin = await cli(s, ['credentials', 'add', 'pw', '--kind', 'ssh-password', '--user', 'Administrator', '--node', 'win-1', '--password-stdin'], {
      stdin: 'p@ss"word\n',
    });
    expect(viaStdin.code).toBe(0);
    expect(viaStdin.stdout + viaStdin.stderr).not.toContain('p@ss');
    const file = path.join(s.dir, 'pw.txt');
    fs.writeFileSync(file, 'other-secret\n', { mode: 0o600 });
    expect((await cli(s, ['credentials', 'add', 'pw2', '--kind', 'winrm-ntlm', '--user', 'CORP\\svc', '--password-file', file])).code).toBe(0);
    const list = await cli(s, ['credentials', 'list', '--json']);
    expect(list.stdout).not.toContain('p@ss');
    expect(list.stdout).not.toContain('other-secret');
    expect(JSON.parse(list.stdout).map((c: { name: string; hasSecret: boolean }) => [c.name, c.hasSecret])).toEqual([
      ['pw', true],
      ['pw2', true],
    ]);
    const db = openStore(path.join(s.home, 'windeck.db'));
    const blobs = db.db.prepare('SELECT secret_blob FROM credentials').pluck().all() as Buffer[];
    db.close();
    for (const b of blobs) {
      expect(b.includes(Buffer.from('p@ss'))).toBe(false);
      expect(b.includes(Buffer.from('other-secret'))).toBe(false);
    }
    // A password needs a source off a terminal; a --password VALUE flag does not exist.
    const none = await cli(s, ['credentials', 'add', 'pw3', '--kind', 'ssh-password', '--user', 'u']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/--password-stdin or --password-file/);
    expect((await cli(s, ['credentials', 'add', 'pw3', '--kind', 'ssh-password', '--user', 'u', '--password', 'x'])).stderr).toMatch(
      /Unknown option --password/,
    );
    // Hostile values are refused by validation.
    for (const bad of ['a"b', 'a;b', 'a\nb', 'a\u0000b', '$(id)']) {
      const r = await cli(s, ['credentials', 'add', 'x', '--kind', 'ssh-agent', '--user', bad]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/Invalid input/);
      const e = await cli(s, ['endpoints', 'set', 'win-1', '--transport', 'ssh', '--host', bad]);
      expect(e.code).toBe(1);
    }
  });

  it('without a secret store: says so, stores nothing in clear', async () => {
    const s = await setup('127.0.62.3', {});
    const r = await cli(s, ['credentials', 'add', 'pw', '--kind', 'ssh-password', '--user', 'Administrator', '--password-stdin'], { stdin: 'hunter2\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no secret store/);
    expect(r.stderr).toMatch(/WINDECK_SECRET_KEY/);
    expect(r.stderr).not.toContain('hunter2');
    const ok = await cli(s, ['credentials', 'add', 'pw', '--kind', 'ssh-password', '--user', 'Administrator', '--no-secret', '--json']);
    expect(JSON.parse(ok.stdout).hasSecret).toBe(false);
  });

  it('probe: on AUTH_FAILED over SSH password auth, asks once on a terminal (no echo), retries, offers to save sealed', async () => {
    const s = await setup('127.0.62.4');
    await cli(s, ['credentials', 'add', 'pw', '--kind', 'ssh-password', '--user', s.sim.credentials.username, '--node', 'win-1', '--password-stdin'], {
      stdin: 'wrong-password\n',
    });
    await cli(s, ['endpoints', 'set', 'win-1', '--transport', 'ssh', '--host', s.sim.ssh.host, '--port', String(s.sim.ssh.port)]);
    expect((await cli(s, ['access', 'win-1', '--accept-host-key', s.sim.ssh.hostKeyFingerprint])).code).toBe(2);

    // Not a terminal: a clear error that names the command which stores a credential.
    const plain = await cli(s, ['probe', 'win-1', '--probe', 'services', '--json']);
    expect(plain.code).toBe(2);
    expect(JSON.parse(plain.stdout).error.code).toBe('AUTH_FAILED');
    expect(plain.stderr).toContain('windeck credentials add');

    // A terminal: one hidden prompt for the password, then the save question.
    const asked: Array<{ q: string; echo: boolean }> = [];
    const answers = [s.sim.credentials.password, 'y'];
    const tty = await cli(s, ['probe', 'win-1', '--probe', 'services', '--json'], {
      prompt: async (q, o) => {
        asked.push({ q, echo: o.echo });
        return answers.shift() ?? null;
      },
    });
    expect(tty.code).toBe(0);
    expect(JSON.parse(tty.stdout).probes.services.ok).toBe(true);
    expect(asked[0]).toMatchObject({ echo: false });
    expect(asked[0]!.q).toContain(`${s.sim.credentials.username} on win-1`);
    expect(asked[1]!.q).toMatch(/Save it for win-1, sealed/);
    expect(tty.stderr).not.toContain(s.sim.credentials.password);

    // Saved sealed: the next run needs no prompt.
    const again = await cli(s, ['probe', 'win-1', '--probe', 'services', '--json']);
    expect(again.code).toBe(0);

    // A wrong answer is asked only once.
    await cli(s, ['credentials', 'add', 'pw', '--kind', 'ssh-password', '--user', s.sim.credentials.username, '--node', 'win-1', '--password-stdin'], {
      stdin: 'wrong-again\n',
    });
    let prompts = 0;
    const wrong = await cli(s, ['probe', 'win-1', '--probe', 'services'], {
      prompt: async () => {
        prompts += 1;
        return 'still-wrong';
      },
    });
    expect(wrong.code).toBe(2);
    expect(prompts).toBe(1);
  });

  it('access: a blackholed listener is a timeout, with exit 2', async () => {
    const s = await setup('127.0.62.5');
    await cli(s, ['credentials', 'add', 'agent', '--kind', 'ssh-agent', '--user', 'Administrator']);
    const hole = net.createServer(() => undefined);
    const sockets = new Set<net.Socket>();
    hole.on('connection', (c) => void sockets.add(c));
    await new Promise<void>((r) => hole.listen(0, '127.0.62.6', () => r()));
    cleanups.push(
      () =>
        new Promise<void>((r) => {
          for (const x of sockets) x.destroy();
          hole.close(() => r());
        }),
    );
    s.env.SSH_AUTH_SOCK = path.join(s.dir, 'no-agent.sock');
    await cli(s, ['endpoints', 'set', 'win-1', '--transport', 'ssh', '--host', '127.0.62.6', '--port', String((hole.address() as net.AddressInfo).port)]);
    const r = await cli(s, ['access', 'win-1', '--transport', 'ssh', '--connect-timeout', '500', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).checks[0]).toMatchObject({ outcome: 'timeout' });
  });
});
