import fs from 'node:fs';
import https from 'node:https';
import type http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import type tls from 'node:tls';
import { once } from 'node:events';
import { DEFAULT_GARBAGE_LINES, FaultPlan, type FaultMatch, type FaultSpec } from './faults';
import { generateCluster, type ClusterSpec, type GeneratedCluster } from './generate';
import { SimObjectStore, StoreError, type SimItem, type WatchEventType } from './object-store';
import { generateSimPki, type SimPki } from './pki';
import { RESOURCES, groupVersion, VERBS, type KubeObject, type ResourceDef } from './resources';
import { parseFieldSelector, parseLabelSelector, SelectorError } from './selectors';

/**
 * A simulated kube-apiserver (DESIGN.md section 9): real HTTPS on 127.0.0.1 with a generated CA and client
 * certificate auth (bearer tokens too), `/version`, legacy discovery, JSON and server-side Table output, get,
 * list with limit/continue, watch with bookmarks, label and field selectors, and scripted faults. It speaks
 * enough of the API for the real `kubectl get/version` and for Windeck's inventory.
 */

export interface KubeApiSimOptions {
  /** Loopback address to bind (must be in 127.0.0.0/8). */
  host?: string;
  port?: number;
  cluster?: ClusterSpec;
  /** `v1.32.4` by default (kubectl 1.32 then sees no skew). */
  kubernetesVersion?: string;
  /** Interval of BOOKMARK events on watches that allow them. */
  bookmarkIntervalMs?: number;
  /** Changes a watch can replay before its resourceVersion is expired. */
  historyLimit?: number;
  /** Accepted bearer tokens (besides the client certificate). */
  tokens?: string[];
  /** Accepted basic-auth users. */
  basicAuth?: Array<{ username: string; password: string }>;
  pki?: SimPki;
  now?: () => number;
  /**
   * Benchmarks only (bench/watch.mjs, bench/memory.mjs): called when a watch stream opens, with the request and the
   * response, so pre-serialized event lines can be written into it without rendering objects; the function it
   * returns runs when the watch ends.
   */
  benchWatchTap?: (plural: string, req: http.IncomingMessage, res: http.ServerResponse) => (() => void) | void;
}

export interface SimStats {
  requests: number;
  lists: Record<string, number>;
  /** Lists that started from scratch (no continue token): one per (re)list of a reflector. */
  listStarts: Record<string, number>;
  watches: Record<string, number>;
  gets: Record<string, number>;
  unauthorized: number;
  connections: number;
}

interface Route {
  def: ResourceDef;
  namespace: string | null;
  name: string | null;
  watchPath: boolean;
}

const SERVER_BUILD = { gitCommit: '3b6b5bd6e1ba5b63cd2ab3f2c69d3ae46e93b4c7', buildDate: '2025-04-22T15:54:42Z', goVersion: 'go1.23.8' };

function status(code: number, reason: string, message: string, details?: KubeObject): KubeObject {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

function wantsTable(accept: string | undefined): 'v1' | 'v1beta1' | null {
  if (!accept || !accept.includes('as=Table')) return null;
  for (const part of accept.split(',')) {
    if (!part.includes('as=Table') || !part.includes('g=meta.k8s.io')) continue;
    if (part.includes('v=v1beta1')) return 'v1beta1';
    if (part.includes('v=v1')) return 'v1';
  }
  return null;
}

function mergePatch(target: KubeObject, patch: unknown): KubeObject {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch as KubeObject;
  const out: KubeObject = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function isLoopback(host: string): boolean {
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export class KubeApiSimulator {
  readonly store: SimObjectStore;
  readonly faults = new FaultPlan();
  readonly pki: SimPki;
  readonly stats: SimStats = { requests: 0, lists: {}, listStarts: {}, watches: {}, gets: {}, unauthorized: 0, connections: 0 };
  readonly kubernetesVersion: string;
  cluster: GeneratedCluster | null = null;
  private server: https.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private readonly openWatches = new Set<() => void>();
  private boundPort = 0;
  private readonly host: string;
  private readonly bookmarkIntervalMs: number;
  private readonly tokens: Set<string>;

  constructor(private readonly options: KubeApiSimOptions = {}) {
    this.host = options.host ?? '127.0.0.1';
    if (!isLoopback(this.host)) throw new Error(`The API simulator binds loopback addresses only (127.0.0.0/8), not ${this.host}.`);
    this.kubernetesVersion = options.kubernetesVersion ?? options.cluster?.kubernetesVersion ?? 'v1.32.4';
    this.store = new SimObjectStore({ now: options.now ?? Date.now, ...(options.historyLimit ? { historyLimit: options.historyLimit } : {}) });
    this.pki = options.pki ?? generateSimPki();
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 15_000;
    this.tokens = new Set(options.tokens ?? []);
    if (options.cluster) this.cluster = generateCluster(this.store, { ...options.cluster, kubernetesVersion: this.kubernetesVersion });
  }

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    return `https://${this.host}:${this.boundPort}`;
  }

  async start(): Promise<this> {
    if (this.server) return this;
    const server = https.createServer({
      key: this.pki.serverKey,
      cert: this.pki.serverCert,
      ca: this.pki.caCert,
      requestCert: true,
      rejectUnauthorized: false,
    });
    server.on('connection', (socket: net.Socket) => {
      this.stats.connections++;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) this.send(res, 500, status(500, 'InternalError', `simulator error: ${String((error as Error)?.message ?? error)}`));
        else res.destroy();
      });
    });
    server.listen(this.boundPort || this.options.port || 0, this.host);
    await once(server, 'listening');
    this.boundPort = (server.address() as net.AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Stop listening and cut every connection ("API server down"). `start()` brings it back on the same port. */
  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    for (const end of [...this.openWatches]) end();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** End every open watch stream normally (as the server does when a watch's timeout runs out). */
  endWatches(): number {
    const all = [...this.openWatches];
    for (const end of all) end();
    return all.length;
  }

  async stop(): Promise<void> {
    await this.down();
  }

  /** Kubeconfig text for this server with the embedded admin client certificate. */
  kubeconfig(options: { context?: string; cluster?: string; user?: string; namespace?: string; token?: string } = {}): string {
    const context = options.context ?? 'windeck-demo';
    const cluster = options.cluster ?? context;
    const user = options.user ?? `${context}-admin`;
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const auth = options.token ? [`    token: ${options.token}`] : [`    client-certificate-data: ${b64(this.pki.clientCert)}`, `    client-key-data: ${b64(this.pki.clientKey)}`];
    return [
      '# Kubeconfig of a Windeck-simulated cluster (electron/sim/kube-api). Throwaway credentials; not a real cluster.',
      'apiVersion: v1',
      'kind: Config',
      'preferences: {}',
      'clusters:',
      `- name: ${cluster}`,
      '  cluster:',
      `    server: ${this.url}`,
      `    certificate-authority-data: ${b64(this.pki.caCert)}`,
      'users:',
      `- name: ${user}`,
      '  user:',
      ...auth,
      'contexts:',
      `- name: ${context}`,
      '  context:',
      `    cluster: ${cluster}`,
      `    user: ${user}`,
      ...(options.namespace ? [`    namespace: ${options.namespace}`] : []),
      `current-context: ${context}`,
      '',
    ].join('\n');
  }

  /** Write the kubeconfig (mode 0600) and return its absolute path. */
  writeKubeconfig(file: string, options: Parameters<KubeApiSimulator['kubeconfig']>[0] = {}): string {
    const abs = path.resolve(file);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, this.kubeconfig(options), { mode: 0o600 });
    return abs;
  }

  /** Add a scripted fault (see faults.ts). */
  fault(match: FaultMatch, spec: FaultSpec, times?: number) {
    return this.faults.add(match, spec, times);
  }

  // ---- request handling ----

  private authenticate(req: http.IncomingMessage): boolean {
    const socket = req.socket as tls.TLSSocket;
    if (socket.authorized) return true;
    const header = req.headers.authorization ?? '';
    const bearer = /^Bearer\s+(\S+)$/i.exec(header);
    if (bearer && this.tokens.has(bearer[1]!)) return true;
    const basic = /^Basic\s+(\S+)$/i.exec(header);
    if (basic && this.options.basicAuth) {
      const [u, ...rest] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
      if (this.options.basicAuth.some((b) => b.username === u && b.password === rest.join(':'))) return true;
    }
    return false;
  }

  private send(res: http.ServerResponse, code: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
    res.end(text);
  }

  private route(pathname: string): Route | 'discovery' | null {
    const parts = pathname.split('/').filter(Boolean);
    let gv: { group: string; version: string };
    let rest: string[];
    if (parts[0] === 'api' && parts[1] === 'v1') {
      gv = { group: '', version: 'v1' };
      rest = parts.slice(2);
    } else if (parts[0] === 'apis' && parts.length >= 3) {
      gv = { group: parts[1]!, version: parts[2]! };
      rest = parts.slice(3);
    } else return null;
    if (rest.length === 0) return 'discovery';
    let watchPath = false;
    if (rest[0] === 'watch') {
      watchPath = true;
      rest = rest.slice(1);
    }
    const defs = RESOURCES.filter((d) => d.group === gv.group && d.version === gv.version);
    if (defs.length === 0) return null;
    const nsDef = defs.find((d) => d.plural === 'namespaces');
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      const def = defs.find((d) => d.plural === rest[2] && d.namespaced);
      if (!def || rest.length > 4) return null;
      return { def, namespace: rest[1]!, name: rest[3] ?? null, watchPath };
    }
    const def = defs.find((d) => d.plural === rest[0]) ?? (rest[0] === 'namespaces' ? nsDef : undefined);
    if (!def || rest.length > 2) return null;
    return { def, namespace: null, name: rest[1] ?? null, watchPath };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.stats.requests++;
    const url = new URL(req.url ?? '/', 'https://sim.invalid');
    const q = url.searchParams;
    const route = url.pathname === '/version' || url.pathname.startsWith('/api') ? this.route(url.pathname) : null;
    const isRoute = route !== null && route !== 'discovery';
    const watch = isRoute && (route.watchPath || q.get('watch') === 'true' || q.get('watch') === '1');
    const verb: FaultMatch['verb'] = !isRoute ? 'other' : watch ? 'watch' : route.name ? 'get' : 'list';
    const resource = isRoute ? route.def.plural : null;

    // Count every attempt, including the ones a fault answers.
    if (resource && verb === 'watch') this.stats.watches[resource] = (this.stats.watches[resource] ?? 0) + 1;
    if (resource && verb === 'list') {
      this.stats.lists[resource] = (this.stats.lists[resource] ?? 0) + 1;
      if (!q.get('continue')) this.stats.listStarts[resource] = (this.stats.listStarts[resource] ?? 0) + 1;
    }
    const faults = this.faults.take({ resource, verb, url: req.url ?? '/' });
    for (const f of faults) {
      if (f.kind === 'slow') await new Promise((r) => setTimeout(r, f.delayMs));
    }
    const slowChunkMs = faults.find((f): f is Extract<FaultSpec, { kind: 'slow' }> => f.kind === 'slow')?.delayMs ?? 0;
    if (faults.some((f) => f.kind === 'drop')) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      res.write(watch ? '' : '{"kind":');
      res.flushHeaders();
      setImmediate(() => res.destroy());
      return;
    }
    if (faults.some((f) => f.kind === 'stall')) {
      this.stall(req, res, watch);
      return;
    }

    if (!this.authenticate(req)) {
      this.stats.unauthorized++;
      this.send(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
      return;
    }
    const statusFault = faults.find((f): f is Extract<FaultSpec, { kind: 'status' }> => f.kind === 'status');
    if (statusFault) {
      const reason = REASONS[statusFault.code] ?? 'InternalError';
      const message =
        statusFault.message ??
        (statusFault.code === 403
          ? `${resource ?? 'resource'} is forbidden: User "windeck-demo-admin" cannot ${verb} resource "${resource ?? ''}" in API group "${isRoute ? route.def.group : ''}" at the cluster scope`
          : `simulated ${statusFault.code} ${reason}`);
      if (statusFault.code === 429 || statusFault.code === 503) res.setHeader('Retry-After', '1');
      this.send(res, statusFault.code, status(statusFault.code, reason, message));
      return;
    }
    const gone = faults.find((f): f is Extract<FaultSpec, { kind: 'gone' }> => f.kind === 'gone');
    if (gone && (gone.mode === 'http' || verb !== 'watch')) {
      this.send(res, 410, status(410, 'Expired', verb === 'list' ? 'The provided continue parameter is too old to display a consistent list result.' : 'too old resource version'));
      return;
    }

    const method = req.method ?? 'GET';
    try {
      if (url.pathname === '/version') return this.send(res, 200, this.version());
      if (['/healthz', '/livez', '/readyz'].includes(url.pathname)) {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('ok');
        return;
      }
      if (url.pathname === '/api' || url.pathname === '/api/') return this.send(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `${this.host}:${this.boundPort}` }] });
      if (url.pathname === '/apis' || url.pathname === '/apis/') return this.send(res, 200, this.groups());
      if (route === 'discovery') return this.send(res, 200, this.resourceList(url.pathname));
      if (!route) {
        if (/^\/apis\/[^/]+\/?$/.test(url.pathname)) {
          const g = this.groups().groups.find((x: KubeObject) => x.name === url.pathname.split('/')[2]);
          if (g) return this.send(res, 200, { kind: 'APIGroup', apiVersion: 'v1', ...g });
        }
        return this.send(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
      }
      if (method === 'GET' && watch) return await this.watch(req, res, route, q, gone ? 'stream' : null, faults);
      if (method === 'GET' && route.name) return this.get(req, res, route, q);
      if (method === 'GET') return await this.list(req, res, route, q, slowChunkMs);
      if (method === 'PATCH' && route.name) return await this.patch(req, res, route);
      if (method === 'DELETE' && route.name) {
        const obj = this.store.remove(route.def.plural, route.namespace ?? '', route.name);
        return this.send(res, 200, obj);
      }
      return this.send(res, 405, status(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`));
    } catch (error) {
      if (error instanceof StoreError) {
        const details = route && route !== 'discovery' && route.name ? { name: route.name, kind: route.def.plural } : undefined;
        const message = error.code === 404 && route && route !== 'discovery' && route.name ? `${route.def.plural} "${route.name}" not found` : error.message;
        return this.send(res, error.code, status(error.code, error.reason, message, details));
      }
      if (error instanceof SelectorError) return this.send(res, 400, status(400, 'BadRequest', error.message));
      throw error;
    }
  }

  private version(): KubeObject {
    const m = /^v(\d+)\.(\d+)/.exec(this.kubernetesVersion);
    return {
      major: m?.[1] ?? '1',
      minor: m?.[2] ?? '32',
      gitVersion: this.kubernetesVersion,
      gitCommit: SERVER_BUILD.gitCommit,
      gitTreeState: 'clean',
      buildDate: SERVER_BUILD.buildDate,
      goVersion: SERVER_BUILD.goVersion,
      compiler: 'gc',
      platform: 'linux/amd64',
    };
  }

  private groups(): KubeObject {
    const names = [...new Set(RESOURCES.filter((d) => d.group !== '').map((d) => d.group))];
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: names.map((name) => {
        const versions = [...new Set(RESOURCES.filter((d) => d.group === name).map((d) => d.version))].map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
        return { name, versions, preferredVersion: versions[0] };
      }),
    };
  }

  private resourceList(pathname: string): KubeObject {
    const gvText = pathname.replace(/^\/api\//, '').replace(/^\/apis\//, '').replace(/\/$/, '');
    const defs = RESOURCES.filter((d) => groupVersion(d) === gvText);
    if (defs.length === 0) throw new StoreError(404, 'NotFound', 'the server could not find the requested resource');
    return {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: gvText,
      resources: defs.map((d) => ({
        name: d.plural,
        singularName: d.singular,
        namespaced: d.namespaced,
        kind: d.kind,
        verbs: d.plural === 'nodes' || d.plural === 'pods' ? [...VERBS, 'patch', 'delete'] : VERBS,
        ...(d.shortNames.length ? { shortNames: d.shortNames } : {}),
        ...(d.categories.length ? { categories: d.categories } : {}),
      })),
    };
  }

  private tableRow(def: ResourceDef, item: SimItem | KubeObject, include: string): KubeObject {
    const obj = 'key' in item && 'rv' in item && !('apiVersion' in item) ? this.store.render(item as SimItem) : (item as KubeObject);
    const row: KubeObject = { cells: def.row(obj, this.store.now()) };
    if (include === 'Object') row.object = obj;
    else if (include !== 'None') row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
    return row;
  }

  private get(req: http.IncomingMessage, res: http.ServerResponse, route: Route, q: URLSearchParams): void {
    this.stats.gets[route.def.plural] = (this.stats.gets[route.def.plural] ?? 0) + 1;
    const item = this.store.get(route.def.plural, route.namespace ?? '', route.name!);
    if (!item) throw new StoreError(404, 'NotFound', `${route.def.plural} "${route.name}" not found`);
    const obj = this.store.render(item);
    const table = wantsTable(req.headers.accept);
    if (!table) return this.send(res, 200, obj);
    this.send(res, 200, {
      kind: 'Table',
      apiVersion: `meta.k8s.io/${table}`,
      metadata: { resourceVersion: String(item.rv) },
      columnDefinitions: route.def.columns,
      rows: [this.tableRow(route.def, obj, q.get('includeObject') ?? 'Metadata')],
    });
  }

  private async list(req: http.IncomingMessage, res: http.ServerResponse, route: Route, q: URLSearchParams, slowChunkMs: number): Promise<void> {
    const plural = route.def.plural;
    const limitText = q.get('limit');
    const limit = limitText ? Number(limitText) : 0;
    if (limitText && (!Number.isInteger(limit) || limit < 0)) throw new StoreError(400, 'BadRequest', `invalid limit: ${limitText}`);
    const page = this.store.list(plural, {
      namespace: route.namespace,
      labels: parseLabelSelector(q.get('labelSelector')),
      fields: parseFieldSelector(q.get('fieldSelector')),
      limit,
      continueToken: q.get('continue'),
    });
    const metadata: KubeObject = { resourceVersion: String(page.resourceVersion) };
    if (page.continueToken) metadata.continue = page.continueToken;
    if (page.remainingItemCount !== null) metadata.remainingItemCount = page.remainingItemCount;
    const table = wantsTable(req.headers.accept);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    const include = q.get('includeObject') ?? 'Metadata';
    const head = table
      ? `{"kind":"Table","apiVersion":"meta.k8s.io/${table}","metadata":${JSON.stringify(metadata)},"columnDefinitions":${JSON.stringify(route.def.columns)},"rows":[`
      : `{"kind":"${route.def.kind}List","apiVersion":"${groupVersion(route.def)}","metadata":${JSON.stringify(metadata)},"items":[`;
    if (!res.write(head)) await once(res, 'drain');
    let buf = '';
    let first = true;
    for (const item of page.items) {
      const text = table ? JSON.stringify(this.tableRow(route.def, item, include)) : JSON.stringify(this.store.render(item));
      buf += (first ? '' : ',') + text;
      first = false;
      if (buf.length > 256 * 1024) {
        if (res.destroyed) return;
        if (slowChunkMs) await new Promise((r) => setTimeout(r, slowChunkMs));
        if (!res.write(buf)) await once(res, 'drain');
        buf = '';
      }
    }
    res.end(buf + ']}');
  }

  private async patch(req: http.IncomingMessage, res: http.ServerResponse, route: Route): Promise<void> {
    const type = String(req.headers['content-type'] ?? '');
    if (!/merge-patch\+json|strategic-merge-patch\+json/.test(type)) {
      return this.send(res, 415, status(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/merge-patch+json, application/strategic-merge-patch+json`));
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let patch: unknown;
    try {
      patch = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return this.send(res, 400, status(400, 'BadRequest', 'the patch is not valid JSON'));
    }
    const updated = this.store.update(route.def.plural, route.namespace ?? '', route.name!, (obj) => {
      const merged = mergePatch(obj, patch);
      for (const k of Object.keys(obj)) delete obj[k];
      Object.assign(obj, merged);
    });
    this.send(res, 200, updated);
  }

  private stall(req: http.IncomingMessage, res: http.ServerResponse, watch: boolean): void {
    if (watch) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      res.flushHeaders();
    }
    const end = () => {
      this.openWatches.delete(end);
      res.destroy();
    };
    this.openWatches.add(end);
    req.on('close', () => this.openWatches.delete(end));
  }

  private async watch(req: http.IncomingMessage, res: http.ServerResponse, route: Route, q: URLSearchParams, goneInStream: 'stream' | null, faults: FaultSpec[]): Promise<void> {
    const def = route.def;
    const rvText = q.get('resourceVersion');
    let fromRv: number | null = null;
    if (rvText && rvText !== '0') {
      fromRv = Number(rvText);
      if (!Number.isInteger(fromRv) || fromRv < 0) throw new StoreError(400, 'BadRequest', `resourceVersion: Invalid value: "${rvText}": must be a number`);
    }
    const labels = parseLabelSelector(q.get('labelSelector'));
    const fields = parseFieldSelector(q.get('fieldSelector'));
    this.store.checkFields(def.plural, fields);
    // A route named by object (/watch/namespaces/ns/pods/name) watches that one object.
    if (route.name) fields.push({ field: 'metadata.name', value: route.name, negate: false });
    const bookmarks = q.get('allowWatchBookmarks') === 'true';
    const timeoutSeconds = Number(q.get('timeoutSeconds') ?? '0');

    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    const garbage = faults.find((f): f is Extract<FaultSpec, { kind: 'garbage' }> => f.kind === 'garbage');
    if (garbage) res.write((garbage.lines ?? DEFAULT_GARBAGE_LINES).map((l) => l + '\n').join(''));

    let lastRv = fromRv ?? this.store.resourceVersion;
    const send = (type: WatchEventType | 'BOOKMARK' | 'ERROR', object: KubeObject) => {
      if (res.destroyed || res.writableEnded) return;
      res.write(`{"type":"${type}","object":${JSON.stringify(object)}}\n`);
    };
    if (goneInStream) {
      send('ERROR', status(410, 'Expired', `too old resource version: ${rvText ?? 0} (${this.store.resourceVersion})`));
      res.end();
      return;
    }
    const push = (type: WatchEventType, obj: KubeObject, rv: number) => {
      lastRv = Math.max(lastRv, rv);
      send(type, obj);
    };
    const sub = this.store.watch(def.plural, { namespace: route.namespace, labels, fields, fromRv }, push);
    if (sub === 'expired') {
      send('ERROR', status(410, 'Expired', `too old resource version: ${fromRv} (${this.store.oldestResourceVersion})`));
      res.end();
      return;
    }
    const timers: NodeJS.Timeout[] = [];
    const untap = this.options.benchWatchTap?.(def.plural, req, res);
    const end = () => {
      this.openWatches.delete(end);
      sub.unsubscribe();
      untap?.();
      for (const t of timers) {
        clearTimeout(t);
        clearInterval(t);
      }
      if (!res.writableEnded) res.end();
    };
    this.openWatches.add(end);
    req.on('close', end);
    res.on('close', end);
    if (bookmarks) {
      timers.push(
        setInterval(() => {
          lastRv = Math.max(lastRv, this.store.resourceVersion);
          send('BOOKMARK', { kind: def.kind, apiVersion: groupVersion(def), metadata: { resourceVersion: String(lastRv) } });
        }, this.bookmarkIntervalMs),
      );
    }
    if (timeoutSeconds > 0) timers.push(setTimeout(end, timeoutSeconds * 1000));
  }
}

/** Start a simulator with a generated cluster; the caller stops it. */
export async function startKubeApiSim(options: KubeApiSimOptions = {}): Promise<KubeApiSimulator> {
  return new KubeApiSimulator({ cluster: { nodes: 8, windows: 5 }, ...options }).start();
}
