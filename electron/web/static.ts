import fs from 'node:fs';
import path from 'node:path';
import type { ServerResponse } from 'node:http';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

/** Serve a file from `root` (no traversal outside it); unknown paths get index.html (single-page app). */
export function serveStatic(root: string, urlPath: string, res: ServerResponse, headers: Record<string, string>): void {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    res.writeHead(400, headers).end('Bad path');
    return;
  }
  const resolved = path.resolve(root, '.' + path.posix.normalize('/' + rel));
  const inside = resolved === root || resolved.startsWith(root + path.sep);
  let file = inside ? resolved : path.join(root, 'index.html');
  try {
    if (!fs.statSync(file).isFile()) file = path.join(root, 'index.html');
  } catch {
    file = path.join(root, 'index.html');
  }
  if (!fs.existsSync(file)) {
    res.writeHead(503, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }).end('The Windeck renderer is not built. Run `npm run build` (npm ci does this in prepare).');
    return;
  }
  const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
  const isIndex = path.basename(file) === 'index.html';
  res.writeHead(200, { ...headers, 'Content-Type': type, 'Cache-Control': isIndex ? 'no-store' : 'max-age=3600' });
  fs.createReadStream(file).pipe(res);
}
