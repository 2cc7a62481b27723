/**
 * Browser import by upload on the real web host (loopback HTTP, real store file, real diagnosis): the same gate
 * as /api/rpc (cookie, Host, Origin), a size limit, clear answers for bad zips, and temp files removed afterwards.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { once } from 'node:events';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebHost, type WebHost } from '../../../electron/web/server';
import { testServices } from '../../helpers/services';
import { tempDir } from '../../helpers/temp-dir';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(
  port: number,
  pathname: string,
  options: { headers?: Record<string, string>; method?: string; body?: Buffer | string; chunks?: Buffer[] } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathname, method: options.method ?? 'POST', headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (options.chunks) for (const c of options.chunks) req.write(c);
    else if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

async function zipOf(members: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(members)) zip.addBuffer(Buffer.from(data), name);
  zip.end();
  const chunks: Buffer[] = [];
  zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
  await once(zip.outputStream, 'end');
  return Buffer.concat(chunks);
}

const manifest = JSON.stringify({
  format: 'windeck-bundle',
  version: 1,
  created: '2026-01-01T00:00:00Z',
  tool: { name: 'windeck', version: '0.1.0' },
  nodes: ['win-3'],
  files: [],
  status: 'complete',
  errors: [],
});
const servicesRaw = JSON.stringify([
  { Name: 'kubelet', DisplayName: 'kubelet', Status: 4, StartType: 2 },
  { Name: 'kube-proxy', DisplayName: 'kube-proxy', Status: 1, StartType: 2 },
]);
const UPLOAD_LIMIT = 64 * 1024;

describe('web host uploads', () => {
  const env = testServices();
  const staticDir = tempDir();
  let host: WebHost;
  let cookie = '';
  const uploads = () => path.join(env.home, 'tmp', 'uploads');
  const bin = (extra: Record<string, string> = {}) => ({ Cookie: cookie, 'Content-Type': 'application/octet-stream', ...extra });

  async function waitOp(operationId: string): Promise<{ state: string; result?: unknown; error?: { message: string } }> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await env.services.dispatch('ops:get', { operationId });
      const op = (r.ok ? r.value : null) as { state: string; result?: unknown; error?: { message: string } } | null;
      if (op && !['queued', 'running'].includes(op.state)) return op;
      if (Date.now() > deadline) throw new Error(`operation ${operationId} did not end`);
      await new Promise((res) => setTimeout(res, 20));
    }
  }

  beforeAll(async () => {
    fs.writeFileSync(path.join(staticDir.dir, 'index.html'), '<!doctype html><title>Windeck</title>');
    host = await startWebHost({ services: env.services, staticDir: staticDir.dir, uploadMaxBytes: UPLOAD_LIMIT });
    const token = new URL(host.url).searchParams.get('token') ?? '';
    const reply = await request(host.port, `/?token=${token}`, { method: 'GET' });
    cookie = String(reply.headers['set-cookie']).split(';')[0]!;
  });
  afterAll(async () => {
    await host.close();
    await env.cleanup();
    staticDir.cleanup();
  });

  it('answers 401 without the cookie and 403 from a foreign Origin, with the security headers', async () => {
    const noCookie = await request(host.port, '/api/upload?name=a.zip', { headers: { 'Content-Type': 'application/octet-stream' }, body: 'x' });
    expect(noCookie.status).toBe(401);
    const foreign = await request(host.port, '/api/upload?name=a.zip', { headers: bin({ Origin: 'http://evil.example' }), body: 'x' });
    expect(foreign.status).toBe(403);
    const wrongType = await request(host.port, '/api/upload?name=a.txt', { headers: { Cookie: cookie, 'Content-Type': 'text/plain' }, body: 'x' });
    expect(wrongType.status).toBe(415);
    expect(wrongType.headers['content-security-policy']).toContain("default-src 'self'");
    const get = await request(host.port, '/api/upload', { method: 'GET', headers: { Cookie: cookie } });
    expect(get.status).toBe(405);
    expect(fs.existsSync(uploads()) ? fs.readdirSync(uploads()) : []).toEqual([]);
  });

  it('answers 413 over the limit, declared or streamed, and keeps nothing', async () => {
    const big = Buffer.alloc(UPLOAD_LIMIT + 1, 0x41);
    const declared = await request(host.port, '/api/upload?name=big.log', { headers: bin(), body: big });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ ok: false, error: { code: 'VALIDATION', message: expect.stringContaining('too large') } });
    // Chunked (no Content-Length): cut off while streaming.
    const streamed = await request(host.port, '/api/upload?name=big.log', {
      headers: bin({ 'Transfer-Encoding': 'chunked' }),
      chunks: [big.subarray(0, 40_000), big.subarray(40_000)],
    });
    expect(streamed.status).toBe(413);
    for (const batch of fs.existsSync(uploads()) ? fs.readdirSync(uploads()) : []) expect(fs.readdirSync(path.join(uploads(), batch))).toEqual([]);
  });

  it('says clearly when a zip is not a zip or is truncated, and refuses unsafe names', async () => {
    const notZip = await request(host.port, '/api/upload?name=bundle.zip', { headers: bin(), body: 'this is a text file\n' });
    expect(notZip.status).toBe(422);
    expect(JSON.parse(notZip.body).error).toMatchObject({ code: 'VALIDATION', message: expect.stringMatching(/^bundle\.zip is not a zip archive/) });
    const whole = await zipOf({ 'manifest.json': manifest, 'nodes/win-3/probes/services.raw': servicesRaw });
    const truncated = await request(host.port, '/api/upload?name=cut.zip', { headers: bin(), body: whole.subarray(0, Math.floor(whole.length / 2)) });
    expect(truncated.status).toBe(422);
    expect(JSON.parse(truncated.body).error.message).toMatch(/^cut\.zip is not a readable zip archive \(truncated or damaged\?\)/);
    const traversal = await request(host.port, `/api/upload?name=${encodeURIComponent('../../evil.txt')}`, { headers: bin(), body: 'x' });
    expect(traversal.status).toBe(400);
    expect(fs.existsSync(path.join(env.home, 'tmp', 'evil.txt'))).toBe(false);
    const unknownBatch = await request(host.port, `/api/upload/diagnose?batch=${'0'.repeat(32)}`, { headers: bin() });
    expect(unknownBatch.status).toBe(404);
  });

  it('diagnoses an uploaded bundle zip like the CLI and removes the temp files', async () => {
    const zip = await zipOf({ 'manifest.json': manifest, 'nodes/win-3/probes/services.raw': servicesRaw });
    const up = await request(host.port, '/api/upload?name=windeck-win-3.zip', { headers: bin({ 'Content-Type': 'application/zip' }), body: zip });
    expect(up.status, up.body).toBe(200);
    const { batch } = JSON.parse(up.body).value as { batch: string };
    expect(fs.readdirSync(path.join(uploads(), batch))).toEqual(['windeck-win-3.zip']);
    const started = await request(host.port, `/api/upload/diagnose?batch=${batch}`, { headers: bin() });
    expect(started.status, started.body).toBe(200);
    const op = await waitOp((JSON.parse(started.body).value as { operationId: string }).operationId);
    expect(op.state).toBe('succeeded');
    const result = op.result as { inputs: Array<{ path: string; kind: string }>; findings: Array<{ ruleId: string; node: string | null }> };
    expect(result.inputs).toEqual([
      { path: 'manifest.json', kind: 'windeck-manifest' },
      { path: 'nodes/win-3/probes/services.raw', kind: 'get-service-json' },
    ]);
    expect(result.findings.filter((f) => f.ruleId === 'service-not-running')).toEqual([expect.objectContaining({ node: 'win-3' })]);
    await expect.poll(() => fs.existsSync(path.join(uploads(), batch))).toBe(false);
    const again = await request(host.port, `/api/upload/diagnose?batch=${batch}`, { headers: bin() });
    expect(again.status).toBe(404);
  });

  it('removes upload folders an earlier run left behind once they are older than the TTL', async () => {
    const stale = path.join(uploads(), 'a'.repeat(32));
    const fresh = path.join(uploads(), 'b'.repeat(32));
    for (const dir of [stale, fresh]) {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'left.log'), 'x');
    }
    const old = new Date(Date.now() - 2 * 60 * 60_000);
    fs.utimesSync(stale, old, old);
    const up = await request(host.port, '/api/upload?name=one.log', { headers: bin(), body: 'hello\n' });
    expect(up.status, up.body).toBe(200);
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
    fs.rmSync(fresh, { recursive: true });
  });

  it('diagnoses a dropped folder (several files, one batch) as one input set', async () => {
    const first = await request(host.port, `/api/upload?name=${encodeURIComponent('node-logs/k/sourcevip.json')}`, {
      headers: bin(),
      body: '{"code":999,"msg":"no IP addresses available in range set"}',
    });
    expect(first.status, first.body).toBe(200);
    const { batch } = JSON.parse(first.body).value as { batch: string };
    const second = await request(host.port, `/api/upload?batch=${batch}&name=${encodeURIComponent('node-logs/services.json')}`, {
      headers: bin(),
      body: servicesRaw,
    });
    expect(JSON.parse(second.body).value).toMatchObject({ batch, files: 2 });
    const started = await request(host.port, `/api/upload/diagnose?batch=${batch}`, { headers: bin() });
    const op = await waitOp((JSON.parse(started.body).value as { operationId: string }).operationId);
    expect(op.state).toBe('succeeded');
    const result = op.result as { inputs: Array<{ path: string; kind: string }>; findings: Array<{ ruleId: string }> };
    expect(result.inputs.map((i) => i.path).sort()).toEqual(['node-logs/k/sourcevip.json', 'node-logs/services.json']);
    expect(result.findings.map((f) => f.ruleId)).toEqual(expect.arrayContaining(['sourcevip-invalid', 'service-not-running']));
    await expect.poll(() => fs.existsSync(path.join(uploads(), batch))).toBe(false);
  });
});
