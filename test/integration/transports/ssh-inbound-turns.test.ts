import net from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { WindeckError } from '../../../shared/contract/errors';
import { runScript } from '../../../electron/services/powershell/invoke';
import { fanOut } from '../../../electron/services/transports/fan-out';
import { INBOUND_TURN_BUDGET_MS, setInboundTurnBudget, type SshTarget } from '../../../electron/services/transports/ssh/connect';
import { SshTransport } from '../../../electron/services/transports/ssh/exec';
import { PinningVerifier } from '../../../electron/services/transports/ssh/host-keys';
import { knownHostsName, parseKnownHosts } from '../../../electron/services/transports/ssh/known-hosts';
import { SshPool } from '../../../electron/services/transports/ssh/pool';
import { startWindowsNodeSimulator, type WindowsNodeSimulator } from '../../../electron/sim/windows-node/simulator';

// ssh2 against the node simulator with an inbound budget of 0 ms: every chunk a socket reads is held for a later
// loop turn (its socket stops reading meanwhile), the path a busy fan-out takes. Handshakes, runs, output, exit
// status, a dropped connection and an SFTP download must come out as they do when nothing is held.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
beforeAll(() => setInboundTurnBudget(0));
afterAll(() => setInboundTurnBudget(INBOUND_TURN_BUDGET_MS));

async function sims(n: number): Promise<WindowsNodeSimulator[]> {
  const all = await Promise.all(
    Array.from({ length: n }, (_, i) => startWindowsNodeSimulator({ name: `win-${i}`, address: `127.0.10.${71 + i}`, scenario: 'healthy' })),
  );
  for (const s of all) cleanups.push(() => s.stop());
  return all;
}

function setup(all: WindowsNodeSimulator[]): { pool: SshPool; target: (s: WindowsNodeSimulator) => SshTarget } {
  const lines = all.map((s) => `${knownHostsName(s.ssh.host, s.ssh.port)} ${s.ssh.hostKeyPublic}`).join('\n');
  const pool = new SshPool({ verifier: new PinningVerifier({ knownHosts: parseKnownHosts(lines, 'test-known-hosts') }) });
  cleanups.push(() => pool.dispose());
  const target = (s: WindowsNodeSimulator): SshTarget => ({
    node: s.name,
    host: s.ssh.host,
    port: s.ssh.port,
    auth: { username: s.credentials.username, privateKey: s.credentials.privateKey },
  });
  return { pool, target };
}

describe('SSH with every inbound chunk held for a later turn (budget 0)', () => {
  it('fans a probe out over pooled connections: every run completes with its own full output and exit code', async () => {
    const all = await sims(3);
    const { pool, target } = setup(all);
    const items = Array.from({ length: 12 }, (_, i) => all[i % all.length]!);
    const results = await fanOut(items, 6, (s, signal) =>
      runScript(new SshTransport(s.name, target(s), pool), 'services', { names: ['kubelet', 'kube-proxy'] }, { signal }),
    );
    expect(results.map((r) => r.ok)).toEqual(items.map(() => true));
    for (const r of results) {
      if (!r.ok) continue;
      expect(r.value.exitCode).toBe(0);
      const parsed = JSON.parse(r.value.stdout) as Array<{ Name: string }>;
      expect(parsed.map((p) => p.Name).sort()).toEqual(['kube-proxy', 'kubelet']);
    }
    expect(pool.dials).toBe(3);
  });

  it('downloads a file over SFTP intact, and a connection dropped mid-output still fails the run as UNREACHABLE', async () => {
    const [s] = await sims(1);
    const { pool, target } = setup([s!]);
    const t = new SshTransport(s!.name, target(s!), pool);
    const chunks: Buffer[] = [];
    const sink = new Writable({ write: (c: Buffer, _e, cb) => (chunks.push(Buffer.from(c)), cb()) });
    const bytes = await t.download('C:\\k\\kubelet.log', sink, { signal: new AbortController().signal });
    const expected = s!.model.file('C:\\k\\kubelet.log')!.bytes;
    expect(bytes).toBe(expected.length);
    expect(Buffer.concat(chunks).equals(Buffer.from(expected))).toBe(true);

    s!.setFaults({ dropAfterBytes: 40 });
    const e = await runScript(new SshTransport(s!.name, target(s!), pool), 'hns-networks', {}, { signal: new AbortController().signal }).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(WindeckError);
    expect((e as WindeckError).code).toBe('UNREACHABLE');
  });

  it("writes a run's stdin and its EOF to the socket in one writev", async () => {
    const [s] = await sims(1);
    const { pool, target } = setup([s!]);
    // Warm the connection first, so only the run's own writes are looked at.
    await runScript(new SshTransport(s!.name, target(s!), pool), 'os', {}, { signal: new AbortController().signal });
    const writev = vi.spyOn(net.Socket.prototype as unknown as { _writev: (chunks: unknown[], cb: () => void) => void }, '_writev');
    try {
      const r = await runScript(new SshTransport(s!.name, target(s!), pool), 'services', { names: ['kubelet'] }, { signal: new AbortController().signal });
      expect(r.exitCode).toBe(0);
      const ours = writev.mock.calls.filter((_, i) => (writev.mock.contexts[i] as net.Socket).remotePort === s!.ssh.port);
      // CHANNEL_DATA (the bootstrap) and CHANNEL_EOF, queued while the socket was corked.
      expect(ours.map(([chunks]) => chunks.length)).toContain(2);
    } finally {
      writev.mockRestore();
    }
  });
});
