import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { backoffDelayMs, createWebSocketTransport, type WebSocketLike } from '../../../../renderer/api/websocket-transport';
import type { ConnectionState, Transport } from '../../../../renderer/api/transport';
import { waitFor } from '../../../helpers/temp-dir';

interface Server {
  wss: WebSocketServer;
  url: string;
  port: number;
  frames: unknown[];
  sockets: Set<WebSocket>;
}

/** A real WebSocket server on 127.0.0.1 speaking the web host's frames; answers `echo` calls, can hold others. */
async function startServer(port = 0, opts: { hold?: boolean } = {}): Promise<Server> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const actual = (wss.address() as AddressInfo).port;
  const server: Server = { wss, url: `ws://127.0.0.1:${actual}/api/ws`, port: actual, frames: [], sockets: new Set() };
  wss.on('connection', (ws) => {
    server.sockets.add(ws);
    ws.on('close', () => server.sockets.delete(ws));
    ws.send(JSON.stringify({ kind: 'hello', contractVersion: 1 }));
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { id: number; method: string; input: unknown };
      server.frames.push(frame);
      if (opts.hold || frame.method === 'hold') return;
      ws.send(JSON.stringify({ kind: 'result', id: frame.id, result: { ok: true, value: { method: frame.method, input: frame.input } } }));
    });
  });
  return server;
}

async function stop(server: Server): Promise<void> {
  for (const s of server.sockets) s.terminate();
  await new Promise<void>((resolve) => server.wss.close(() => resolve()));
}

const nodeSocket = (url: string) => new WebSocket(url) as unknown as WebSocketLike;

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

function track(t: Transport): Transport {
  cleanups.push(() => t.dispose());
  return t;
}

describe('WebSocket transport', () => {
  it('connects, learns the contract version, matches results to calls and fans out events', async () => {
    const server = await startServer();
    cleanups.push(() => stop(server));
    const t = track(createWebSocketTransport({ url: server.url, createSocket: nodeSocket }));
    const events: Array<[string, unknown]> = [];
    t.subscribe((event, payload) => events.push([event, payload]));
    const [a, b] = await Promise.all([t.call('app:info', {}), t.call('nodes:list', { cluster: 'x' })]);
    expect(a).toEqual({ ok: true, value: { method: 'app:info', input: {} } });
    expect(b).toEqual({ ok: true, value: { method: 'nodes:list', input: { cluster: 'x' } } });
    await waitFor(() => t.connection().contractVersion === 1);
    expect(t.connection().status).toBe('open');
    for (const s of server.sockets)
      s.send(JSON.stringify({ kind: 'event', event: 'store:changed', payload: { scopes: ['nodes'], cluster: null, node: null, at: 1 } }));
    for (const s of server.sockets) s.send(JSON.stringify({ kind: 'event', event: 'not:an-event', payload: {} }));
    await waitFor(() => events.length === 1);
    expect(events[0]?.[0]).toBe('store:changed');
  });

  it('answers UNREACHABLE for calls in flight when the socket drops, shows "lost", reconnects and sends queued calls', async () => {
    const server = await startServer();
    const states: ConnectionState[] = [];
    const t = track(createWebSocketTransport({ url: server.url, createSocket: nodeSocket, minDelayMs: 20, maxDelayMs: 100 }));
    t.onConnection((s) => states.push(s));
    await waitFor(() => t.connection().status === 'open');
    const inFlight = t.call('hold', {});
    await waitFor(() => server.frames.length === 1);
    const port = server.port;
    await stop(server);
    const dropped = await inFlight;
    expect(dropped.ok).toBe(false);
    if (!dropped.ok) expect(dropped.error.code).toBe('UNREACHABLE');
    await waitFor(() => t.connection().status === 'lost');
    expect(t.connection().downSince).not.toBeNull();

    // While down, a call waits; when the backend is back on the same port it goes through.
    const queued = t.call('app:info', { q: 1 });
    const again = await startServer(port);
    cleanups.push(() => stop(again));
    expect(await queued).toEqual({ ok: true, value: { method: 'app:info', input: { q: 1 } } });
    expect(t.connection().status).toBe('open');
    expect(t.connection().generation).toBe(2);
    expect(states.some((s) => s.status === 'lost' && s.nextRetryAt !== null)).toBe(true);
  });

  it('fails a queued call with UNREACHABLE after the queue timeout when nothing listens', async () => {
    const server = await startServer();
    const port = server.port;
    await stop(server);
    const t = track(
      createWebSocketTransport({ url: `ws://127.0.0.1:${port}/api/ws`, createSocket: nodeSocket, minDelayMs: 20, maxDelayMs: 50, queueTimeoutMs: 200 }),
    );
    const r = await t.call('app:info', {});
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('UNREACHABLE');
      expect(r.error.retryable).toBe(true);
    }
    expect(t.connection().generation).toBe(0);
    expect(t.connection().attempt).toBeGreaterThan(0);
  });

  it('rejects malformed result frames as INTERNAL instead of passing them on', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const c of wss.clients) c.terminate();
          wss.close(() => resolve());
        }),
    );
    wss.on('connection', (ws) =>
      ws.on('message', (d) => ws.send(JSON.stringify({ kind: 'result', id: (JSON.parse(String(d)) as { id: number }).id, result: 'garbage' }))),
    );
    const t = track(createWebSocketTransport({ url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/api/ws`, createSocket: nodeSocket }));
    const r = await t.call('app:info', {});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('INTERNAL');
  });

  it('dispose answers pending work and stops reconnecting', async () => {
    const server = await startServer(0, { hold: true });
    cleanups.push(() => stop(server));
    const t = createWebSocketTransport({ url: server.url, createSocket: nodeSocket, minDelayMs: 10 });
    await waitFor(() => t.connection().status === 'open');
    const p = t.call('x', {});
    await waitFor(() => server.frames.length === 1);
    t.dispose();
    const r = await p;
    expect(r.ok).toBe(false);
    await waitFor(() => server.sockets.size === 0);
  });

  it('backs off exponentially with jitter, capped', () => {
    expect(backoffDelayMs(1, 500, 15_000, 1)).toBe(500);
    expect(backoffDelayMs(2, 500, 15_000, 1)).toBe(1000);
    expect(backoffDelayMs(3, 500, 15_000, 0)).toBe(1000);
    expect(backoffDelayMs(20, 500, 15_000, 1)).toBe(15_000);
  });
});
