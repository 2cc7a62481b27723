import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WindeckError } from '../../shared/contract/errors';
import { runScript } from '../../electron/services/powershell/invoke';
import { normalizeServices } from '../../electron/services/probes/normalize';
import { fanOut } from '../../electron/services/transports/fan-out';
import { PinningVerifier } from '../../electron/services/transports/ssh/host-keys';
import { SshTransport } from '../../electron/services/transports/ssh/exec';
import { SshPool } from '../../electron/services/transports/ssh/pool';
import { hashHostName, knownHostsName, parseKnownHosts, sha256Fingerprint } from '../../electron/services/transports/ssh/known-hosts';
import { createCommandHost } from '../../electron/sim/windows-node/command-host';
import { forceCommandHelperPath, startCommandRelay, type CommandRelay } from '../../electron/sim/windows-node/command-relay';
import { WindowsNodeModel } from '../../electron/sim/windows-node/node-model';
import { resolveScenario } from '../../electron/sim/windows-node/scenario';
import { generateKeyPair, publicKeyLine } from '../../electron/sim/windows-node/ssh-server';
// @ts-expect-error plain JavaScript helper shared with bench/fanout.mjs
import { startSshd, tempDir } from './sshd-harness.mjs';

/**
 * Interop: the real OpenSSH sshd (Debian openssh-server) on 127.0.0.1, with a generated config and host key,
 * forwards each exec request (ForceCommand) to the Windows node simulator's command host. Windeck's SSH transport
 * must verify sshd's host key exactly as OpenSSH tools do, log in with a key, run the services script and get
 * Windows-shaped output back. If sshd is missing, this fails and says how to install it.
 */

interface Sshd {
  port: number;
  host: string;
  hostKeyPath: string;
  hostKeyPublic: string;
  log(): string;
  stop(): Promise<void>;
}

let dir: string;
let sshd: Sshd;
let relay: CommandRelay;
const clientKey = generateKeyPair('windeck-interop-client').privateKey;
const model = new WindowsNodeModel(resolveScenario('kube-proxy-stopped', { nodeName: 'win-interop', nodeIp: '127.0.0.1' }).spec);
const host = createCommandHost({ model });
const user = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();

beforeAll(async () => {
  dir = tempDir('windeck-interop-');
  relay = await startCommandRelay(host);
  sshd = (await startSshd({ dir, relay, authorizedKeys: [publicKeyLine(clientKey)], helperPath: forceCommandHelperPath() })) as Sshd;
});

afterAll(async () => {
  await sshd?.stop();
  await relay?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function knownHosts(hashed = false): PinningVerifier {
  const name = knownHostsName(sshd.host, sshd.port);
  return new PinningVerifier({ knownHosts: parseKnownHosts(`${hashed ? hashHostName(name) : name} ${sshd.hostKeyPublic}\n`, 'interop-known-hosts') });
}

function transport(pool: SshPool): SshTransport {
  return new SshTransport('win-interop', { node: 'win-interop', host: sshd.host, port: sshd.port, auth: { username: user, privateKey: clientKey } }, pool);
}

describe('Windeck SSH transport against real OpenSSH sshd', () => {
  it('runs the services script through sshd and gets the node services', async () => {
    const pool = new SshPool({ verifier: knownHosts() });
    try {
      const r = await runScript(transport(pool), 'services', { names: ['kubelet', 'kube-proxy', 'containerd', 'flanneld'] }, { signal: new AbortController().signal });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('\r\n');
      const services = normalizeServices(r.stdout).value.services;
      expect(Object.fromEntries(services.map((s) => [s.name, s.status]))).toEqual({ containerd: 'Running', flanneld: 'Running', kubelet: 'Running', 'kube-proxy': 'Stopped' });
      expect(host.invocations.at(-1)).toMatchObject({ scriptId: 'services', commandLine: 'powershell.exe -NoLogo -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command -' });
      expect(sshd.log()).toMatch(/Accepted publickey for \S+ from 127\.0\.0\.1/);
    } finally {
      await pool.dispose();
    }
  });

  it('the fingerprint Windeck computes is the one ssh-keygen -lf prints, and hashed known_hosts entries work', async () => {
    const lf = execFileSync('ssh-keygen', ['-lf', `${sshd.hostKeyPath}.pub`], { encoding: 'utf8' }).split(' ')[1];
    const blob = Buffer.from(sshd.hostKeyPublic.split(' ')[1]!, 'base64');
    expect(sha256Fingerprint(blob)).toBe(lf);
    const kh = path.join(dir, 'known_hosts_hashed');
    fs.writeFileSync(kh, `${hashHostName(knownHostsName(sshd.host, sshd.port))} ${sshd.hostKeyPublic}\n`);
    const found = execFileSync('ssh-keygen', ['-F', `[${sshd.host}]:${sshd.port}`, '-f', kh], { encoding: 'utf8' });
    expect(found).toContain('found: line 1');
    const pool = new SshPool({ verifier: knownHosts(true) });
    try {
      expect((await runScript(transport(pool), 'os', {}, { signal: new AbortController().signal })).exitCode).toBe(0);
    } finally {
      await pool.dispose();
    }
  });

  it('refuses sshd\'s key when it is unknown or different, before any authentication', async () => {
    const before = sshd.log();
    const invocations = host.invocations.length;
    const unknown = new SshPool({ verifier: new PinningVerifier({}) });
    const changedKey = generateKeyPair('other').privateKey;
    const changed = new SshPool({ verifier: new PinningVerifier({ knownHosts: parseKnownHosts(`${knownHostsName(sshd.host, sshd.port)} ${publicKeyLine(changedKey)}\n`) }) });
    try {
      const e1 = await runScript(transport(unknown), 'os', {}, { signal: new AbortController().signal }).catch((e: unknown) => e);
      expect((e1 as WindeckError).code).toBe('HOST_KEY_UNKNOWN');
      expect((e1 as WindeckError).message).toContain(execFileSync('ssh-keygen', ['-lf', `${sshd.hostKeyPath}.pub`], { encoding: 'utf8' }).split(' ')[1]);
      const e2 = await runScript(transport(changed), 'os', {}, { signal: new AbortController().signal }).catch((e: unknown) => e);
      expect((e2 as WindeckError).code).toBe('HOST_KEY_CHANGED');
    } finally {
      await unknown.dispose();
      await changed.dispose();
    }
    // sshd saw connections but no authentication attempt and ran nothing.
    const added = sshd.log().slice(before.length);
    expect(added).not.toMatch(/Accepted|Failed publickey|Failed none|userauth/i);
    expect(host.invocations.length).toBe(invocations);
  });

  it('fans one command out over 40 sessions through sshd with bounded concurrency', async () => {
    const pool = new SshPool({ verifier: knownHosts(), channelsPerConnection: 8 });
    try {
      let inFlight = 0;
      let max = 0;
      const results = await fanOut(Array.from({ length: 40 }, (_, i) => i), 8, async (_i, signal) => {
        inFlight += 1;
        max = Math.max(max, inFlight);
        try {
          return (await runScript(transport(pool), 'services', { names: ['kubelet'] }, { signal })).exitCode;
        } finally {
          inFlight -= 1;
        }
      });
      expect(results.every((r) => r.ok && r.value === 0)).toBe(true);
      expect(max).toBeLessThanOrEqual(8);
      expect(pool.dials).toBe(1);
    } finally {
      await pool.dispose();
    }
  });
});
