import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppProtocolHandler, injectCspMeta, resolveAssetPath } from '../../../../electron/main/app-protocol';
import { APP_CSP } from '../../../../electron/main/policies';
import { tempDir } from '../../../helpers/temp-dir';

describe('windeck:// protocol handler', () => {
  let tmp: ReturnType<typeof tempDir>;
  let root: string;
  let handle: (request: Request) => Promise<Response>;

  beforeEach(() => {
    tmp = tempDir();
    root = path.join(tmp.dir, 'renderer');
    fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
    fs.writeFileSync(
      path.join(root, 'index.html'),
      '<!doctype html><html><head><title>Windeck</title></head><body><div id="root"></div><script type="module" src="/assets/app.js"></script></body></html>',
    );
    fs.writeFileSync(path.join(root, 'assets', 'app.js'), 'console.log("app")');
    fs.writeFileSync(path.join(root, 'assets', 'app.css'), 'body{}');
    // A secret next to the renderer directory that must never be served.
    fs.writeFileSync(path.join(tmp.dir, 'secret.txt'), 'canary-secret');
    fs.mkdirSync(path.join(tmp.dir, 'renderer-evil'));
    fs.writeFileSync(path.join(tmp.dir, 'renderer-evil', 'x.js'), 'canary-secret');
    handle = createAppProtocolHandler({ rootDir: root });
  });
  afterEach(() => tmp.cleanup());

  const get = (url: string, method = 'GET') => handle(new Request(url, { method }));

  it('serves index.html with the CSP as header and as meta tag', async () => {
    const res = await get('windeck://app/index.html');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(APP_CSP);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${APP_CSP}">`);
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<script'));
  });

  it('serves assets with their type, and the app for client-side routes', async () => {
    const js = await get('windeck://app/assets/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await js.text()).toBe('console.log("app")');
    expect((await get('windeck://app/assets/app.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    const route = await get('windeck://app/nodes/win-1');
    expect(route.status).toBe(200);
    expect(await route.text()).toContain('<div id="root">');
    expect((await get('windeck://app/')).status).toBe(200);
  });

  it('answers 404 for a missing asset rather than the app', async () => {
    expect((await get('windeck://app/assets/missing.js')).status).toBe(404);
  });

  it.each([
    'windeck://app/../secret.txt',
    'windeck://app/%2e%2e/secret.txt',
    'windeck://app/%2e%2e%2fsecret.txt',
    'windeck://app/assets/%2e%2e/%2e%2e/secret.txt',
    'windeck://app/..%5csecret.txt',
    'windeck://app/%5c..%5csecret.txt',
    'windeck://app/%00index.html',
    'windeck://app/C:%5cWindows%5cwin.ini',
    'windeck://app/../renderer-evil/x.js',
    'windeck://app/%2e%2e/renderer-evil/x.js',
  ])('never leaves the renderer directory: %s', async (url) => {
    const res = await get(url);
    expect(await res.text()).not.toContain('canary-secret');
  });

  it('refuses other hosts, credentials and methods', async () => {
    expect((await get('windeck://evil/index.html')).status).toBe(403);
    expect((await get('windeck://app/index.html', 'POST')).status).toBe(405);
    const head = await get('windeck://app/index.html', 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('says how to build when the renderer is missing', async () => {
    const empty = createAppProtocolHandler({ rootDir: path.join(tmp.dir, 'nothing') });
    const res = await empty(new Request('windeck://app/'));
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/npm run build/);
  });
});

describe('resolveAssetPath', () => {
  it('maps paths inside the root and refuses the rest', () => {
    const root = path.resolve('/srv/renderer');
    expect(resolveAssetPath(root, '/')).toBe(path.join(root, 'index.html'));
    expect(resolveAssetPath(root, '/assets/a.js')).toBe(path.join(root, 'assets', 'a.js'));
    expect(resolveAssetPath(root, '/../x')).toBeNull();
    expect(resolveAssetPath(root, '/a/%2e%2e/%2e%2e/x')).toBeNull();
    expect(resolveAssetPath(root, '/a%5cb')).toBeNull();
    expect(resolveAssetPath(root, '/%E0%A4%A')).toBeNull();
    expect(resolveAssetPath(root, 'relative')).toBeNull();
  });
});

describe('injectCspMeta', () => {
  it('adds the tag once, right after <head>', () => {
    const once = injectCspMeta('<html><head lang="en"><script src="/a.js"></script></head></html>');
    expect(once.indexOf('Content-Security-Policy')).toBeLessThan(once.indexOf('<script'));
    expect(injectCspMeta(once)).toBe(once);
  });
});
