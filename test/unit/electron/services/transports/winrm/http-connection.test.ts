import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WindeckError } from '../../../../../../shared/contract/errors';
import { HttpConnection, formatFingerprint, normalizeFingerprint } from '../../../../../../electron/services/transports/winrm/http-connection';

const context = { node: 'n1', transport: 'winrm' as const };
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

/** A raw TCP server that answers each request with the next scripted byte string (or nothing). */
async function rawServer(answers: Array<string | Buffer | null | ((socket: net.Socket) => void)>): Promise<URL> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let buffer = '';
    socket.on('data', (d: Buffer) => {
      buffer += d.toString('latin1');
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(buffer)?.[1] ?? 0);
      if (buffer.length < end + 4 + length) return;
      buffer = buffer.slice(end + 4 + length);
      const answer = answers.shift();
      if (typeof answer === 'function') answer(socket);
      else if (answer !== null && answer !== undefined) socket.write(answer);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return new URL(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/wsman`);
}

async function open(url: URL): Promise<HttpConnection> {
  const connection = await HttpConnection.open({ url, timeoutMs: 2_000, signal: new AbortController().signal, context });
  closers.push(async () => connection.destroy());
  return connection;
}

const post = (connection: HttpConnection, body = 'x', timeoutMs = 2_000, signal = new AbortController().signal) =>
  connection.request({
    method: 'POST',
    path: '/wsman',
    headers: { 'Content-Type': 'text/plain' },
    body: Buffer.from(body),
    timeoutMs,
    signal,
    stage: 'receive',
    context,
  });

describe('HttpConnection', () => {
  it('reads Content-Length and chunked bodies, several requests on one connection', async () => {
    const url = await rawServer([
      'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello',
      'HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nfaul\r\n1;ext=1\r\nt\r\n0\r\n\r\n',
      'HTTP/1.1 401 \r\nWWW-Authenticate: Negotiate\r\nWWW-Authenticate: Basic realm="WSMAN"\r\nContent-Length: 0\r\n\r\n',
    ]);
    const connection = await open(url);
    expect(await post(connection)).toMatchObject({ status: 200, body: Buffer.from('hello') });
    expect(await post(connection)).toMatchObject({ status: 500, body: Buffer.from('fault') });
    const third = await post(connection);
    expect(third.status).toBe(401);
    expect(third.headers['www-authenticate']).toEqual(['Negotiate', 'Basic realm="WSMAN"']);
    expect(connection.usable).toBe(true);
  });

  it('reads a body that runs to the end of the stream, then the connection is not reused', async () => {
    const url = await rawServer([(socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil close')]);
    const connection = await open(url);
    expect((await post(connection)).body.toString()).toBe('until close');
    expect(connection.usable).toBe(false);
  });

  it('honours Connection: close', async () => {
    const url = await rawServer(['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok']);
    const connection = await open(url);
    expect((await post(connection)).body.toString()).toBe('ok');
    expect(connection.usable).toBe(false);
  });

  it('times out naming the stage, and refuses further use of the connection', async () => {
    const url = await rawServer([null]);
    const connection = await open(url);
    const error = await post(connection, 'x', 150).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WindeckError);
    expect(error).toMatchObject({ code: 'TIMEOUT', context: { step: 'receive' } });
    expect(connection.usable).toBe(false);
  });

  it('cancels on abort, and reports a dropped connection as UNREACHABLE', async () => {
    const url = await rawServer([null, (socket) => socket.destroy()]);
    const controller = new AbortController();
    const connection = await open(url);
    const pending = post(connection, 'x', 5_000, controller.signal).catch((e: unknown) => e);
    controller.abort();
    expect(await pending).toMatchObject({ code: 'CANCELLED' });

    const second = await open(url);
    expect(await post(second).catch((e: unknown) => e)).toMatchObject({ code: 'UNREACHABLE', context: { step: 'receive' } });
  });

  it('reports malformed responses as REMOTE_FAILED', async () => {
    const url = await rawServer(['SSH-2.0-OpenSSH_9.2\r\n\r\n']);
    const connection = await open(url);
    expect(await post(connection).catch((e: unknown) => e)).toMatchObject({ code: 'REMOTE_FAILED' });
  });

  it('a refused port is UNREACHABLE at the connect stage', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const error = await HttpConnection.open({
      url: new URL(`http://127.0.0.1:${port}/wsman`),
      timeoutMs: 2_000,
      signal: new AbortController().signal,
      context,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNREACHABLE', context: { step: 'connect' } });
  });

  it('normalizes and formats SHA-256 fingerprints', () => {
    expect(normalizeFingerprint('sha256:ab:cd ef')).toBe('ABCDEF');
    expect(formatFingerprint('abcdef')).toBe('AB:CD:EF');
  });
});
