import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebHost, type WebHost } from '../../../electron/web/server';
import { testServices } from '../../helpers/services';
import { tempDir } from '../../helpers/temp-dir';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(port: number, pathname: string, options: { headers?: Record<string, string>; method?: string; body?: string; host?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: options.host ?? '127.0.0.1', port, path: pathname, method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (options.body) req.write(options.body);
    req.end();
  });
}

describe('web host', () => {
  const env = testServices();
  const staticDir = tempDir();
  let host: WebHost;
  let token = '';
  let cookie = '';

  beforeAll(async () => {
    fs.writeFileSync(path.join(staticDir.dir, 'index.html'), '<!doctype html><title>Windeck</title><div id="root"></div>');
    host = await startWebHost({ services: env.services, staticDir: staticDir.dir });
    token = new URL(host.url).searchParams.get('token') ?? '';
  });
  afterAll(async () => {
    await host.close();
    await env.cleanup();
    staticDir.cleanup();
  });

  it('prints a 127.0.0.1 URL with a 32-byte hex token', () => {
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}$/);
  });

  it('listens on 127.0.0.1 only', async () => {
    // Another loopback address reaches this machine but not a socket bound to 127.0.0.1.
    const refused = await new Promise<string>((resolve) => {
      const socket = net.connect({ host: '127.0.0.2', port: host.port });
      socket.on('connect', () => (socket.destroy(), resolve('connected')));
      socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
    const ok = await request(host.port, '/', { headers: { Host: `127.0.0.1:${host.port}` } });
    expect(ok.status).toBe(401);
  });

  it('answers 401 without token or cookie, also with a wrong token', async () => {
    expect((await request(host.port, '/')).status).toBe(401);
    expect((await request(host.port, '/?token=' + '0'.repeat(64))).status).toBe(401);
    expect((await request(host.port, '/api/rpc', { method: 'POST', body: '{"method":"app:info","input":{}}' })).status).toBe(401);
  });

  it('answers 403 to a foreign Host or Origin even with the token', async () => {
    expect((await request(host.port, `/?token=${token}`, { headers: { Host: `evil.example:${host.port}` } })).status).toBe(403);
    expect((await request(host.port, `/?token=${token}`, { headers: { Host: `127.0.0.1:1` } })).status).toBe(403);
    expect((await request(host.port, `/?token=${token}`, { headers: { Origin: 'http://evil.example' } })).status).toBe(403);
  });

  it('trades the token for an HttpOnly SameSite=Strict cookie and redirects to a clean URL', async () => {
    const reply = await request(host.port, `/?token=${token}`);
    expect(reply.status).toBe(302);
    expect(reply.headers.location).toBe('/');
    const setCookie = String(reply.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).not.toContain(token);
    cookie = setCookie.split(';')[0] as string;
    const page = await request(host.port, '/', { headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>Windeck</title>');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const traversal = await request(host.port, '/../../etc/passwd', { headers: { Cookie: cookie } });
    expect(traversal.body).not.toContain('root:');
  });

  it('serves the contract over POST /api/rpc in envelopes, 400 for malformed frames', async () => {
    const reply = await request(host.port, '/api/rpc', { method: 'POST', headers: { Cookie: cookie, 'Content-Type': 'application/json' }, body: JSON.stringify({ method: 'app:info', input: {} }) });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ ok: true, value: { name: 'Windeck', host: 'test' } });
    const bad = await request(host.port, '/api/rpc', { method: 'POST', headers: { Cookie: cookie }, body: '{not json' });
    expect(bad.status).toBe(400);
    const invalid = await request(host.port, '/api/rpc', { method: 'POST', headers: { Cookie: cookie }, body: JSON.stringify({ method: 'nodes:get', input: {} }) });
    expect(JSON.parse(invalid.body)).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
  });

  it('refuses a WebSocket without the cookie or from a foreign origin, and serves calls and events with it', async () => {
    const url = `ws://127.0.0.1:${host.port}/api/ws`;
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(url);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => undefined);
    });
    expect(refused).toBe(401);
    const foreign = await new Promise<number>((resolve) => {
      const ws = new WebSocket(url, { headers: { Cookie: cookie, Origin: 'http://evil.example' } });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => undefined);
    });
    expect(foreign).toBe(403);

    const ws = new WebSocket(url, { headers: { Cookie: cookie, Origin: `http://127.0.0.1:${host.port}` } });
    const frames: Array<Record<string, unknown>> = [];
    ws.on('message', (d) => frames.push(JSON.parse(d.toString()) as Record<string, unknown>));
    await new Promise((resolve) => ws.on('open', resolve));
    ws.send(JSON.stringify({ kind: 'call', id: 7, method: 'clusters:list', input: {} }));
    const deadline = Date.now() + 5000;
    while (!frames.some((f) => f.kind === 'result') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(frames[0]).toMatchObject({ kind: 'hello', contractVersion: 1 });
    expect(frames.find((f) => f.kind === 'result')).toMatchObject({ id: 7, result: { ok: true, value: [] } });

    env.services.core.changed(['nodes'], 'c1', null);
    while (!frames.some((f) => f.kind === 'event') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(frames.find((f) => f.kind === 'event')).toMatchObject({ event: 'store:changed', payload: { scopes: ['nodes'], cluster: 'c1' } });

    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    ws.send('{garbage');
    expect(await closed).toBe(1007);
  });
});
