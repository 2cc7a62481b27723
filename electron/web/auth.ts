import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { WEB_TOKEN_BYTES } from '../../shared/domain/limits';

export const SESSION_COOKIE = 'windeck_session';

export type AuthVerdict = { ok: true; viaToken: boolean } | { ok: false; status: 401 | 403; reason: string };

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}

function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

/**
 * The web host's gate (DESIGN.md section 1): a per-launch token in the URL, traded for an HttpOnly, SameSite=Strict
 * session cookie; Host must be 127.0.0.1:PORT or localhost:PORT and a present Origin must match (against DNS
 * rebinding and cross-site sockets). The token is never logged.
 */
export class WebAuth {
  readonly token: string;
  private readonly session: string;
  private port = 0;

  constructor(random: (n: number) => Buffer = crypto.randomBytes) {
    this.token = random(WEB_TOKEN_BYTES).toString('hex');
    this.session = random(WEB_TOKEN_BYTES).toString('hex');
  }

  setPort(port: number): void {
    this.port = port;
  }

  allowedHosts(): string[] {
    return [`127.0.0.1:${this.port}`, `localhost:${this.port}`];
  }

  allowedOrigins(): string[] {
    return this.allowedHosts().map((h) => `http://${h}`);
  }

  sessionCookie(): string {
    return `${SESSION_COOKIE}=${this.session}; HttpOnly; SameSite=Strict; Path=/`;
  }

  check(req: IncomingMessage, url: URL): AuthVerdict {
    const host = req.headers.host ?? '';
    if (!this.allowedHosts().includes(host)) return { ok: false, status: 403, reason: 'foreign Host header' };
    const origin = req.headers.origin;
    if (origin !== undefined && !this.allowedOrigins().includes(origin)) return { ok: false, status: 403, reason: 'foreign Origin' };
    const token = url.searchParams.get('token');
    if (token !== null && safeEqual(token, this.token)) return { ok: true, viaToken: true };
    const cookie = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
    if (cookie !== undefined && safeEqual(cookie, this.session)) return { ok: true, viaToken: false };
    return { ok: false, status: 401, reason: 'missing or wrong token' };
  }
}
