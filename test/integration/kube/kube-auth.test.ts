import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../../electron/services/kube/client';
import { resolveKubeconfig } from '../../../electron/services/kube/kubeconfig';
import { simWithClient } from '../../helpers/kube-sim';

/** kubeconfig auth and transport variants against the simulator: proxy-url, insecure TLS, token file, basic, cert files. */

let env: Awaited<ReturnType<typeof simWithClient>>;
let proxy: http.Server;
let proxyUrl: string;
const connects: string[] = [];

beforeAll(async () => {
  env = await simWithClient({ tokens: ['token-a', 'token-b'], basicAuth: [{ username: 'ops', password: 's3cret:with:colons' }] });
  // A CONNECT proxy on loopback that tunnels to loopback targets only.
  proxy = http.createServer((_req, res) => {
    res.writeHead(405);
    res.end();
  });
  proxy.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const [host, port] = String(req.url).split(':');
    connects.push(`${req.url} auth=${req.headers['proxy-authorization'] ?? ''}`);
    if (!host?.startsWith('127.') || req.headers['proxy-authorization'] !== `Basic ${Buffer.from('me:pw').toString('base64')}`) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      return;
    }
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://me:pw@127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  await env.close();
});

function kubeconfig(name: string, cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  const file = path.join(env.dir, name);
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'c',
    clusters: [{ name: 'sim', cluster: { server: env.sim.url, ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'c', context: { cluster: 'sim', user: 'u' } }],
  };
  fs.writeFileSync(file, JSON.stringify(doc));
  return file;
}

const ca = () => Buffer.from(env.sim.pki.caCert).toString('base64');

async function version(file: string): Promise<string> {
  const client = new KubeClient(resolveKubeconfig({ explicitPath: file, env: {} }), { env: {} });
  try {
    return (await client.version()).gitVersion;
  } finally {
    client.close();
  }
}

describe('kubeconfig auth and transport', () => {
  it('goes through an HTTP CONNECT proxy-url (with proxy credentials)', async () => {
    const file = kubeconfig('proxy', { 'certificate-authority-data': ca(), 'proxy-url': proxyUrl }, { token: 'token-a' });
    const before = connects.length;
    expect(await version(file)).toBe('v1.32.4');
    expect(connects.slice(before)[0]).toBe(`127.0.0.1:${env.sim.port} auth=Basic ${Buffer.from('me:pw').toString('base64')}`);
  });

  it('a proxy that refuses is UNREACHABLE with the reason', async () => {
    const file = kubeconfig('proxy-bad', { 'certificate-authority-data': ca(), 'proxy-url': proxyUrl.replace('me:pw', 'me:wrong') }, { token: 'token-a' });
    await expect(version(file)).rejects.toMatchObject({ code: 'UNREACHABLE', message: expect.stringMatching(/refused CONNECT \(HTTP 407\)/) });
  });

  it('SOCKS5 proxies are refused plainly as not supported yet', () => {
    const file = kubeconfig('socks', { 'certificate-authority-data': ca(), 'proxy-url': 'socks5://127.0.0.1:1080' }, { token: 'token-a' });
    expect(() => new KubeClient(resolveKubeconfig({ explicitPath: file, env: {} }))).toThrow(/SOCKS5 .*not SOCKS5 yet/);
  });

  it('insecure-skip-tls-verify works and is reported as a warning', async () => {
    const file = kubeconfig('insecure', { 'insecure-skip-tls-verify': true }, { token: 'token-a' });
    expect(resolveKubeconfig({ explicitPath: file, env: {} }).warnings[0]).toMatch(/TLS verification is off/);
    expect(await version(file)).toBe('v1.32.4');
    // Without the flag and without the CA, the server is not trusted.
    await expect(version(kubeconfig('no-ca', {}, { token: 'token-a' }))).rejects.toMatchObject({ code: 'UNREACHABLE', message: expect.stringMatching(/TLS verification/) });
  });

  it('reads the token file on each request (rotation), and basic auth with colons in the password', async () => {
    const tokenFile = path.join(env.dir, 'token');
    fs.writeFileSync(tokenFile, 'token-a\n');
    const file = kubeconfig('tokenfile', { 'certificate-authority-data': ca() }, { tokenFile: 'token' });
    const client = new KubeClient(resolveKubeconfig({ explicitPath: file, env: {} }), { env: {} });
    expect((await client.version()).gitVersion).toBe('v1.32.4');
    fs.writeFileSync(tokenFile, 'token-revoked');
    await expect(client.version()).rejects.toMatchObject({ code: 'AUTH_FAILED' });
    fs.writeFileSync(tokenFile, 'token-b');
    expect((await client.version()).gitVersion).toBe('v1.32.4');
    client.close();
    expect(await version(kubeconfig('basic', { 'certificate-authority-data': ca() }, { username: 'ops', password: 's3cret:with:colons' }))).toBe('v1.32.4');
  });

  it('client certificate and CA from files next to the kubeconfig', async () => {
    fs.writeFileSync(path.join(env.dir, 'ca.crt'), env.sim.pki.caCert);
    fs.writeFileSync(path.join(env.dir, 'admin.crt'), env.sim.pki.clientCert);
    fs.writeFileSync(path.join(env.dir, 'admin.key'), env.sim.pki.clientKey);
    expect(await version(kubeconfig('files', { 'certificate-authority': 'ca.crt' }, { 'client-certificate': 'admin.crt', 'client-key': 'admin.key' }))).toBe('v1.32.4');
  });
});
