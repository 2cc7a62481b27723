import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { z } from 'zod';
import { WindeckError } from '../../../shared/contract/errors';

/**
 * kubeconfig as kubectl resolves it: `--kubeconfig` alone, else the `KUBECONFIG` list merged (first file that
 * names a cluster/user/context wins, first non-empty current-context wins, missing files skipped), else
 * `~/.kube/config`. Relative file paths resolve against the file that holds them.
 *
 * A kubeconfig is untrusted input: every problem becomes a WindeckError naming the file and the problem (never
 * a crash), nothing is ever written back, and exec plugins are only described here (exec-credential.ts runs
 * them, after approval).
 *
 * Why not @kubernetes/client-node's KubeConfig: its merge throws on duplicate names where kubectl keeps the
 * first, its ExecAuth runs plugins with no approval and copies the plugin's `env` into this process's
 * `process.env`, and its errors do not name the file.
 */

/** Files larger than this are refused (a kubeconfig is a few KB; this guards against YAML bombs and mistakes). */
export const KUBECONFIG_MAX_BYTES = 4 * 1024 * 1024;

const base64Field = z
  .string()
  .refine((s) => /^[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*$/.test(s) && s.replace(/[\r\n]/g, '').length % 4 === 0, { message: 'is not valid base64' });

const ExecEnv = z.object({ name: z.string(), value: z.string() });

const ExecConfigSchema = z.object({
  apiVersion: z.string().optional(),
  command: z.string().min(1, 'needs a command'),
  args: z.array(z.string()).nullable().optional(),
  env: z.array(ExecEnv).nullable().optional(),
  installHint: z.string().optional(),
  provideClusterInfo: z.boolean().optional(),
  interactiveMode: z.enum(['Never', 'IfAvailable', 'Always']).optional(),
});

const ClusterSchema = z.object({
  server: z.string().optional(),
  'certificate-authority': z.string().optional(),
  'certificate-authority-data': base64Field.optional(),
  'insecure-skip-tls-verify': z.boolean().optional(),
  'tls-server-name': z.string().optional(),
  'proxy-url': z.string().optional(),
  'disable-compression': z.boolean().optional(),
  extensions: z.array(z.unknown()).nullable().optional(),
});

const UserSchema = z.object({
  'client-certificate': z.string().optional(),
  'client-certificate-data': base64Field.optional(),
  'client-key': z.string().optional(),
  'client-key-data': base64Field.optional(),
  token: z.string().optional(),
  tokenFile: z.string().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
  as: z.string().optional(),
  'as-groups': z.array(z.string()).nullable().optional(),
  'as-uid': z.string().optional(),
  exec: ExecConfigSchema.nullable().optional(),
  'auth-provider': z.object({ name: z.string(), config: z.record(z.string(), z.unknown()).nullable().optional() }).nullable().optional(),
  extensions: z.array(z.unknown()).nullable().optional(),
});

const ContextSchema = z.object({
  cluster: z.string().optional(),
  user: z.string().optional(),
  namespace: z.string().optional(),
  extensions: z.array(z.unknown()).nullable().optional(),
});

const KubeconfigFile = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  'current-context': z.string().optional(),
  preferences: z.record(z.string(), z.unknown()).nullable().optional(),
  clusters: z.array(z.object({ name: z.string().min(1, 'needs a name'), cluster: ClusterSchema })).nullable().optional(),
  users: z.array(z.object({ name: z.string().min(1, 'needs a name'), user: UserSchema })).nullable().optional(),
  contexts: z.array(z.object({ name: z.string().min(1, 'needs a name'), context: ContextSchema })).nullable().optional(),
  extensions: z.array(z.unknown()).nullable().optional(),
});

export type ExecConfig = z.infer<typeof ExecConfigSchema>;
type ClusterEntry = z.infer<typeof ClusterSchema> & { source: string };
type UserEntry = z.infer<typeof UserSchema> & { source: string };
type ContextEntry = z.infer<typeof ContextSchema> & { source: string };

/** The merged kubeconfig, before a context is chosen. */
export interface LoadedKubeconfig {
  /** Files read, in merge order (absolute). */
  files: string[];
  /** Where it came from: `--kubeconfig`, `KUBECONFIG`, or the default path. */
  origin: 'flag' | 'env' | 'default';
  currentContext: string | null;
  clusters: Map<string, ClusterEntry>;
  users: Map<string, UserEntry>;
  contexts: Map<string, ContextEntry>;
}

export interface ExecPlugin {
  /** As written in the kubeconfig. */
  command: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
  apiVersion: string;
  installHint: string | null;
  provideClusterInfo: boolean;
  interactiveMode: 'Never' | 'IfAvailable' | 'Always';
  /** Directory relative command paths resolve against (the kubeconfig file's). */
  baseDir: string;
}

/** Everything needed to talk to one context's API server. Holds secrets: never log or store it whole. */
export interface ResolvedContext {
  contextName: string;
  clusterName: string;
  userName: string | null;
  namespace: string;
  server: string;
  /** The kubeconfig file that defined the context (for messages and the store). */
  sourceFile: string;
  files: string[];
  tls: { ca: Buffer | null; insecureSkipVerify: boolean; serverName: string | null };
  clientCert: { cert: Buffer; key: Buffer } | null;
  token: string | null;
  tokenFile: string | null;
  basic: { username: string; password: string } | null;
  exec: ExecPlugin | null;
  impersonate: { user: string; groups: string[]; uid: string | null } | null;
  proxyUrl: string | null;
  /** Things the user should know (insecure TLS, ignored fields); one sentence each. */
  warnings: string[];
}

function invalid(file: string, problem: string, cause?: unknown): WindeckError {
  return new WindeckError('VALIDATION', `kubeconfig ${file}: ${problem}`, { path: file }, cause === undefined ? undefined : { cause });
}

function issuePath(p: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of p) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${String(seg)}` : String(seg);
  return out || '(top level)';
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value}`;
}

function valueAt(root: unknown, p: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const seg of p) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg as string];
  }
  return cur;
}

/** Parse one kubeconfig text; throws VALIDATION naming `file` and the first problems. */
export function parseKubeconfigText(text: string, file: string): z.infer<typeof KubeconfigFile> {
  if (text.length > KUBECONFIG_MAX_BYTES) throw invalid(file, `is larger than ${KUBECONFIG_MAX_BYTES / 1024 / 1024} MB; that is not a kubeconfig.`);
  if (text.includes('\u0000')) throw invalid(file, 'is a binary file, not a kubeconfig (YAML).');
  let doc: unknown;
  try {
    doc = yaml.load(text.replace(/^\uFEFF/, ''), { filename: file, schema: yaml.CORE_SCHEMA, json: false });
  } catch (error) {
    const e = error as { reason?: string; mark?: { line?: number; column?: number } };
    const where = e.mark?.line !== undefined ? ` at line ${e.mark.line + 1}, column ${(e.mark.column ?? 0) + 1}` : '';
    throw invalid(file, `is not valid YAML${where}: ${e.reason ?? (error as Error).message}.`, error);
  }
  if (doc === undefined || doc === null) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw invalid(file, `is not a kubeconfig: expected a mapping with clusters, users and contexts, found ${describeType(doc)}.`);
  }
  const parsed = KubeconfigFile.safeParse(doc);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 3).map((i) => {
      const at = issuePath(i.path);
      const actual = valueAt(doc, i.path);
      if (i.code === 'invalid_type' && actual === undefined) return `${at} is missing`;
      if (i.code === 'invalid_type') return `${at} must be ${i.expected === 'array' ? 'a list' : i.expected === 'object' ? 'a mapping' : `a ${i.expected}`}, not ${describeType(actual)}`;
      return `${at} ${i.message.replace(/^Invalid input: /, '')}`;
    });
    const more = parsed.error.issues.length > 3 ? ` (and ${parsed.error.issues.length - 3} more)` : '';
    throw invalid(file, `${problems.join('; ')}${more}.`);
  }
  const data = parsed.data;
  for (const [list, kind] of [
    [data.clusters, 'cluster'],
    [data.users, 'user'],
    [data.contexts, 'context'],
  ] as const) {
    const seen = new Set<string>();
    for (const entry of list ?? []) {
      if (seen.has(entry.name)) throw invalid(file, `defines ${kind} "${entry.name}" twice.`);
      seen.add(entry.name);
    }
  }
  return data;
}

export interface LoadOptions {
  /** `--kubeconfig`: only this file, which must exist. */
  explicitPath?: string | null;
  env?: NodeJS.ProcessEnv;
  homedir?: string;
  /** For tests: read files through this. */
  readFile?: (file: string) => string;
}

/** The kubeconfig files kubectl would read, in order, and where the list came from. */
export function kubeconfigFiles(options: LoadOptions = {}): { files: string[]; origin: LoadedKubeconfig['origin'] } {
  const env = options.env ?? process.env;
  if (options.explicitPath) return { files: [path.resolve(options.explicitPath)], origin: 'flag' };
  const list = env.KUBECONFIG;
  if (list && list.trim() !== '') {
    const files = list
      .split(path.delimiter)
      .map((f) => f.trim())
      .filter((f) => f !== '')
      .map((f) => path.resolve(f));
    return { files: [...new Set(files)], origin: 'env' };
  }
  const home = options.homedir ?? (env.HOME || env.USERPROFILE || os.homedir());
  return { files: [path.join(home, '.kube', 'config')], origin: 'default' };
}

/** Read and merge the kubeconfig files like kubectl. Never writes anything. */
export function loadKubeconfig(options: LoadOptions = {}): LoadedKubeconfig {
  const { files, origin } = kubeconfigFiles(options);
  const read = options.readFile ?? ((f: string) => fs.readFileSync(f, 'utf8'));
  const loaded: LoadedKubeconfig = { files: [], origin, currentContext: null, clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const file of files) {
    let text: string;
    try {
      const stat = options.readFile ? null : fs.statSync(file);
      if (stat && stat.isDirectory()) throw invalid(file, 'is a directory, not a file.');
      if (stat && stat.size > KUBECONFIG_MAX_BYTES) throw invalid(file, `is larger than ${KUBECONFIG_MAX_BYTES / 1024 / 1024} MB; that is not a kubeconfig.`);
      text = read(file);
    } catch (error) {
      if (error instanceof WindeckError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      // kubectl skips KUBECONFIG entries that do not exist; an explicit --kubeconfig must exist.
      if (code === 'ENOENT' && origin !== 'flag') continue;
      if (code === 'ENOENT') throw new WindeckError('NOT_FOUND', `kubeconfig ${file} does not exist.`, { path: file });
      if (code === 'EACCES' || code === 'EPERM') throw invalid(file, 'cannot be read: permission denied.', error);
      throw invalid(file, `cannot be read: ${(error as Error).message}.`, error);
    }
    const data = parseKubeconfigText(text, file);
    loaded.files.push(file);
    if (!loaded.currentContext && data['current-context']) loaded.currentContext = data['current-context'];
    for (const c of data.clusters ?? []) if (!loaded.clusters.has(c.name)) loaded.clusters.set(c.name, { ...c.cluster, source: file });
    for (const u of data.users ?? []) if (!loaded.users.has(u.name)) loaded.users.set(u.name, { ...u.user, source: file });
    for (const c of data.contexts ?? []) if (!loaded.contexts.has(c.name)) loaded.contexts.set(c.name, { ...c.context, source: file });
  }
  return loaded;
}

function describeFiles(loaded: LoadedKubeconfig): string {
  if (loaded.files.length === 0) return loaded.origin === 'default' ? 'the default kubeconfig (~/.kube/config)' : 'the KUBECONFIG files';
  return loaded.files.length === 1 ? loaded.files[0]! : `KUBECONFIG (${loaded.files.join(', ')})`;
}

function readRelative(baseFile: string, p: string, what: string, owner: string): Buffer {
  const abs = path.resolve(path.dirname(baseFile), p);
  try {
    return fs.readFileSync(abs);
  } catch (error) {
    throw invalid(baseFile, `cannot read the ${what} of ${owner} (${abs}): ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`, error);
  }
}

function checkPem(buf: Buffer, file: string, what: string, owner: string, kind: 'CERTIFICATE' | 'PRIVATE KEY'): Buffer {
  const text = buf.toString('utf8');
  const ok = kind === 'CERTIFICATE' ? /-----BEGIN CERTIFICATE-----/.test(text) : /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text);
  if (!ok) throw invalid(file, `the ${what} of ${owner} is not PEM (${kind === 'CERTIFICATE' ? 'expected -----BEGIN CERTIFICATE-----' : 'expected a PEM private key'}).`);
  return buf;
}

function parseServer(server: string, file: string, clusterName: string): string {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw invalid(file, `cluster "${clusterName}" has a server that is not a URL: "${server.slice(0, 200)}".`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(file, `cluster "${clusterName}" server must be https:// (or http://), not ${url.protocol}//.`);
  if (url.username || url.password) throw invalid(file, `cluster "${clusterName}" server URL must not contain credentials.`);
  return server.replace(/\/+$/, '');
}

/**
 * Choose a context (the given one, else current-context) and resolve everything needed to connect:
 * server, CA, client certificate, token, exec plugin, proxy. Throws VALIDATION / NOT_FOUND / UNSUPPORTED with
 * a message naming the file and the problem.
 */
export function resolveContext(loaded: LoadedKubeconfig, contextName?: string | null): ResolvedContext {
  const where = describeFiles(loaded);
  if (loaded.files.length === 0) {
    throw new WindeckError('NOT_FOUND', `No kubeconfig found: ${where} does not exist. Pass --kubeconfig PATH, set KUBECONFIG, or run \`windeck demo\` for a simulated cluster.`);
  }
  const name = contextName || loaded.currentContext;
  if (!name) {
    const known = [...loaded.contexts.keys()];
    throw new WindeckError(
      'VALIDATION',
      known.length === 0 ? `${where} defines no contexts.` : `${where} has no current-context; pass --context NAME (known: ${known.slice(0, 10).join(', ')}).`,
      { path: loaded.files[0]! },
    );
  }
  const ctx = loaded.contexts.get(name);
  if (!ctx) {
    const known = [...loaded.contexts.keys()];
    throw new WindeckError('VALIDATION', `Context "${name}" is not defined in ${where}${known.length ? ` (known: ${known.slice(0, 10).join(', ')})` : ''}.`, { path: loaded.files[0]! });
  }
  const file = ctx.source;
  if (!ctx.cluster) throw invalid(file, `context "${name}" names no cluster.`);
  const cluster = loaded.clusters.get(ctx.cluster);
  if (!cluster) throw invalid(file, `context "${name}" refers to cluster "${ctx.cluster}", which is not defined in ${where}.`);
  if (!cluster.server) throw invalid(cluster.source, `cluster "${ctx.cluster}" has no server.`);
  const server = parseServer(cluster.server, cluster.source, ctx.cluster);
  const warnings: string[] = [];

  let ca: Buffer | null = null;
  if (cluster['certificate-authority-data']) {
    ca = checkPem(Buffer.from(cluster['certificate-authority-data'], 'base64'), cluster.source, 'certificate-authority-data', `cluster "${ctx.cluster}"`, 'CERTIFICATE');
    if (cluster['certificate-authority']) warnings.push(`Cluster "${ctx.cluster}" sets both certificate-authority and certificate-authority-data; the data is used.`);
  } else if (cluster['certificate-authority']) {
    ca = checkPem(readRelative(cluster.source, cluster['certificate-authority'], 'certificate-authority', `cluster "${ctx.cluster}"`), cluster.source, 'certificate-authority', `cluster "${ctx.cluster}"`, 'CERTIFICATE');
  }
  const insecure = cluster['insecure-skip-tls-verify'] === true;
  if (insecure && ca) throw invalid(cluster.source, `cluster "${ctx.cluster}" sets insecure-skip-tls-verify together with a certificate authority; kubectl refuses that too. Remove one of them.`);
  if (insecure) warnings.push(`TLS verification is off for cluster "${ctx.cluster}" (insecure-skip-tls-verify): Windeck cannot tell whether it is talking to the real API server.`);
  if (server.startsWith('http://')) warnings.push(`Cluster "${ctx.cluster}" uses plain http://; credentials and data travel unencrypted.`);

  let userName: string | null = ctx.user ?? null;
  const user = userName ? loaded.users.get(userName) : undefined;
  if (userName && !user) throw invalid(file, `context "${name}" refers to user "${userName}", which is not defined in ${where}.`);
  if (!userName) userName = null;
  const u = user ?? ({ source: file } as UserEntry);
  const owner = `user "${userName}"`;

  let clientCert: ResolvedContext['clientCert'] = null;
  const certData = u['client-certificate-data'] ? Buffer.from(u['client-certificate-data'], 'base64') : u['client-certificate'] ? readRelative(u.source, u['client-certificate'], 'client-certificate', owner) : null;
  const keyData = u['client-key-data'] ? Buffer.from(u['client-key-data'], 'base64') : u['client-key'] ? readRelative(u.source, u['client-key'], 'client-key', owner) : null;
  if (certData && !keyData) throw invalid(u.source, `${owner} has a client certificate but no client key.`);
  if (keyData && !certData) throw invalid(u.source, `${owner} has a client key but no client certificate.`);
  if (certData && keyData) {
    clientCert = { cert: checkPem(certData, u.source, 'client certificate', owner, 'CERTIFICATE'), key: checkPem(keyData, u.source, 'client key', owner, 'PRIVATE KEY') };
  }

  const methods = [u.token || u.tokenFile ? 'token' : null, u.username || u.password ? 'basic' : null, u.exec ? 'exec' : null, u['auth-provider'] ? 'auth-provider' : null].filter(Boolean);
  if (methods.length > 1) throw invalid(u.source, `${owner} has more than one authentication method (${methods.join(', ')}); only one is allowed.`);
  if (u['auth-provider']) {
    throw new WindeckError(
      'UNSUPPORTED',
      `kubeconfig ${u.source}: ${owner} uses the auth-provider "${u['auth-provider'].name}", which kubectl removed; switch to its exec plugin (kubelogin, gke-gcloud-auth-plugin) and Windeck will use it after you approve it.`,
      { path: u.source },
    );
  }
  if ((u.username && !u.password) || (!u.username && u.password)) throw invalid(u.source, `${owner} needs both username and password for basic authentication.`);

  let exec: ExecPlugin | null = null;
  if (u.exec) {
    const apiVersion = u.exec.apiVersion ?? '';
    if (!/^client\.authentication\.k8s\.io\/(v1|v1beta1)$/.test(apiVersion)) {
      throw invalid(u.source, `${owner} exec plugin has apiVersion "${apiVersion || '(none)'}"; use client.authentication.k8s.io/v1 or v1beta1.`);
    }
    if (apiVersion.endsWith('/v1') && !u.exec.interactiveMode) throw invalid(u.source, `${owner} exec plugin must set interactiveMode (client.authentication.k8s.io/v1 requires it).`);
    exec = {
      command: u.exec.command,
      args: u.exec.args ?? [],
      env: u.exec.env ?? [],
      apiVersion,
      installHint: u.exec.installHint ?? null,
      provideClusterInfo: u.exec.provideClusterInfo === true,
      interactiveMode: u.exec.interactiveMode ?? 'IfAvailable',
      baseDir: path.dirname(u.source),
    };
  }

  let proxyUrl: string | null = null;
  if (cluster['proxy-url']) {
    try {
      const p = new URL(cluster['proxy-url']);
      if (!['http:', 'https:', 'socks5:'].includes(p.protocol)) throw new Error('scheme');
      proxyUrl = cluster['proxy-url'];
    } catch {
      throw invalid(cluster.source, `cluster "${ctx.cluster}" proxy-url must be an http://, https:// or socks5:// URL.`);
    }
  }

  return {
    contextName: name,
    clusterName: ctx.cluster,
    userName,
    namespace: ctx.namespace || 'default',
    server,
    sourceFile: file,
    files: [...loaded.files],
    tls: { ca, insecureSkipVerify: insecure, serverName: cluster['tls-server-name'] ?? null },
    clientCert,
    token: u.token ?? null,
    tokenFile: u.token ? null : u.tokenFile ? path.resolve(path.dirname(u.source), u.tokenFile) : null,
    basic: u.username && u.password ? { username: u.username, password: u.password } : null,
    exec,
    impersonate: u.as ? { user: u.as, groups: u['as-groups'] ?? [], uid: u['as-uid'] ?? null } : null,
    proxyUrl,
    warnings,
  };
}

/** Load + resolve in one step (what the CLI and services use). */
export function resolveKubeconfig(options: LoadOptions & { context?: string | null } = {}): ResolvedContext {
  return resolveContext(loadKubeconfig(options), options.context);
}

/** A description of a context that is safe to log or show (no secrets). */
export function describeContext(ctx: ResolvedContext): Record<string, unknown> {
  return {
    context: ctx.contextName,
    cluster: ctx.clusterName,
    user: ctx.userName,
    server: ctx.server,
    file: ctx.sourceFile,
    auth: [ctx.clientCert ? 'client-certificate' : null, ctx.token ? 'token' : null, ctx.tokenFile ? 'token-file' : null, ctx.basic ? 'basic' : null, ctx.exec ? `exec:${path.basename(ctx.exec.command)}` : null].filter(Boolean),
    insecure: ctx.tls.insecureSkipVerify,
    proxy: ctx.proxyUrl ? new URL(ctx.proxyUrl).host : null,
  };
}
