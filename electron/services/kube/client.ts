import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import tls from 'node:tls';
import { WindeckError, type ErrorCode } from '../../../shared/contract/errors';
import { KUBE_CONNECT_TIMEOUT_MS, KUBE_REQUEST_TIMEOUT_MS } from '../../../shared/domain/limits';
import { runExecPlugin, type ExecApprovals, type ExecCredential } from './exec-credential';
import type { ResolvedContext } from './kubeconfig';
import { dropUnreadArrays, unreadArraysFor } from './drop-unread-arrays';

/**
 * A small Kubernetes API client over node:https: auth from a resolved kubeconfig context (client certificate,
 * token, token file, basic, approved exec plugins, impersonation), CONNECT proxies, timeouts and errors mapped to
 * WindeckError codes. Lists come back as parsed pages and watches as raw lines, so the caller can keep only the
 * fields it needs (see reflector.ts and bench/inventory.mjs for why that matters at 150,000 pods).
 */

/** An API error with its HTTP status and kube Status reason (410 Expired is what reflectors look for). */
export class KubeStatusError extends WindeckError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly status: number,
    readonly reason: string | null,
    context?: ConstructorParameters<typeof WindeckError>[2],
  ) {
    super(code, message, context, { retryable: status === 429 || status >= 500 || status === 410 });
  }
}

export interface KubeClientOptions {
  approvals?: ExecApprovals | null;
  env?: NodeJS.ProcessEnv;
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
  userAgent?: string;
  now?: () => number;
}

export interface RequestOptions {
  signal?: AbortSignal;
  accept?: string;
  /** Time until the response headers arrive (and, for non-streaming calls, the whole body). */
  timeoutMs?: number;
  method?: string;
  body?: string;
  contentType?: string;
  /**
   * listPage only: called with the list's continue token as soon as the body is read, before it is parsed, so the
   * caller can ask for the next page while this one is parsed and projected (null: no token seen in the head).
   */
  onContinue?: (token: string | null) => void;
}

export interface ListQuery {
  limit?: number;
  continue?: string | null;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
}

export interface ListPage<T = unknown> {
  items: T[];
  resourceVersion: string;
  continue: string | null;
  remainingItemCount: number | null;
  /** Bytes received for this page. */
  bytes: number;
}

export interface WatchQuery {
  resourceVersion: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  platform?: string;
}

const NETWORK_CODES: Record<string, ErrorCode> = {
  ECONNREFUSED: 'UNREACHABLE',
  ECONNRESET: 'UNREACHABLE',
  EHOSTUNREACH: 'UNREACHABLE',
  ENETUNREACH: 'UNREACHABLE',
  ENOTFOUND: 'UNREACHABLE',
  EAI_AGAIN: 'UNREACHABLE',
  EPIPE: 'UNREACHABLE',
  ETIMEDOUT: 'TIMEOUT',
};

const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

function proxyFromEnv(server: URL, env: NodeJS.ProcessEnv): string | null {
  const host = server.hostname;
  if (/^127\./.test(host) || host === 'localhost' || host === '::1' || host === '[::1]') return null;
  const noProxy = (env.NO_PROXY ?? env.no_proxy ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (noProxy.some((n) => n === '*' || host === n || host.endsWith(n.startsWith('.') ? n : `.${n}`))) return null;
  const p = server.protocol === 'https:' ? (env.HTTPS_PROXY ?? env.https_proxy) : (env.HTTP_PROXY ?? env.http_proxy);
  return p && p.trim() !== '' ? p.trim() : null;
}

export class KubeClient {
  readonly server: URL;
  private agent: http.Agent;
  private credential: ExecCredential | null = null;
  private agentCertKey: string | null = null;
  private readonly proxy: string | null;
  private readonly connectTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly now: () => number;

  constructor(
    readonly context: ResolvedContext,
    private readonly options: KubeClientOptions = {},
  ) {
    this.server = new URL(context.server);
    this.proxy = context.proxyUrl ?? proxyFromEnv(this.server, options.env ?? process.env);
    if (this.proxy && new URL(this.proxy).protocol === 'socks5:') {
      throw new WindeckError(
        'UNSUPPORTED',
        `The kubeconfig for context "${context.contextName}" uses a SOCKS5 proxy (${new URL(this.proxy).host}); Windeck supports HTTP(S) CONNECT proxies only, not SOCKS5 yet.`,
        { path: context.sourceFile },
      );
    }
    this.connectTimeoutMs = options.connectTimeoutMs ?? KUBE_CONNECT_TIMEOUT_MS;
    this.requestTimeoutMs = options.requestTimeoutMs ?? KUBE_REQUEST_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
    this.agent = this.makeAgent(context.clientCert);
  }

  /** Close pooled connections. */
  close(): void {
    this.agent.destroy();
  }

  private makeAgent(cert: { cert: Buffer | string; key: Buffer | string } | null): http.Agent {
    const ctx = this.context;
    const tlsOptions: tls.ConnectionOptions = {
      ...(ctx.tls.ca ? { ca: ctx.tls.ca } : {}),
      ...(cert ? { cert: cert.cert, key: cert.key } : {}),
      rejectUnauthorized: !ctx.tls.insecureSkipVerify,
      ...(ctx.tls.serverName ? { servername: ctx.tls.serverName } : {}),
    };
    const https_ = this.server.protocol === 'https:';
    const base = { keepAlive: true, maxSockets: 16, timeout: this.connectTimeoutMs };
    const agent: http.Agent = https_ ? new https.Agent({ ...base, ...tlsOptions }) : new http.Agent(base);
    if (this.proxy) {
      const proxy = new URL(this.proxy);
      const connectTimeoutMs = this.connectTimeoutMs;
      const target = { host: this.server.hostname, port: Number(this.server.port || (https_ ? 443 : 80)) };
      // Tunnel through the proxy with CONNECT, then speak TLS to the API server over the tunnel.
      (agent as unknown as { createConnection: unknown }).createConnection = (_opts: unknown, callback: (err: Error | null, socket?: net.Socket) => void) => {
        const lib = proxy.protocol === 'https:' ? https : http;
        const headers: Record<string, string> = { Host: `${target.host}:${target.port}` };
        if (proxy.username)
          headers['Proxy-Authorization'] =
            `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
        const req = lib.request({
          host: proxy.hostname,
          port: Number(proxy.port || (proxy.protocol === 'https:' ? 443 : 80)),
          method: 'CONNECT',
          path: `${target.host}:${target.port}`,
          headers,
          timeout: connectTimeoutMs,
        });
        req.once('connect', (res, socket) => {
          if (res.statusCode !== 200) {
            socket.destroy();
            callback(Object.assign(new Error(`proxy ${proxy.host} refused CONNECT (HTTP ${res.statusCode})`), { code: 'EPROXY' }));
            return;
          }
          if (!https_) return callback(null, socket);
          const secure = tls.connect({ socket, servername: ctx.tls.serverName ?? (/^[\d.]+$/.test(target.host) ? undefined : target.host), ...tlsOptions });
          secure.once('secureConnect', () => callback(null, secure));
          secure.once('error', (e) => callback(e));
        });
        req.once('timeout', () => req.destroy(Object.assign(new Error(`proxy ${proxy.host} did not answer`), { code: 'ETIMEDOUT' })));
        req.once('error', (e) => callback(e));
        req.end();
        return undefined;
      };
    }
    return agent;
  }

  private async authHeaders(signal?: AbortSignal): Promise<Record<string, string>> {
    const ctx = this.context;
    const headers: Record<string, string> = {};
    if (ctx.token) headers.Authorization = `Bearer ${ctx.token}`;
    else if (ctx.tokenFile) {
      let token: string;
      try {
        token = fs.readFileSync(ctx.tokenFile, 'utf8').trim();
      } catch (error) {
        throw new WindeckError(
          'VALIDATION',
          `kubeconfig ${ctx.sourceFile}: cannot read the tokenFile ${ctx.tokenFile} of user "${ctx.userName ?? ''}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
          { path: ctx.tokenFile },
        );
      }
      headers.Authorization = `Bearer ${token}`;
    } else if (ctx.basic) {
      headers.Authorization = `Basic ${Buffer.from(`${ctx.basic.username}:${ctx.basic.password}`).toString('base64')}`;
    } else if (ctx.exec) {
      const cred = await this.execCredential(signal);
      if (cred.token) headers.Authorization = `Bearer ${cred.token}`;
    }
    if (ctx.impersonate) {
      headers['Impersonate-User'] = ctx.impersonate.user;
      if (ctx.impersonate.uid) headers['Impersonate-Uid'] = ctx.impersonate.uid;
    }
    return headers;
  }

  private async execCredential(signal?: AbortSignal): Promise<ExecCredential> {
    const cached = this.credential;
    if (cached && (cached.expiresAt === null || cached.expiresAt - 10_000 > this.now())) return cached;
    if (!this.options.approvals) {
      throw new WindeckError(
        'PERMISSION_DENIED',
        `kubeconfig ${this.context.sourceFile}: user "${this.context.userName ?? ''}" needs the credential plugin ${this.context.exec!.command}, and this host has no approval store to check it against.`,
      );
    }
    const cred = await runExecPlugin(this.context.exec!, this.context, this.options.approvals, {
      ...(signal ? { signal } : {}),
      ...(this.options.env ? { env: this.options.env } : {}),
      now: this.now,
    });
    this.credential = cred;
    if (cred.clientCertificateData && cred.clientKeyData) {
      const key = `${cred.clientCertificateData}\u0000${cred.clientKeyData}`;
      if (key !== this.agentCertKey) {
        this.agent.destroy();
        this.agent = this.makeAgent({ cert: cred.clientCertificateData, key: cred.clientKeyData });
        this.agentCertKey = key;
      }
    }
    return cred;
  }

  private networkError(error: unknown, step: string): WindeckError {
    if (error instanceof WindeckError) return error;
    const e = error as NodeJS.ErrnoException & { reason?: string };
    const where = `the API server ${this.server.host} (context "${this.context.contextName}")`;
    if (e?.name === 'AbortError' || e?.code === 'ABORT_ERR') return new WindeckError('CANCELLED', `Cancelled while talking to ${where}.`, { step });
    if (e?.code && TLS_CODES.has(e.code)) {
      return new WindeckError(
        'UNREACHABLE',
        `TLS verification of ${where} failed (${e.code}): the server certificate does not match the kubeconfig's certificate authority or server name.`,
        { step },
      );
    }
    if (e?.code === 'EPROXY') return new WindeckError('UNREACHABLE', `Could not reach ${where}: ${e.message}.`, { step });
    if (e?.code && /SSL|TLS|ERR_SSL/.test(e.code)) return new WindeckError('UNREACHABLE', `TLS handshake with ${where} failed (${e.code}).`, { step });
    const code = (e?.code && NETWORK_CODES[e.code]) || 'UNREACHABLE';
    const why =
      e?.code === 'ECONNREFUSED'
        ? 'connection refused'
        : e?.code === 'ENOTFOUND'
          ? 'host name not found'
          : e?.code === 'ETIMEDOUT'
            ? 'timed out'
            : (e?.message ?? String(error));
    return new WindeckError(code, `Could not reach ${where}: ${why}.`, { step }, { cause: error });
  }

  private statusError(status: number, body: string, step: string): KubeStatusError {
    let reason: string | null = null;
    let message = body.slice(0, 500).trim();
    try {
      const s = JSON.parse(body) as { reason?: string; message?: string };
      reason = s.reason ?? null;
      message = s.message ?? message;
    } catch {
      // not a Status: keep the text
    }
    const where = `API server ${this.server.host} (context "${this.context.contextName}")`;
    const ctx = { step };
    if (status === 401)
      return new KubeStatusError(
        'AUTH_FAILED',
        `The ${where} rejected the credentials of user "${this.context.userName ?? ''}" (401 Unauthorized).`,
        status,
        reason,
        ctx,
      );
    if (status === 403) return new KubeStatusError('PERMISSION_DENIED', `The ${where} forbids this: ${message}`, status, reason, ctx);
    if (status === 404) return new KubeStatusError('NOT_FOUND', `The ${where} has no such resource: ${message}`, status, reason, ctx);
    if (status === 410)
      return new KubeStatusError('REMOTE_FAILED', `The ${where} says the resource version expired (410 Gone): ${message}`, status, reason ?? 'Expired', ctx);
    if (status === 400 || status === 422) return new KubeStatusError('VALIDATION', `The ${where} refused the request: ${message}`, status, reason, ctx);
    if (status === 429) return new KubeStatusError('REMOTE_FAILED', `The ${where} is throttling requests (429).`, status, reason, ctx);
    return new KubeStatusError('REMOTE_FAILED', `The ${where} answered ${status}${message ? `: ${message}` : ''}.`, status, reason, ctx);
  }

  /** Open a request and return the response once its headers arrived (status < 400), else throw. */
  async open(pathAndQuery: string, options: RequestOptions = {}, retried = false): Promise<http.IncomingMessage> {
    const headers: Record<string, string> = {
      Accept: options.accept ?? 'application/json',
      'User-Agent': this.options.userAgent ?? 'windeck',
      ...(await this.authHeaders(options.signal)),
    };
    if (options.body !== undefined) {
      headers['Content-Type'] = options.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(options.body));
    }
    if (this.context.impersonate) {
      // Several groups need several headers; node accepts an array value.
      (headers as Record<string, string | string[]>)['Impersonate-Group'] = this.context.impersonate.groups;
    }
    const url = new URL(this.server.pathname.replace(/\/$/, '') + pathAndQuery, this.server);
    const lib = url.protocol === 'https:' ? https : http;
    const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
    const step = `${options.method ?? 'GET'} ${url.pathname}`;
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = lib.request(url, { method: options.method ?? 'GET', headers, agent: this.agent, ...(options.signal ? { signal: options.signal } : {}) });
      const timer = setTimeout(() => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })), timeoutMs);
      req.once('response', (r) => {
        clearTimeout(timer);
        resolve(r);
      });
      req.once('error', (e) => {
        clearTimeout(timer);
        reject(this.networkError(e, step));
      });
      req.end(options.body);
    });
    if ((res.statusCode ?? 0) >= 400) {
      const body = await readBody(res, 64 * 1024).catch(() => '');
      const error = this.statusError(res.statusCode ?? 0, body, step);
      if (error.status === 401 && this.context.exec && !retried) {
        // An exec credential may have been revoked early; kubectl re-runs the plugin once.
        this.credential = null;
        return this.open(pathAndQuery, options, true);
      }
      throw error;
    }
    return res;
  }

  /** GET and parse JSON. */
  async getJson<T>(pathAndQuery: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.open(pathAndQuery, options);
    const text = await readBody(res, Infinity, options.signal);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new WindeckError('PARSE_FAILED', `The API server sent invalid JSON for ${pathAndQuery.split('?')[0]}.`, { step: 'GET' });
    }
  }

  async version(options: RequestOptions = {}): Promise<VersionInfo> {
    return this.getJson<VersionInfo>('/version', options);
  }

  /** One page of a list; `project` turns each raw item into what the caller keeps (null drops it). */
  async listPage<T>(resourcePath: string, query: ListQuery, project: (raw: unknown) => T | null, options: RequestOptions = {}): Promise<ListPage<T>> {
    const q = new URLSearchParams();
    if (query.limit) q.set('limit', String(query.limit));
    if (query.continue) q.set('continue', query.continue);
    if (query.labelSelector) q.set('labelSelector', query.labelSelector);
    if (query.fieldSelector) q.set('fieldSelector', query.fieldSelector);
    if (query.resourceVersion !== undefined) q.set('resourceVersion', query.resourceVersion);
    const qs = q.toString();
    const res = await this.open(`${resourcePath}${qs ? `?${qs}` : ''}`, options);
    let text: string;
    if (options.onContinue) {
      // Read here so the head's continue token goes out as soon as the first bytes are in.
      const chunks: Buffer[] = [];
      let size = 0;
      let told = false;
      for await (const chunk of res) {
        if (options.signal?.aborted) {
          res.destroy();
          throw new WindeckError('CANCELLED', 'Cancelled while reading from the API server.');
        }
        chunks.push(chunk as Buffer);
        size += (chunk as Buffer).length;
        if (!told && (size >= 8192 || (chunk as Buffer).includes('"items"'))) {
          told = true;
          const head = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).subarray(0, 8192).toString('utf8');
          options.onContinue(peekContinue(head));
        }
      }
      text = Buffer.concat(chunks).toString('utf8');
      if (!told) options.onContinue(peekContinue(text));
    } else text = await readBody(res, Infinity, options.signal);
    let doc: { items?: unknown[]; metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number } };
    try {
      doc = JSON.parse(dropUnreadArrays(text, unreadArraysFor(resourcePath)));
    } catch {
      throw new WindeckError('PARSE_FAILED', `The API server sent an invalid list for ${resourcePath} (${text.length} bytes of broken JSON).`, {
        step: `list ${resourcePath}`,
      });
    }
    const items: T[] = [];
    for (const raw of doc.items ?? []) {
      const p = project(raw);
      if (p !== null) items.push(p);
    }
    return {
      items,
      resourceVersion: doc.metadata?.resourceVersion ?? '',
      continue: doc.metadata?.continue || null,
      remainingItemCount: typeof doc.metadata?.remainingItemCount === 'number' ? doc.metadata.remainingItemCount : null,
      bytes: text.length,
    };
  }

  /** Start a watch; the response streams newline-delimited JSON events (read them with `watchLines`). */
  async watch(resourcePath: string, query: WatchQuery, options: RequestOptions = {}): Promise<http.IncomingMessage> {
    const q = new URLSearchParams({ watch: 'true', resourceVersion: query.resourceVersion });
    if (query.allowWatchBookmarks) q.set('allowWatchBookmarks', 'true');
    if (query.timeoutSeconds) q.set('timeoutSeconds', String(query.timeoutSeconds));
    if (query.labelSelector) q.set('labelSelector', query.labelSelector);
    if (query.fieldSelector) q.set('fieldSelector', query.fieldSelector);
    return this.open(`${resourcePath}?${q.toString()}`, options);
  }

  async patch(resourcePath: string, body: unknown, options: RequestOptions = {}): Promise<unknown> {
    const res = await this.open(resourcePath, { ...options, method: 'PATCH', body: JSON.stringify(body), contentType: 'application/merge-patch+json' });
    return JSON.parse(await readBody(res, Infinity, options.signal));
  }
}

/** Read a whole response body as UTF-8 (at most `max` bytes are kept). */
/**
 * The continue token of a list body from its head, without parsing it: the API server writes the list's
 * `metadata` (resourceVersion, continue, remainingItemCount: no nested objects) before `items`. Null when it is
 * not there (last page) or the head has another shape; callers check it against the parsed value.
 */
export function peekContinue(body: string): string | null {
  const m = /^\s*\{[^[]*?"metadata"\s*:\s*\{[^{}[]*?"continue"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(body.slice(0, 8192));
  if (!m) return null;
  try {
    return JSON.parse(`"${m[1] as string}"`) as string;
  } catch {
    return null;
  }
}

export async function readBody(res: http.IncomingMessage, max = Infinity, signal?: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    if (signal?.aborted) {
      res.destroy();
      throw new WindeckError('CANCELLED', 'Cancelled while reading from the API server.');
    }
    size += (chunk as Buffer).length;
    if (size <= max) chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Split a watch response into the complete lines of each chunk received (a line longer than `maxLine` bytes is
 * returned as garbage `null`). Lines of one chunk arrive together, so a reader can look at all of them at once.
 */
export async function* watchChunks(res: AsyncIterable<Buffer | string>, maxLine = 64 * 1024 * 1024): AsyncGenerator<Array<string | null>> {
  let partial = '';
  const decoder = new StringDecoder('utf8');
  for await (const chunk of res) {
    const text = partial + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    const lines: Array<string | null> = text.split('\n');
    partial = (lines.pop() as string | undefined) ?? '';
    if (partial.length > maxLine) {
      partial = '';
      lines.push(null);
    }
    const out = lines.filter((l) => l === null || l.trim() !== '');
    if (out.length) yield out;
  }
  if (partial.trim() !== '') yield [partial];
}

/** Split a watch response into lines (a line longer than `maxLine` bytes is returned as garbage `null`). */
export async function* watchLines(res: AsyncIterable<Buffer | string>, maxLine = 64 * 1024 * 1024): AsyncGenerator<string | null> {
  let partial = '';
  // A multi-byte character may be split across chunks; the decoder keeps the pieces.
  const decoder = new StringDecoder('utf8');
  for await (const chunk of res) {
    const text = partial + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') yield line;
    if (partial.length > maxLine) {
      partial = '';
      yield null;
    }
  }
  if (partial.trim() !== '') yield partial;
}
