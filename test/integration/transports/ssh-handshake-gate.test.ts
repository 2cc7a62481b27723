import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WindeckError } from '../../../shared/contract/errors';
import { runScript } from '../../../electron/services/powershell/invoke';
import { PinningVerifier } from '../../../electron/services/transports/ssh/host-keys';
import { SshTransport } from '../../../electron/services/transports/ssh/exec';
import { SshPool } from '../../../electron/services/transports/ssh/pool';
import { knownHostsName, parseKnownHosts } from '../../../electron/services/transports/ssh/known-hosts';
import { startWindowsNodeSimulator, type WindowsNodeSimulator } from '../../../electron/sim/windows-node/simulator';

// The pool lets only a few SSH handshakes run at once (issue 10 item 4: a 200-node fan-out must not stall the
// event loop with all key exchanges in the same turns); every node still gets its turn.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function listen(onSocket: (s: net.Socket) => void): Promise<{ port: number }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    onSocket(s);
  });
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  );
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as net.AddressInfo).port })));
}

describe('SSH pool handshake limit', () => {
  it('runs at most N handshakes at once and still reaches every node', async () => {
    const sims: WindowsNodeSimulator[] = [];
    for (let i = 0; i < 8; i += 1) {
      const s = await startWindowsNodeSimulator({ name: `win-${i}`, address: `127.0.10.${40 + i}`, scenario: 'healthy' });
      cleanups.push(() => s.stop());
      sims.push(s);
    }
    const verifier = new PinningVerifier({
      knownHosts: parseKnownHosts(sims.map((s) => `${knownHostsName(s.ssh.host, s.ssh.port)} ${s.ssh.hostKeyPublic}`).join('\n'), 'test-known-hosts'),
    });
    const pool = new SshPool({ verifier, handshakesAtOnce: 3 });
    cleanups.push(() => pool.dispose());
    const results = await Promise.all(
      sims.map((s) =>
        runScript(
          new SshTransport(
            s.name,
            { node: s.name, host: s.ssh.host, port: s.ssh.port, auth: { username: s.credentials.username, privateKey: s.credentials.privateKey } },
            pool,
          ),
          'services',
          { names: ['kubelet'] },
          { signal: new AbortController().signal },
        ),
      ),
    );
    expect(results.map((r) => r.exitCode)).toEqual(sims.map(() => 0));
    expect(pool.dials).toBe(8);
    expect(pool.peakHandshakes).toBe(3);
  });

  it('reports a node that closed its TCP connection while waiting for a handshake slot', async () => {
    // Node A accepts TCP and never says anything: it holds the only handshake slot until its handshake timeout.
    const silent = await listen(() => undefined);
    // Node B accepts and hangs up at once, while its dial waits behind A.
    const hangsUp = await listen((s) => s.destroy());
    const pool = new SshPool({ verifier: new PinningVerifier({ knownHosts: parseKnownHosts('', 'empty') }), handshakesAtOnce: 1 });
    cleanups.push(() => pool.dispose());
    const lease = (node: string, port: number) =>
      pool.lease({ node, host: '127.0.0.1', port, auth: { username: 'u', password: 'p' } }, { connectTimeoutMs: 5000, handshakeTimeoutMs: 1500 });
    const a = lease('silent', silent.port).then(
      () => null,
      (e: unknown) => e,
    );
    const b = lease('hangs-up', hangsUp.port).then(
      () => null,
      (e: unknown) => e,
    );
    const [ea, eb] = await Promise.all([a, b]);
    expect(ea).toBeInstanceOf(WindeckError);
    expect((ea as WindeckError).code).toBe('TIMEOUT');
    expect(eb).toBeInstanceOf(WindeckError);
    expect((eb as WindeckError).code).toBe('UNREACHABLE');
    expect((eb as WindeckError).message).toMatch(/before the SSH handshake started/);
    expect(pool.peakHandshakes).toBe(1);
  });
});
