import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WindeckError } from '../../../shared/contract/errors';
import { runScript } from '../../../electron/services/powershell/invoke';
import { fanOut } from '../../../electron/services/transports/fan-out';
import { PinningVerifier } from '../../../electron/services/transports/ssh/host-keys';
import { SshTransport } from '../../../electron/services/transports/ssh/exec';
import { SshPool } from '../../../electron/services/transports/ssh/pool';
import { knownHostsName, parseKnownHosts } from '../../../electron/services/transports/ssh/known-hosts';
import { startWindowsNodeSimulator, type WindowsNodeSimulator } from '../../../electron/sim/windows-node/simulator';
import { generateKeyPair } from '../../../electron/sim/windows-node/ssh-server';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A TCP relay that can go silent (drop every byte both ways, keep the sockets open): a blackholed peer. */
async function blackholeRelay(toHost: string, toPort: number): Promise<{ port: number; blackhole(): void; close(): Promise<void> }> {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(toPort, toHost);
    sockets.add(client).add(upstream);
    client.on('data', (d) => {
      if (!silent) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!silent) client.write(d);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as net.AddressInfo).port,
    blackhole: () => {
      silent = true;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe('SSH keepalive', () => {
  it('detects a blackholed peer within the keepalive bound, long before idle/command timeouts', async () => {
    const s = await startWindowsNodeSimulator({ name: 'win-ka', address: '127.0.20.1' });
    cleanups.push(() => s.stop());
    const relay = await blackholeRelay(s.ssh.host, s.ssh.port);
    cleanups.push(() => relay.close());
    const verifier = new PinningVerifier({ knownHosts: parseKnownHosts(`${knownHostsName('127.0.0.1', relay.port)} ${s.ssh.hostKeyPublic}`) });
    const intervalMs = 200;
    const countMax = 2;
    const pool = new SshPool({ verifier, keepaliveIntervalMs: intervalMs, keepaliveCountMax: countMax });
    cleanups.push(() => pool.dispose());
    const t = new SshTransport(s.name, { node: s.name, host: '127.0.0.1', port: relay.port, auth: { username: s.credentials.username, privateKey: s.credentials.privateKey } }, pool, {
      timeouts: { idleMs: 30_000, commandMs: 60_000 },
    });
    expect((await runScript(t, 'os', {}, { signal: new AbortController().signal })).exitCode).toBe(0);

    relay.blackhole();
    const started = Date.now();
    const error = await runScript(t, 'services', { names: ['kubelet'] }, { signal: new AbortController().signal }).catch((e: unknown) => e);
    const took = Date.now() - started;
    expect(error).toBeInstanceOf(WindeckError);
    expect((error as WindeckError).code).toBe('UNREACHABLE');
    expect((error as WindeckError).context?.step).toBe('keepalive');
    const bound = intervalMs * (countMax + 1);
    expect(took).toBeLessThan(bound + 1000);
    expect(took).toBeGreaterThanOrEqual(intervalMs);

    // The broken connection left the pool: the next run dials again (and fails fast while the relay is silent).
    expect(pool.stats().open).toBe(0);
  });
});

describe('bounded fan-out', () => {
  it('runs one command on 200 simulated nodes (200 SSH endpoints on loopback) with at most 32 in flight', async () => {
    const count = 200;
    const limit = 32;
    // One host key and one client key for all 200 keeps setup fast; every node still has its own server and address.
    const hostKey = generateKeyPair('fanout-host').privateKey;
    const clientKey = generateKeyPair('fanout-client').privateKey;
    const sims: WindowsNodeSimulator[] = [];
    for (let i = 0; i < count; i += 1) {
      const address = `127.0.${100 + Math.floor(i / 200)}.${(i % 200) + 1}`;
      sims.push(await startWindowsNodeSimulator({ name: `win-${i}`, address, hostKey, clientPrivateKey: clientKey, password: 'unused-pw' }));
    }
    cleanups.push(async () => {
      await Promise.all(sims.map((x) => x.stop()));
    });
    const known = sims.map((x) => `${knownHostsName(x.ssh.host, x.ssh.port)} ${x.ssh.hostKeyPublic}`).join('\n');
    const pool = new SshPool({ verifier: new PinningVerifier({ knownHosts: parseKnownHosts(known) }) });
    cleanups.push(() => pool.dispose());

    let inFlight = 0;
    let maxInFlight = 0;
    let progress = 0;
    const started = Date.now();
    const results = await fanOut(
      sims,
      limit,
      async (x, signal) => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          const t = new SshTransport(x.name, { node: x.name, host: x.ssh.host, port: x.ssh.port, auth: { username: x.credentials.username, privateKey: clientKey } }, pool);
          const r = await runScript(t, 'services', { names: ['kubelet', 'kube-proxy'] }, { signal });
          return JSON.parse(r.stdout) as Array<{ Name: string }>;
        } finally {
          inFlight -= 1;
        }
      },
      { onSettled: (done) => (progress = done) },
    );
    const wall = Date.now() - started;
    expect(results).toHaveLength(count);
    expect(results.filter((r) => r.ok)).toHaveLength(count);
    expect(results.every((r, i) => r.item === sims[i])).toBe(true);
    for (const r of results) if (r.ok) expect(r.value.map((v) => v.Name).sort()).toEqual(['kube-proxy', 'kubelet']);
    expect(maxInFlight).toBeLessThanOrEqual(limit);
    expect(maxInFlight).toBeGreaterThan(1);
    expect(progress).toBe(count);
    expect(pool.dials).toBe(count);
    expect(sims.every((x) => x.commandHost.invocations.length === 1)).toBe(true);
    // Timing is reported, not asserted (2 shared cores).
    console.info(`fan-out: ${count} nodes, limit ${limit}, max in flight ${maxInFlight}, ${wall} ms`);
  });

  it('keeps going when some nodes fail, and reports each failure', async () => {
    const items = Array.from({ length: 20 }, (_, i) => i);
    const results = await fanOut(items, 4, async (i) => {
      if (i % 5 === 0) throw new WindeckError('UNREACHABLE', `node ${i} down`);
      return i * 2;
    });
    expect(results.filter((r) => !r.ok).map((r) => r.item)).toEqual([0, 5, 10, 15]);
    expect(results.filter((r) => r.ok).map((r) => (r.ok ? r.value : 0))).toEqual(items.filter((i) => i % 5 !== 0).map((i) => i * 2));
    const ac = new AbortController();
    ac.abort();
    const cancelled = await fanOut(items, 4, async (i) => i, { signal: ac.signal });
    expect(cancelled.every((r) => !r.ok && r.error.code === 'CANCELLED')).toBe(true);
  });
});
