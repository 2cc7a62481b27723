import net from 'node:net';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { WindeckError, type ErrorContext } from '../../../../shared/contract/errors';

/**
 * One HTTP/1.1 connection to a WinRM listener, used for one request at a time. NTLM authenticates the TCP
 * connection, not a request, so the WinRM client must know exactly which socket a request travels on; Node's
 * pooled `http.Agent` hides that, hence this small client. It speaks only what WinRM needs: POST with a
 * Content-Length body; responses with Content-Length, chunked encoding, or read-to-close.
 */

export interface TlsTrust {
  /** Extra trusted CA certificates (PEM). When set they replace the system roots, as in Node's `tls`. */
  ca?: string | Buffer | Array<string | Buffer>;
  /**
   * SHA-256 fingerprint of the expected server certificate (hex, colons and case ignored). When set, the
   * certificate must match it exactly and chain validation is not used: a pinned self-signed WinRM
   * certificate is accepted, anything else is refused.
   */
  pinnedSha256?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string[]>;
  body: Buffer;
}

export const HTTP_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

export function normalizeFingerprint(value: string): string {
  return value
    .replace(/^sha256:/i, '')
    .replace(/[^0-9a-fA-F]/g, '')
    .toUpperCase();
}

/** Formats a SHA-256 fingerprint the way Windows certificate dialogs and `openssl x509 -fingerprint` show it. */
export function formatFingerprint(hex: string): string {
  return normalizeFingerprint(hex).replace(/(..)(?=.)/g, '$1:');
}

function abortError(signal: AbortSignal, stage: string, context: ErrorContext): WindeckError {
  const reason = signal.reason as { name?: string } | undefined;
  if (reason instanceof WindeckError) return reason;
  if (reason?.name === 'TimeoutError') {
    return new WindeckError('TIMEOUT', `The operation's time limit ran out during WinRM ${stage}.`, { ...context, step: stage });
  }
  return new WindeckError('CANCELLED', `WinRM ${stage} was cancelled.`, { ...context, step: stage });
}

export class HttpConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private waiter: { onData: () => void; onClose: (error?: Error) => void } | null = null;
  private closedFlag = false;
  private closeError: Error | undefined;
  /** Set when the peer announced `Connection: close` or the body ran to end of stream. */
  private reusable = true;

  private constructor(
    private readonly socket: net.Socket,
    readonly host: string,
    readonly port: number,
    readonly peerCertificate: X509Certificate | null,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.waiter?.onData();
    });
    socket.on('error', (error) => {
      this.closeError = error;
    });
    socket.on('close', () => {
      this.closedFlag = true;
      this.waiter?.onClose(this.closeError);
    });
  }

  get closed(): boolean {
    return this.closedFlag || this.socket.destroyed;
  }

  get usable(): boolean {
    return !this.closed && this.reusable && this.waiter === null;
  }

  /** Opens a TCP (or TLS) connection; TLS is verified against `trust` before this resolves. */
  static open(options: { url: URL; trust?: TlsTrust; timeoutMs: number; signal: AbortSignal; context: ErrorContext }): Promise<HttpConnection> {
    const { url, context } = options;
    const secure = url.protocol === 'https:';
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(url.port || (secure ? 5986 : 5985));
    return new Promise<HttpConnection>((resolve, reject) => {
      if (options.signal.aborted) {
        reject(abortError(options.signal, 'connect', context));
        return;
      }
      const pin = options.trust?.pinnedSha256 ? normalizeFingerprint(options.trust.pinnedSha256) : null;
      let socket: net.Socket;
      if (secure) {
        socket = tls.connect({
          host,
          port,
          ...(net.isIP(host) ? {} : { servername: host }),
          ...(options.trust?.ca ? { ca: options.trust.ca } : {}),
          // The trust decision is made below, before any byte is sent: the pin when there is one, otherwise
          // Node's chain and host-name verification (`authorized`). Deciding here lets the refusal name the
          // certificate's thumbprint so the user can review and pin it.
          rejectUnauthorized: false,
          minVersion: 'TLSv1.2',
        });
      } else {
        socket = net.connect({ host, port });
      }
      let settled = false;
      const finish = (error: WindeckError | null, connection?: HttpConnection): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal.removeEventListener('abort', onAbort);
        socket.removeListener('error', onError);
        if (error) {
          socket.destroy();
          reject(error);
        } else if (connection) {
          resolve(connection);
        }
      };
      const timer = setTimeout(() => {
        finish(
          new WindeckError('TIMEOUT', `Could not connect to WinRM at ${host}:${port} within ${options.timeoutMs} ms.`, {
            ...context,
            step: 'connect',
          }),
        );
      }, options.timeoutMs);
      const onAbort = (): void => finish(abortError(options.signal, 'connect', context));
      options.signal.addEventListener('abort', onAbort, { once: true });
      const onError = (error: NodeJS.ErrnoException): void => {
        finish(mapSocketError(error, host, port, secure, context));
      };
      socket.on('error', onError);
      const onReady = (): void => {
        let cert: X509Certificate | null = null;
        if (secure) {
          const raw = (socket as tls.TLSSocket).getPeerX509Certificate();
          cert = raw ?? null;
          if (!cert) {
            finish(new WindeckError('HOST_KEY_UNKNOWN', `The WinRM server at ${host}:${port} presented no certificate.`, context));
            return;
          }
          const actual = normalizeFingerprint(cert.fingerprint256);
          if (pin === null && !(socket as tls.TLSSocket).authorized) {
            const why = String((socket as tls.TLSSocket).authorizationError ?? 'unknown reason');
            finish(
              new WindeckError(
                'HOST_KEY_UNKNOWN',
                `The WinRM certificate of ${host}:${port} is not trusted (${why}); trust its CA or pin its SHA-256 thumbprint ${formatFingerprint(actual)} after checking it on the node. Nothing was sent.`,
                { ...context, step: 'connect' },
              ),
            );
            return;
          }
          if (pin !== null) {
            if (actual !== pin) {
              finish(
                new WindeckError(
                  'HOST_KEY_CHANGED',
                  `The WinRM certificate of ${host}:${port} does not match the pinned SHA-256 thumbprint (it presents ${formatFingerprint(actual)}); nothing was sent.`,
                  { ...context, step: 'connect' },
                ),
              );
              return;
            }
          }
        }
        socket.setNoDelay(true);
        finish(null, new HttpConnection(socket, host, port, cert));
      };
      socket.once(secure ? 'secureConnect' : 'connect', onReady);
    });
  }

  /** Sends one request and reads its whole response. */
  request(options: {
    method: 'POST';
    path: string;
    headers: Record<string, string>;
    body: Buffer;
    timeoutMs: number;
    signal: AbortSignal;
    stage: string;
    context: ErrorContext;
  }): Promise<HttpResponse> {
    const { stage, context } = options;
    try {
      this.assertReady(options.signal, stage, context);
    } catch (error) {
      return Promise.reject(error);
    }
    const head = [`${options.method} ${options.path} HTTP/1.1`, `Host: ${this.hostHeader()}`];
    for (const [name, value] of Object.entries(options.headers)) {
      if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new WindeckError('INTERNAL', 'header contains a line break', context);
      head.push(`${name}: ${value}`);
    }
    head.push(`Content-Length: ${options.body.length}`, '', '');
    this.buffer = Buffer.alloc(0);

    return new Promise<HttpResponse>((resolve, reject) => {
      let done = false;
      const settle = (error: Error | null, response?: HttpResponse): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        options.signal.removeEventListener('abort', onAbort);
        this.waiter = null;
        if (error) {
          // A half-read response leaves the socket in an unknown state: never reuse it.
          this.destroy();
          reject(error);
        } else if (response) {
          if (!this.reusable) this.destroy();
          resolve(response);
        }
      };
      const timer = setTimeout(() => {
        settle(
          new WindeckError('TIMEOUT', `WinRM ${stage} got no answer from ${this.host}:${this.port} within ${options.timeoutMs} ms.`, {
            ...context,
            step: stage,
          }),
        );
      }, options.timeoutMs);
      const onAbort = (): void => settle(abortError(options.signal, stage, context));
      options.signal.addEventListener('abort', onAbort, { once: true });

      const tryParse = (atClose: boolean): void => {
        let parsed: HttpResponse | null;
        try {
          parsed = this.parseResponse(atClose);
        } catch (error) {
          settle(
            new WindeckError('REMOTE_FAILED', `The WinRM server sent a malformed HTTP response during ${stage}: ${(error as Error).message}.`, {
              ...context,
              step: stage,
            }),
          );
          return;
        }
        if (parsed) settle(null, parsed);
        else if (atClose) {
          settle(
            new WindeckError('UNREACHABLE', `The WinRM server at ${this.host}:${this.port} closed the connection during ${stage}.`, {
              ...context,
              step: stage,
            }),
          );
        }
      };
      this.waiter = { onData: () => tryParse(false), onClose: () => tryParse(true) };
      this.socket.write(Buffer.concat([Buffer.from(head.join('\r\n'), 'latin1'), options.body]));
    });
  }

  /** Throws what `request` would fail with right away (busy, closed, cancelled), without touching the socket. */
  assertReady(signal: AbortSignal, stage: string, context: ErrorContext): void {
    if (this.waiter) throw new WindeckError('INTERNAL', 'WinRM connection is busy.', context);
    if (this.closed) {
      throw new WindeckError('UNREACHABLE', `The WinRM connection to ${this.host}:${this.port} was closed before ${stage}.`, {
        ...context,
        step: stage,
      });
    }
    if (signal.aborted) throw abortError(signal, stage, context);
  }

  destroy(): void {
    this.closedFlag = true;
    this.socket.destroy();
  }

  private hostHeader(): string {
    const host = net.isIPv6(this.host) ? `[${this.host}]` : this.host;
    return `${host}:${this.port}`;
  }

  /** Returns a complete response from the buffer, or null when more bytes are needed. */
  private parseResponse(atClose: boolean): HttpResponse | null {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) {
      if (this.buffer.length > 64 * 1024) throw new Error('response head too large');
      return null;
    }
    const lines = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
    const statusLine = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(lines[0] ?? '');
    if (!statusLine) throw new Error('bad status line');
    const status = Number(statusLine[1]);
    const headers: Record<string, string[]> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new Error('bad header line');
      const name = line.slice(0, colon).trim().toLowerCase();
      (headers[name] ??= []).push(line.slice(colon + 1).trim());
    }
    const rest = this.buffer.subarray(end + 4);
    const connection = (headers['connection'] ?? []).join(',').toLowerCase();
    if (connection.includes('close')) this.reusable = false;
    if (status === 100) {
      this.buffer = Buffer.from(rest);
      return this.parseResponse(atClose);
    }
    const transferEncoding = (headers['transfer-encoding'] ?? []).join(',').toLowerCase();
    if (transferEncoding.includes('chunked')) {
      const body = decodeChunked(rest);
      return body ? { status, headers, body } : null;
    }
    const lengthHeader = headers['content-length']?.[0];
    if (lengthHeader !== undefined) {
      if (!/^\d+$/.test(lengthHeader)) throw new Error('bad Content-Length');
      const length = Number(lengthHeader);
      if (length > HTTP_MAX_RESPONSE_BYTES) throw new Error('response too large');
      if (rest.length < length) return null;
      return { status, headers, body: Buffer.from(rest.subarray(0, length)) };
    }
    if (status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) };
    // No length: the body runs to the end of the stream.
    this.reusable = false;
    if (rest.length > HTTP_MAX_RESPONSE_BYTES) throw new Error('response too large');
    return atClose ? { status, headers, body: Buffer.from(rest) } : null;
  }
}

function decodeChunked(data: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let offset = 0;
  let total = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) return null;
    const sizeText = data.subarray(offset, lineEnd).toString('latin1').split(';')[0]?.trim() ?? '';
    if (!/^[0-9a-fA-F]+$/.test(sizeText)) throw new Error('bad chunk size');
    const size = Number.parseInt(sizeText, 16);
    offset = lineEnd + 2;
    if (size === 0) {
      // Skip trailers up to the final empty line.
      const trailerEnd = data.indexOf('\r\n', offset);
      if (trailerEnd < 0) return null;
      if (trailerEnd !== offset) {
        const end = data.indexOf('\r\n\r\n', offset);
        if (end < 0) return null;
      }
      return Buffer.concat(parts);
    }
    if (data.length < offset + size + 2) return null;
    total += size;
    if (total > HTTP_MAX_RESPONSE_BYTES) throw new Error('response too large');
    parts.push(data.subarray(offset, offset + size));
    offset += size + 2;
  }
}

function mapSocketError(error: NodeJS.ErrnoException, host: string, port: number, secure: boolean, context: ErrorContext): WindeckError {
  const code = error.code ?? '';
  if (code === 'ECONNREFUSED') {
    return new WindeckError(
      'UNREACHABLE',
      `WinRM at ${host}:${port} refused the connection (is the listener enabled on that port?).`,
      {
        ...context,
        step: 'connect',
      },
      { cause: error },
    );
  }
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new WindeckError('UNREACHABLE', `Could not reach WinRM at ${host}:${port} (${code}).`, { ...context, step: 'connect' }, { cause: error });
  }
  if (secure && (code.startsWith('ERR_TLS') || code.includes('CERT') || code.includes('SELF_SIGNED') || code.includes('UNABLE_TO'))) {
    return new WindeckError(
      'HOST_KEY_UNKNOWN',
      `The WinRM certificate of ${host}:${port} is not trusted (${code}); trust its CA or pin its SHA-256 thumbprint.`,
      { ...context, step: 'connect' },
      { cause: error },
    );
  }
  if (secure) {
    return new WindeckError(
      'UNREACHABLE',
      `TLS with WinRM at ${host}:${port} failed (${code || error.message}).`,
      { ...context, step: 'connect' },
      { cause: error },
    );
  }
  return new WindeckError(
    'UNREACHABLE',
    `Could not reach WinRM at ${host}:${port} (${code || error.message}).`,
    { ...context, step: 'connect' },
    { cause: error },
  );
}
