import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WindeckError } from '../../../shared/contract/errors';
import { runScript } from '../../../electron/services/powershell/invoke';
import { WinrmChannel } from '../../../electron/services/transports/winrm/auth';
import { WinrmShell } from '../../../electron/services/transports/winrm/shell';
import { WinrmTransport, type WinrmTransportOptions } from '../../../electron/services/transports/winrm/winrm-transport';
import { createCommandHost, type CommandHost } from '../../../electron/sim/windows-node/command-host';
import type { SimFaults } from '../../../electron/sim/windows-node/faults';
import { WindowsNodeModel } from '../../../electron/sim/windows-node/node-model';
import { resolveScenario } from '../../../electron/sim/windows-node/scenario';
import { startWinrmEndpoint, type WinrmEndpoint } from '../../../electron/sim/windows-node/winrm-server';
import { waitFor } from '../../helpers/temp-dir';

const ADDRESS = '127.0.10.11';
const USER = 'Administrator';
const PASSWORD = 'Canary-WinRM-Pa55word!';

interface Node {
  host: CommandHost;
  endpoint: WinrmEndpoint;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function startNode(options: { https?: boolean; faults?: SimFaults } = {}): Promise<Node> {
  const scenario = resolveScenario('healthy', { nodeName: 'win-node-1', nodeIp: ADDRESS });
  const model = new WindowsNodeModel(scenario.spec);
  const host = createCommandHost({ model, faults: { ...scenario.faults, ...options.faults } });
  const endpoint = await startWinrmEndpoint({
    address: ADDRESS,
    commandHost: host,
    credentials: { username: USER, password: PASSWORD },
    https: options.https ?? false,
  });
  cleanups.push(() => endpoint.stop());
  return { host, endpoint };
}

function transport(url: string, overrides: Partial<WinrmTransportOptions> = {}): WinrmTransport {
  const t = new WinrmTransport({
    node: 'win-node-1',
    url,
    credentials: { username: USER, password: PASSWORD, method: 'ntlm' },
    timeouts: { connectMs: 5_000, channelMs: 5_000, commandMs: 20_000, idleMs: 10_000 },
    cleanupTimeoutMs: 5_000,
    ...overrides,
  });
  cleanups.push(() => t.close());
  return t;
}

/** A TCP relay that records every byte both ways, to look at what crosses the wire. */
async function recordingProxy(targetUrl: string): Promise<{ url: string; bytes: () => Buffer }> {
  const target = new URL(targetUrl);
  const captured: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (d: Buffer) => captured.push(d));
    upstream.on('data', (d: Buffer) => captured.push(d));
    client.pipe(upstream).pipe(client);
    const close = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  const port = (server.address() as net.AddressInfo).port;
  return { url: `http://127.0.0.1:${port}${target.pathname}`, bytes: () => Buffer.concat(captured) };
}

async function expectError(promise: Promise<unknown>): Promise<WindeckError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WindeckError);
    return error as WindeckError;
  }
  throw new Error('expected the call to fail');
}

const SERVICE_NAMES = ['containerd', 'kubelet', 'kube-proxy'];

function serviceNames(stdout: string): string[] {
  const parsed = JSON.parse(stdout) as Array<{ Name: string; Status: number }> | { Name: string };
  return (Array.isArray(parsed) ? parsed : [parsed]).map((row) => row.Name).sort();
}

describe('WinrmTransport against the simulated Windows WinRM endpoint', () => {
  it('runs the services script over HTTP with NTLM, sealed on the wire, and deletes its shell', async () => {
    const node = await startNode();
    const proxy = await recordingProxy(node.endpoint.url);
    const winrm = transport(proxy.url);
    const streamed: Buffer[] = [];
    const result = await runScript(winrm, 'services', { names: SERVICE_NAMES }, { signal: new AbortController().signal, onStdout: (c) => streamed.push(c) });

    expect(result.transport).toBe('winrm');
    expect(result.exitCode).toBe(0);
    expect(serviceNames(result.stdout)).toEqual([...SERVICE_NAMES].sort());
    const rows = JSON.parse(result.stdout) as Array<{ Name: string; Status: number; StartType: number }>;
    expect(rows.find((r) => r.Name === 'kubelet')).toMatchObject({ Status: 4, StartType: 2 });
    expect(Buffer.concat(streamed).toString('utf8')).toBe(result.stdout);

    // The node saw one recognized invocation of the services script with the names as data.
    const invocation = node.host.invocations.at(-1);
    expect(invocation).toMatchObject({ scriptId: 'services', args: { names: SERVICE_NAMES }, exitCode: 0 });
    const actions = node.endpoint.events.map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['Auth', 'Create', 'Command', 'Send', 'Receive', 'Delete']));
    expect(node.endpoint.openShellIds()).toEqual([]);

    // Nothing readable crossed the wire: no SOAP, no script, no output, no password.
    const wire = proxy.bytes();
    const latin = wire.toString('latin1');
    expect(latin).toContain('multipart/encrypted;protocol="application/HTTP-SPNEGO-session-encrypted"');
    for (const clear of ['<s:Envelope', 'windeck-script', 'powershell.exe', 'kubelet', 'containerd', PASSWORD]) {
      expect(latin.includes(clear), `"${clear}" visible on the wire`).toBe(false);
    }
    expect(wire.includes(Buffer.from(PASSWORD, 'utf16le'))).toBe(false);
  });

  it('reuses its authenticated connection for the next run', async () => {
    const node = await startNode();
    const winrm = transport(node.endpoint.url);
    for (let i = 0; i < 3; i += 1) {
      const result = await runScript(winrm, 'services', { names: ['kubelet'] }, { signal: new AbortController().signal });
      expect(serviceNames(result.stdout)).toEqual(['kubelet']);
    }
    expect(node.endpoint.events.filter((e) => e.action === 'Auth' && e.detail?.startsWith('ntlm ok'))).toHaveLength(1);
    expect(node.endpoint.openShellIds()).toEqual([]);
  });

  it('bounds concurrent runs to its connection pool and authenticates each pooled connection once', async () => {
    const node = await startNode({ faults: { slowOutput: { chunkBytes: 256, delayMs: 20 } } });
    const winrm = transport(node.endpoint.url, { maxChannels: 2 });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => runScript(winrm, 'services', { names: SERVICE_NAMES }, { signal: new AbortController().signal })),
    );
    for (const result of results) expect(serviceNames(result.stdout)).toEqual([...SERVICE_NAMES].sort());
    expect(node.endpoint.events.filter((e) => e.action === 'Auth' && e.detail?.startsWith('ntlm ok'))).toHaveLength(2);
    expect(node.endpoint.events.filter((e) => e.action === 'Create')).toHaveLength(6);
    expect(node.endpoint.openShellIds()).toEqual([]);
  });

  it('runs over HTTPS with Basic against a pinned certificate thumbprint, and with NTLM against a trusted CA', async () => {
    const node = await startNode({ https: true });
    expect(node.endpoint.url.startsWith('https://')).toBe(true);
    const pinned = transport(node.endpoint.url, {
      credentials: { username: USER, password: PASSWORD, method: 'basic' },
      trust: { pinnedSha256: node.endpoint.certThumbprint ?? '' },
    });
    const viaPin = await runScript(pinned, 'services', { names: ['kube-proxy'] }, { signal: new AbortController().signal });
    expect(serviceNames(viaPin.stdout)).toEqual(['kube-proxy']);

    const trusted = transport(node.endpoint.url, { trust: { ca: node.endpoint.certPem ?? '' } });
    const viaCa = await runScript(trusted, 'services', { names: ['containerd'] }, { signal: new AbortController().signal });
    expect(serviceNames(viaCa.stdout)).toEqual(['containerd']);
    expect(node.endpoint.openShellIds()).toEqual([]);
  });

  it('refuses an untrusted or changed HTTPS certificate before authenticating, naming its thumbprint', async () => {
    const node = await startNode({ https: true });
    const untrusted = transport(node.endpoint.url, { credentials: { username: USER, password: PASSWORD, method: 'basic' } });
    const unknown = await expectError(runScript(untrusted, 'services', { names: ['kubelet'] }, { signal: new AbortController().signal }));
    expect(unknown.code).toBe('HOST_KEY_UNKNOWN');
    const thumb = (node.endpoint.certThumbprint ?? '').replace(/(..)(?=.)/g, '$1:');
    expect(unknown.message).toContain(thumb);

    const wrongPin = transport(node.endpoint.url, {
      credentials: { username: USER, password: PASSWORD, method: 'basic' },
      trust: { pinnedSha256: 'AB'.repeat(32) },
    });
    const changed = await expectError(runScript(wrongPin, 'services', { names: ['kubelet'] }, { signal: new AbortController().signal }));
    expect(changed.code).toBe('HOST_KEY_CHANGED');
    // No request (so no password) reached the server.
    expect(node.endpoint.events).toEqual([]);
  });

  it('refuses Basic over plain HTTP before anything is sent, and the endpoint does not offer it either', async () => {
    const node = await startNode();
    let error: unknown;
    try {
      new WinrmTransport({ node: 'win-node-1', url: node.endpoint.url, credentials: { username: USER, password: PASSWORD, method: 'basic' } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WindeckError);
    expect((error as WindeckError).code).toBe('VALIDATION');
    expect((error as WindeckError).message).toMatch(/Basic .* plain HTTP/);
    expect(node.endpoint.events).toEqual([]);

    // A client that sends Basic over HTTP anyway gets 401 and only Negotiate offered (like a hardened Windows).
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(node.endpoint.url, {
        method: 'POST',
        headers: { Authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`, 'Content-Type': 'application/soap+xml;charset=UTF-8' },
      });
      req.on('response', resolve).on('error', reject);
      req.end('<s:Envelope/>');
    });
    response.resume();
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Negotiate');
  });

  it('reports AUTH_FAILED for a wrong password and for a node that refuses every logon', async () => {
    const node = await startNode();
    const wrong = transport(node.endpoint.url, { credentials: { username: USER, password: 'not-the-password', method: 'ntlm' } });
    const failed = await expectError(runScript(wrong, 'services', { names: ['kubelet'] }, { signal: new AbortController().signal }));
    expect(failed.code).toBe('AUTH_FAILED');
    expect(failed.context?.step).toBe('auth');
    expect(failed.message).not.toContain('not-the-password');

    node.host.faults.authFailure = true;
    const refused = await expectError(runScript(transport(node.endpoint.url), 'services', { names: ['kubelet'] }, { signal: new AbortController().signal }));
    expect(refused.code).toBe('AUTH_FAILED');

    const httpsNode = await startNode({ https: true });
    const basicWrong = transport(httpsNode.endpoint.url, {
      credentials: { username: USER, password: 'nope', method: 'basic' },
      trust: { pinnedSha256: httpsNode.endpoint.certThumbprint ?? '' },
    });
    const basicFailed = await expectError(runScript(basicWrong, 'services', { names: ['kubelet'] }, { signal: new AbortController().signal }));
    expect(basicFailed.code).toBe('AUTH_FAILED');
    expect(httpsNode.endpoint.openShellIds()).toEqual([]);
  });

  it('a stalled listener (Receive never answered) times out naming the stage, and the shell is deleted', async () => {
    const node = await startNode();
    node.endpoint.faults.stallReceive = true;
    const winrm = transport(node.endpoint.url, { operationTimeoutMs: 300, httpGraceMs: 300 });
    const started = Date.now();
    const error = await expectError(runScript(winrm, 'services', { names: ['kubelet'] }, { signal: new AbortController().signal }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.context?.step).toBe('receive');
    expect(Date.now() - started).toBeLessThan(5_000);
    const shellId = node.endpoint.events.find((e) => e.action === 'Create')?.shellId;
    expect(shellId).toBeDefined();
    expect(node.endpoint.openShellIds()).toEqual([]);
    expect(node.endpoint.events.filter((e) => e.shellId === shellId).map((e) => e.action)).toEqual(expect.arrayContaining(['Signal', 'Delete']));
  });

  it('a command that goes silent hits the idle timeout; Windows-style w:TimedOut replies do not count as output', async () => {
    const node = await startNode({ faults: { stallAfterBytes: 0 } });
    const winrm = transport(node.endpoint.url, { timeouts: { idleMs: 800, commandMs: 20_000 }, operationTimeoutMs: 200 });
    const error = await expectError(runScript(winrm, 'services', { names: ['kubelet'] }, { signal: new AbortController().signal }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.context?.step).toBe('idle');
    expect(node.endpoint.events.filter((e) => e.action === 'Fault' && e.detail?.startsWith('w:TimedOut')).length).toBeGreaterThan(0);
    expect(node.endpoint.openShellIds()).toEqual([]);
    expect(node.endpoint.events.some((e) => e.action === 'Signal' && e.detail === 'terminate')).toBe(true);
  });

  it('cancel stops a slow command: Signal terminate, Delete, CANCELLED', async () => {
    const node = await startNode({ faults: { slowOutput: { chunkBytes: 16, delayMs: 250 } } });
    const winrm = transport(node.endpoint.url);
    const controller = new AbortController();
    const run = runScript(winrm, 'services', { names: SERVICE_NAMES }, { signal: controller.signal, onStdout: () => controller.abort() });
    const error = await expectError(run);
    expect(error.code).toBe('CANCELLED');
    expect(node.endpoint.events.some((e) => e.detail?.startsWith('decryption failed'))).toBe(false);
    expect(node.endpoint.openShellIds()).toEqual([]);
    const actions = node.endpoint.events.map((e) => e.action);
    expect(actions.lastIndexOf('Signal')).toBeGreaterThan(actions.lastIndexOf('Command'));
    expect(actions.lastIndexOf('Delete')).toBeGreaterThan(actions.lastIndexOf('Signal'));
  });

  it('streams slow output as it arrives and enforces the whole-command timeout', async () => {
    const node = await startNode({ faults: { slowOutput: { chunkBytes: 32, delayMs: 100 } } });
    const chunks: number[] = [];
    const ok = await runScript(
      transport(node.endpoint.url),
      'services',
      { names: ['kubelet'] },
      { signal: new AbortController().signal, onStdout: (c) => chunks.push(c.length) },
    );
    expect(chunks.length).toBeGreaterThan(1);
    expect(serviceNames(ok.stdout)).toEqual(['kubelet']);

    const slow = transport(node.endpoint.url, { timeouts: { commandMs: 400, idleMs: 10_000 } });
    const error = await expectError(runScript(slow, 'services', { names: SERVICE_NAMES }, { signal: new AbortController().signal }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.context?.step).toBe('command');
    await waitFor(() => node.endpoint.openShellIds().length === 0);
  });

  it('a connection dropped mid-output is UNREACHABLE, and the shell is still deleted on a new connection', async () => {
    const node = await startNode({ faults: { dropAfterBytes: 40 } });
    const error = await expectError(runScript(transport(node.endpoint.url), 'services', { names: SERVICE_NAMES }, { signal: new AbortController().signal }));
    expect(error.code).toBe('UNREACHABLE');
    expect(error.context?.step).toBe('receive');
    expect(node.endpoint.openShellIds()).toEqual([]);
  });

  it('turns a SOAP fault into REMOTE_FAILED carrying the text Windows sent', async () => {
    const node = await startNode();
    const signal = new AbortController().signal;
    const channel = await WinrmChannel.open({
      endpoint: { url: new URL(node.endpoint.url) },
      credentials: { username: USER, password: PASSWORD },
      timeoutMs: 5_000,
      signal,
      context: { node: 'win-node-1', transport: 'winrm' },
    });
    cleanups.push(() => channel.destroy());
    const shell = new WinrmShell({
      to: node.endpoint.url,
      operationTimeoutMs: 1_000,
      maxEnvelopeBytes: 153_600,
      context: { node: 'win-node-1', transport: 'winrm' },
    });
    shell.shellId = '00000000-0000-0000-0000-000000000000';
    const error = await expectError(shell.command(channel, { command: 'powershell.exe' }, { stage: 'command', timeoutMs: 5_000, signal }));
    expect(error.code).toBe('REMOTE_FAILED');
    expect(error.message).toContain('the shell was not found on the server');
    expect(error.message).toContain('[WSManFault 2150858843]');
    expect(error.context?.step).toBe('command');
  });

  it('carries output larger than one envelope across several Receives intact, and decodes non-UTF-8 bytes', async () => {
    const node = await startNode({ faults: { hugeOutputBytes: 600_000, nonUtf8: true, scripts: ['files'] } });
    const result = await runScript(
      transport(node.endpoint.url),
      'files',
      { paths: ['C:\\k\\kubelet.log'], maxBytes: 1024 * 1024 },
      { signal: new AbortController().signal },
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout.length).toBeGreaterThan(600_000);
    expect(result.stdout).toContain('\uFFFD');
    const receives = node.endpoint.events.filter((e) => e.action === 'Receive').length;
    expect(receives).toBeGreaterThan(4);
  });

  it('close() cancels a run in progress and deletes its shell', async () => {
    const node = await startNode({ faults: { slowOutput: { chunkBytes: 8, delayMs: 300 } } });
    const winrm = transport(node.endpoint.url);
    let first: () => void = () => undefined;
    const gotOutput = new Promise<void>((resolve) => (first = resolve));
    const run = expectError(runScript(winrm, 'services', { names: SERVICE_NAMES }, { signal: new AbortController().signal, onStdout: () => first() }));
    await gotOutput;
    await winrm.close();
    expect((await run).code).toBe('CANCELLED');
    expect(node.endpoint.openShellIds()).toEqual([]);
  });
});
