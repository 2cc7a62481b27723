import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { CONTRACT_VERSION } from '../../shared/contract/version';
import type { ClientFrame, ServerFrame } from '../../shared/contract/events';
import { WEB_MAX_FRAME_BYTES } from '../../shared/domain/limits';
import type { Services } from '../services/create-services';
import { WebAuth } from './auth';
import { serveStatic } from './static';
import { UploadService } from './upload';

export interface WebHostOptions {
  services: Services;
  /** Directory with the built renderer (dist/renderer). */
  staticDir: string;
  /** 0 = any free port. */
  port?: number;
  /** Bytes one browser upload may hold (default WEB_UPLOAD_MAX_BYTES). */
  uploadMaxBytes?: number;
}

export interface WebHost {
  /** `http://127.0.0.1:PORT/?token=<hex>`: the one URL that opens the console. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Kept below this, a slow socket gets its events coalesced rather than queued without bound. */
const SOCKET_BACKLOG_BYTES = 4 * 1024 * 1024;

function securityHeaders(port: number): Record<string, string> {
  return {
    'Content-Security-Policy': [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
      "form-action 'self'",
    ].join('; '),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}

function isClientFrame(value: unknown): value is ClientFrame {
  const v = value as Partial<ClientFrame> | null;
  return !!v && v.kind === 'call' && typeof v.id === 'number' && Number.isSafeInteger(v.id) && typeof v.method === 'string';
}

/**
 * The web host (DESIGN.md section 1): the built renderer and the contract over HTTP + WebSocket, on 127.0.0.1 only,
 * behind a per-launch token traded for a session cookie.
 */
export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const { services, staticDir } = options;
  const auth = new WebAuth();
  const sockets = new Set<WebSocket>();
  const uploads = new UploadService({ core: services.core, ...(options.uploadMaxBytes !== undefined ? { maxBytes: options.uploadMaxBytes } : {}) });
  let port = 0;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const headers = securityHeaders(port);
    const verdict = auth.check(req, url);
    if (!verdict.ok) {
      res.writeHead(verdict.status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(verdict.status === 401 ? 'Unauthorized: open the URL with the token that `windeck serve` printed.\n' : 'Forbidden.\n');
      return;
    }
    if (verdict.viaToken) {
      // Trade the token for the cookie and drop it from the address bar (and from any later Referer).
      url.searchParams.delete('token');
      res.writeHead(302, { ...headers, 'Set-Cookie': auth.sessionCookie(), Location: url.pathname + (url.search || '') });
      res.end();
      return;
    }
    if (url.pathname === '/api/upload' || url.pathname.startsWith('/api/upload/')) {
      void uploads.handle(req, res, url, headers);
      return;
    }
    if (url.pathname === '/api/rpc') {
      if (req.method !== 'POST') {
        res.writeHead(405, { ...headers, Allow: 'POST' }).end();
        return;
      }
      let size = 0;
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > WEB_MAX_FRAME_BYTES) {
          res.writeHead(413, headers).end('Request too large.');
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => {
        let body: { method?: unknown; input?: unknown };
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method?: unknown; input?: unknown };
        } catch {
          res.writeHead(400, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }).end('Malformed JSON.');
          return;
        }
        if (typeof body?.method !== 'string') {
          res.writeHead(400, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }).end('A call needs {"method": string, "input": object}.');
          return;
        }
        void services.dispatch(body.method, body.input, { host: 'web' }).then((result) => {
          res.writeHead(200, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
          res.end(JSON.stringify(result));
        });
      });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, headers).end();
      return;
    }
    serveStatic(staticDir, url.pathname, res, headers);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: WEB_MAX_FRAME_BYTES });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const verdict = auth.check(req, url);
    if (!verdict.ok || url.pathname !== '/api/ws') {
      const status = !verdict.ok ? verdict.status : 404;
      socket.end(
        `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Not Found'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket) => {
    sockets.add(ws);
    const send = (frame: ServerFrame) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
    };
    send({ kind: 'hello', contractVersion: CONTRACT_VERSION });
    const unsubscribe = services.events.subscribe((event, payload) => {
      if (ws.bufferedAmount > SOCKET_BACKLOG_BYTES && event === 'ops:progress') return;
      send({ kind: 'event', event, payload });
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        ws.close(1003, 'text frames only');
        return;
      }
      let frame: unknown;
      try {
        frame = JSON.parse(data.toString());
      } catch {
        ws.close(1007, 'malformed frame');
        return;
      }
      if (!isClientFrame(frame)) {
        ws.close(1008, 'unexpected frame');
        return;
      }
      void services.dispatch(frame.method, frame.input, { host: 'web' }).then((result) => send({ kind: 'result', id: frame.id, result }));
    });
    ws.on('close', () => {
      unsubscribe();
      sockets.delete(ws);
    });
    ws.on('error', () => undefined);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  auth.setPort(port);

  return {
    url: `http://127.0.0.1:${port}/?token=${auth.token}`,
    port,
    async close() {
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await uploads.dispose();
    },
  };
}
