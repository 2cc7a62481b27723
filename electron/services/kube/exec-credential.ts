import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { WindeckError } from '../../../shared/contract/errors';
import { EXEC_PLUGIN_OUTPUT_MAX_BYTES, EXEC_PLUGIN_TIMEOUT_MS } from '../../../shared/domain/limits';
import type { ExecPlugin, ResolvedContext } from './kubeconfig';

/**
 * Exec credential plugins (client.authentication.k8s.io ExecCredential), run the careful way: a kubeconfig is
 * untrusted, so a plugin runs only after the user approved that exact command - the resolved executable path,
 * the SHA-256 of its contents, its arguments and its environment entries. Changing any of them needs a new
 * approval. It runs without a shell, with stdin closed, a timeout, a cap on output, and an environment built for
 * the child only (the kubeconfig's `env` never touches this process's `process.env`).
 */

/** What the user approves. `fingerprint` covers everything that changes what runs. */
export interface ExecFingerprint {
  fingerprint: string;
  /** Absolute path of the executable that would run. */
  path: string;
  /** SHA-256 (hex) of the executable's contents. */
  sha256: string;
  args: string[];
  /** Names of the environment entries the kubeconfig sets (values are in the fingerprint, not shown). */
  envNames: string[];
}

/** Where approvals live (the store's exec_approvals table in the product; a Set in tests). */
export interface ExecApprovals {
  isApproved(fingerprint: string): boolean;
  approve(fp: ExecFingerprint, meta: { kubeconfig: string; user: string | null }): void;
}

export interface ExecCredential {
  token: string | null;
  clientCertificateData: string | null;
  clientKeyData: string | null;
  /** Epoch ms; null = valid until the server says otherwise. */
  expiresAt: number | null;
}

function isExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The executable a plugin command names: a path (containing a separator) resolves against the kubeconfig's
 * directory, like kubectl; a bare name is looked up in PATH (with PATHEXT on Windows).
 */
export function resolveExecutable(plugin: ExecPlugin, env: NodeJS.ProcessEnv = process.env): string {
  const cmd = plugin.command;
  const hint = plugin.installHint ? ` ${plugin.installHint.trim()}` : '';
  if (cmd.includes('/') || cmd.includes('\\')) {
    const abs = path.resolve(plugin.baseDir, cmd);
    if (!isExecutable(abs)) throw new WindeckError('NOT_FOUND', `The credential plugin ${abs} does not exist or is not executable.${hint}`, { path: abs });
    return fs.realpathSync(abs);
  }
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter(Boolean) : [''];
  for (const dir of (env.PATH ?? env.Path ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, cmd + (cmd.toLowerCase().endsWith(ext.toLowerCase()) ? '' : ext));
      if (isExecutable(candidate)) return fs.realpathSync(candidate);
    }
  }
  throw new WindeckError('NOT_FOUND', `The credential plugin "${cmd}" was not found in PATH.${hint}`);
}

/** Fingerprint of what would run (reads and hashes the executable). */
export function fingerprintExec(plugin: ExecPlugin, env: NodeJS.ProcessEnv = process.env): ExecFingerprint {
  const file = resolveExecutable(plugin, env);
  const sha256 = crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  const fingerprint = crypto
    .createHash('sha256')
    .update(JSON.stringify({ path: file, sha256, args: plugin.args, env: plugin.env.map((e) => [e.name, e.value]), apiVersion: plugin.apiVersion }))
    .digest('hex');
  return { fingerprint, path: file, sha256, args: [...plugin.args], envNames: plugin.env.map((e) => e.name) };
}

/** Environment variables of this process that must not reach a plugin (Windeck's own secrets). */
const PRIVATE_ENV = /^(WINDECK_|ELECTRON_)/i;

/** The child's environment: this process's (minus Windeck's own secrets) + KUBERNETES_EXEC_INFO + the kubeconfig's entries. */
export function pluginEnvironment(plugin: ExecPlugin, ctx: Pick<ResolvedContext, 'server' | 'tls' | 'proxyUrl'>, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && !PRIVATE_ENV.test(k)) env[k] = v;
  const spec: Record<string, unknown> = { interactive: false };
  if (plugin.provideClusterInfo) {
    spec.cluster = {
      server: ctx.server,
      ...(ctx.tls.serverName ? { 'tls-server-name': ctx.tls.serverName } : {}),
      ...(ctx.tls.insecureSkipVerify ? { 'insecure-skip-tls-verify': true } : {}),
      ...(ctx.tls.ca ? { 'certificate-authority-data': ctx.tls.ca.toString('base64') } : {}),
      ...(ctx.proxyUrl ? { 'proxy-url': ctx.proxyUrl } : {}),
    };
  }
  env.KUBERNETES_EXEC_INFO = JSON.stringify({ apiVersion: plugin.apiVersion, kind: 'ExecCredential', spec });
  for (const e of plugin.env) env[e.name] = e.value;
  return env;
}

function firstLine(text: string, max = 300): string {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  return line.length > max ? `${line.slice(0, max)}...` : line;
}

/**
 * Run an approved plugin and parse its ExecCredential. Throws PERMISSION_DENIED when the exact command is not
 * approved (the plugin does not run), TIMEOUT, AUTH_FAILED (bad exit or output), CANCELLED.
 */
export async function runExecPlugin(
  plugin: ExecPlugin,
  ctx: Pick<ResolvedContext, 'server' | 'tls' | 'proxyUrl' | 'contextName' | 'userName' | 'sourceFile'>,
  approvals: ExecApprovals,
  options: { signal?: AbortSignal; timeoutMs?: number; env?: NodeJS.ProcessEnv; now?: () => number } = {},
): Promise<ExecCredential> {
  const fp = fingerprintExec(plugin, options.env);
  if (!approvals.isApproved(fp.fingerprint)) {
    throw new WindeckError(
      'PERMISSION_DENIED',
      `kubeconfig ${ctx.sourceFile}: user "${ctx.userName ?? ''}" wants to run the credential plugin ${fp.path} ${fp.args.join(' ')} (sha256 ${fp.sha256.slice(0, 16)}...). Windeck runs it only after you approve it: run \`windeck nodes --approve-exec\` with the same --kubeconfig/--context.`.replace(/ +\(/, ' ('),
      { path: ctx.sourceFile, step: 'exec-approval' },
    );
  }
  if (plugin.interactiveMode === 'Always') {
    throw new WindeckError('UNSUPPORTED', `The credential plugin ${fp.path} needs an interactive terminal (interactiveMode: Always), which Windeck cannot give it. Run it once with kubectl to cache a token.`);
  }
  const timeoutMs = options.timeoutMs ?? EXEC_PLUGIN_TIMEOUT_MS;
  const env = pluginEnvironment(plugin, ctx, options.env);
  return await new Promise<ExecCredential>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    let bytes = 0;
    const child = spawn(fp.path, plugin.args, { shell: false, env, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    const timer = setTimeout(() => {
      kill();
      finish(() => reject(new WindeckError('TIMEOUT', `The credential plugin ${fp.path} did not answer within ${Math.round(timeoutMs / 1000)} s.`, { step: 'exec-plugin' })));
    }, timeoutMs);
    const onAbort = () => {
      kill();
      finish(() => reject(new WindeckError('CANCELLED', 'Cancelled while the credential plugin ran.')));
    };
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      bytes += d.length;
      if (bytes > EXEC_PLUGIN_OUTPUT_MAX_BYTES) {
        kill();
        finish(() => reject(new WindeckError('AUTH_FAILED', `The credential plugin ${fp.path} wrote more than ${EXEC_PLUGIN_OUTPUT_MAX_BYTES} bytes; that is not an ExecCredential.`)));
        return;
      }
      stdout += d;
    });
    child.stderr.on('data', (d: string) => {
      if (stderr.length < 64 * 1024) stderr += d;
    });
    child.on('error', (error) => finish(() => reject(new WindeckError('AUTH_FAILED', `The credential plugin ${fp.path} could not start: ${error.message}`, undefined, { cause: error }))));
    child.on('close', (code) => {
      finish(() => {
        if (code !== 0) {
          reject(new WindeckError('AUTH_FAILED', `The credential plugin ${fp.path} failed (exit code ${code})${stderr ? `: ${firstLine(stderr)}` : '.'}`, { step: 'exec-plugin' }));
          return;
        }
        try {
          resolve(parseExecCredential(stdout, plugin.apiVersion, options.now ?? Date.now));
        } catch (error) {
          reject(new WindeckError('AUTH_FAILED', `The credential plugin ${fp.path} printed no valid ExecCredential: ${(error as Error).message}`, { step: 'exec-plugin' }));
        }
      });
    });
  });
}

/** Parse an ExecCredential (throws a plain Error describing what is wrong). */
export function parseExecCredential(text: string, apiVersion: string, now: () => number = Date.now): ExecCredential {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error('output is not JSON');
  }
  const d = doc as { apiVersion?: unknown; kind?: unknown; status?: Record<string, unknown> };
  if (d?.kind !== 'ExecCredential') throw new Error('kind is not ExecCredential');
  if (d.apiVersion !== apiVersion) throw new Error(`apiVersion ${String(d.apiVersion)} does not match the requested ${apiVersion}`);
  const s = d.status ?? {};
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  const token = str(s.token);
  const cert = str(s.clientCertificateData);
  const key = str(s.clientKeyData);
  if (!token && !(cert && key)) throw new Error('status has neither a token nor a client certificate and key');
  if ((cert && !key) || (key && !cert)) throw new Error('status must carry both clientCertificateData and clientKeyData');
  let expiresAt: number | null = null;
  if (str(s.expirationTimestamp)) {
    expiresAt = Date.parse(s.expirationTimestamp as string);
    if (!Number.isFinite(expiresAt)) throw new Error('expirationTimestamp is not a time');
    if (expiresAt <= now()) throw new Error('the credential is already expired');
  }
  return { token, clientCertificateData: cert, clientKeyData: key, expiresAt };
}

/** An in-memory approval list (tests, and hosts without a store). */
export class MemoryExecApprovals implements ExecApprovals {
  readonly approved = new Set<string>();
  isApproved(fingerprint: string): boolean {
    return this.approved.has(fingerprint);
  }
  approve(fp: ExecFingerprint): void {
    this.approved.add(fp.fingerprint);
  }
}
