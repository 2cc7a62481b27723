import { promises as fs } from 'node:fs';
import path from 'node:path';
import { APP_CSP, APP_HOST, APP_SCHEME } from './policies';

/**
 * The `windeck://app/` protocol: serves the built renderer (dist/renderer) to the window instead of `file://`, so
 * the page has a real, narrow origin, a CSP header on every answer, and no way to read other files. Registered
 * with `protocol.handle` in main.ts; this module only takes a Request and gives a Response (tested under Node).
 */

/** The scheme's privileges, for `protocol.registerSchemesAsPrivileged` before the app is ready. */
export const APP_SCHEME_PRIVILEGES = {
  scheme: APP_SCHEME,
  privileges: {
    standard: true,
    secure: true,
    supportFetchAPI: true,
    corsEnabled: true,
    stream: false,
    bypassCSP: false,
    allowServiceWorkers: false,
    codeCache: true,
  },
} as const;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** Headers on every answer of the protocol. */
export function securityHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': APP_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-cache',
  };
}

/**
 * Map a request path to a file under `rootDir`, or null when it would leave it. Percent-decoding happens once;
 * NUL, backslashes, drive letters and dot segments are refused, and the resolved path must stay inside the root.
 */
export function resolveAssetPath(rootDir: string, pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (!decoded.startsWith('/') || /[\0\\:]/.test(decoded)) return null;
  const segments = decoded.split('/').slice(1);
  if (segments.some((s) => s === '..' || s === '.')) return null;
  const relative = segments.join('/') || 'index.html';
  const root = path.resolve(rootDir);
  const full = path.resolve(root, relative);
  if (full !== root && !full.startsWith(root + path.sep)) return null;
  return full;
}

function contentType(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Put the CSP into the HTML as a meta tag as well: belt and braces in case a Chromium version ignores headers of
 * custom-scheme responses, and so static scanners see it.
 */
export function injectCspMeta(html: string, csp: string = APP_CSP): string {
  if (/http-equiv=["']?Content-Security-Policy/i.test(html)) return html;
  const meta = `<meta http-equiv="Content-Security-Policy" content="${csp.replace(/"/g, '&quot;')}">`;
  const head = /<head[^>]*>/i.exec(html);
  if (!head) return `${meta}\n${html}`;
  const at = head.index + head[0].length;
  return `${html.slice(0, at)}\n    ${meta}${html.slice(at)}`;
}

export interface AppProtocolOptions {
  /** Directory with the built renderer (index.html and assets). */
  rootDir: string;
}

function plain(status: number, text: string): Response {
  return new Response(text, { status, headers: { ...securityHeaders(), 'Content-Type': 'text/plain; charset=utf-8' } });
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * The handler for `protocol.handle('windeck', ...)`. GET/HEAD of files under rootDir; a path without a file
 * extension that does not exist answers index.html (client-side routes); anything else 404. Another host than
 * `app` is refused (403).
 */
export function createAppProtocolHandler(options: AppProtocolOptions): (request: Request) => Promise<Response> {
  const rootDir = path.resolve(options.rootDir);
  return async (request) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return plain(400, 'Bad request.');
    }
    if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST || url.username !== '' || url.password !== '') return plain(403, 'Forbidden.');
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'Method not allowed.');
    let file = resolveAssetPath(rootDir, url.pathname);
    if (!file) return plain(404, 'Not found.');
    if (!(await isFile(file))) {
      // A client-side route (no extension) gets the app; a missing asset is a plain 404.
      const index = path.join(rootDir, 'index.html');
      if (path.extname(file) !== '' && file !== index) return plain(404, 'Not found.');
      file = index;
      if (!(await isFile(file))) return plain(404, 'The renderer is not built: run `npm run build`.');
    }
    const type = contentType(file);
    const bytes = await fs.readFile(file);
    const body: string | ArrayBuffer = type.startsWith('text/html')
      ? injectCspMeta(bytes.toString('utf8'))
      : (bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    const headers = { ...securityHeaders(), 'Content-Type': type };
    return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers });
  };
}
