import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Client as SshClient, ConnectConfig } from 'ssh2';
type Client = SshClient;
import { WindeckError, type ErrorContext } from '../../../../shared/contract/errors';

/**
 * One SSH connection (with optional ProxyJump hops) made with ssh2, with Windeck's rules:
 * - the TCP connect has its own timeout (`connectTimeoutMs`, stage "connect"), the SSH handshake and
 *   authentication another (`handshakeTimeoutMs`, stage "handshake");
 * - every hop's host key is checked by the verifier during key exchange, before any authentication: an unknown
 *   or changed key ends the connection and nothing (no user name, no credential, no command) is sent;
 * - keepalive detects a silent peer within interval x (countMax + 1);
 * - every failure becomes a WindeckError whose code says what went wrong (UNREACHABLE refused/reset/no route,
 *   TIMEOUT with the stage, AUTH_FAILED, HOST_KEY_UNKNOWN, HOST_KEY_CHANGED, CANCELLED).
 */

export interface SshAuth {
  username: string;
  password?: string;
  privateKey?: Buffer | string;
  passphrase?: string;
  /** ssh-agent socket path (SSH_AUTH_SOCK) or 'pageant' on Windows. */
  agent?: string;
}

export interface SshHop {
  host: string;
  port: number;
  auth: SshAuth;
  /** Name to look the host key up under instead of host:port (ssh_config HostKeyAlias). */
  hostKeyAlias?: string;
  /** Per-host keepalive (ssh_config ServerAliveInterval / ServerAliveCountMax); else the pool's. 0 ms disables. */
  keepalive?: { intervalMs: number; countMax: number };
}

export interface SshTarget extends SshHop {
  /** The node this connection is for (errors name it). */
  node: string;
  /** ProxyJump hops, first to last; the target is reached through the last one. */
  jumps?: SshHop[];
}

export type HostKeyCheck =
  { ok: true; fingerprint: string } | { ok: false; code: 'HOST_KEY_UNKNOWN' | 'HOST_KEY_CHANGED'; message: string; fingerprint: string };

/** Decides about host keys (known_hosts files, keys accepted in Windeck). */
export interface HostKeyVerifier {
  check(host: string, port: number, keyBlob: Buffer, hostKeyAlias?: string): HostKeyCheck;
  /** Key types already known for host:port, so the handshake asks for those first (as OpenSSH does). */
  knownKeyTypes(host: string, port: number, hostKeyAlias?: string): string[];
}

export interface ConnectOptions {
  verifier: HostKeyVerifier;
  connectTimeoutMs: number;
  handshakeTimeoutMs?: number;
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
  signal?: AbortSignal;
  /**
   * Runs each SSH handshake (key exchange + login) when the caller allows it (the pool's limit on handshakes in
   * flight). The TCP connection is already open while it waits; the handshake timeout starts when it runs.
   */
  handshakeGate?: <T>(run: () => Promise<T>) => Promise<T>;
}

export interface SshConnection {
  client: Client;
  /** Resolves when the connection is gone, with the reason (null for a clean close). */
  closed: Promise<WindeckError | null>;
  /** True once the connection is closed or broken. */
  readonly dead: boolean;
  close(): void;
}

const HOST_KEY_ALGORITHMS: Record<string, string[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
};
const ALL_HOST_KEY_ALGORITHMS = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];

/** Host key algorithms with the already-known types first. */
export function hostKeyAlgorithmOrder(knownTypes: readonly string[]): string[] {
  const first = knownTypes.flatMap((t) => HOST_KEY_ALGORITHMS[t] ?? []);
  return [...new Set([...first, ...ALL_HOST_KEY_ALGORITHMS])];
}

function where(hop: SshHop): string {
  return `${hop.host}:${hop.port}`;
}

/** Map a socket-level error to a WindeckError. */
export function socketError(error: NodeJS.ErrnoException, hop: SshHop, context: ErrorContext): WindeckError {
  const code = error.code ?? '';
  const at = where(hop);
  switch (code) {
    case 'ECONNREFUSED':
      return new WindeckError(
        'UNREACHABLE',
        `Connection to ${at} was refused: nothing listens there (is sshd running, is the port right?).`,
        { ...context, step: 'connect' },
        { cause: error },
      );
    case 'ECONNRESET':
    case 'EPIPE':
      return new WindeckError('UNREACHABLE', `The connection to ${at} was reset by the peer.`, { ...context, step: 'connect' }, { cause: error });
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
      return new WindeckError('UNREACHABLE', `No route to ${at} (${code}).`, { ...context, step: 'connect' }, { cause: error });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new WindeckError('UNREACHABLE', `The name ${hop.host} does not resolve (${code}).`, { ...context, step: 'connect' }, { cause: error });
    case 'ETIMEDOUT':
      return new WindeckError('TIMEOUT', `Connecting to ${at} timed out (connect).`, { ...context, step: 'connect' }, { cause: error });
    default:
      return new WindeckError('UNREACHABLE', `Could not connect to ${at}: ${error.message}`, { ...context, step: 'connect' }, { cause: error });
  }
}

function tcpConnect(hop: SshHop, timeoutMs: number, context: ErrorContext, signal?: AbortSignal): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    // No Nagle: pipelined requests (SFTP READs, channel opens) go out at once instead of waiting for an ACK.
    const sock = net.connect({ host: hop.host, port: hop.port, noDelay: true });
    let settled = false;
    const finish = (error: WindeckError | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      sock.removeListener('error', onError);
      if (error) {
        sock.destroy();
        reject(error);
      } else {
        resolve(sock);
      }
    };
    const onError = (e: NodeJS.ErrnoException) => finish(socketError(e, hop, context));
    const onAbort = () => finish(new WindeckError('CANCELLED', `Connecting to ${where(hop)} was cancelled.`, { ...context, step: 'connect' }));
    const timer = setTimeout(
      () => finish(new WindeckError('TIMEOUT', `Connecting to ${where(hop)} timed out after ${timeoutMs} ms (connect).`, { ...context, step: 'connect' })),
      timeoutMs,
    );
    sock.once('connect', () => finish(null));
    sock.on('error', onError);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function forwardThrough(via: Client, hop: SshHop, timeoutMs: number, context: ErrorContext): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new WindeckError('TIMEOUT', `Opening a forwarded channel to ${where(hop)} through the jump host timed out (connect).`, {
            ...context,
            step: 'connect',
          }),
        ),
      timeoutMs,
    );
    via.forwardOut('127.0.0.1', 0, hop.host, hop.port, (error, stream) => {
      clearTimeout(timer);
      if (error)
        reject(
          new WindeckError('UNREACHABLE', `The jump host could not reach ${where(hop)}: ${error.message}`, { ...context, step: 'connect' }, { cause: error }),
        );
      else resolve(stream);
    });
  });
}

let ssh2Module: Promise<typeof import('ssh2')> | null = null;
let ssh2Ready = false;

/**
 * ssh2 is loaded on the first connection, not at start-up: it is the largest module on the CLI's and the
 * console's start path and answering from the store never needs it. ssh2 is CommonJS, so its exports are the
 * default export of the dynamic import (in the ESM bundle and under vitest alike).
 */
export function loadSsh2(): Promise<typeof import('ssh2')> {
  ssh2Module ??= import('ssh2').then((m) => {
    ssh2Ready = true;
    return (m as unknown as { default: typeof import('ssh2') }).default ?? m;
  });
  return ssh2Module;
}

/** Whether ssh2 has been loaded in this process (by a connection or by the console's preload). */
export function ssh2Loaded(): boolean {
  return ssh2Ready;
}

async function sshHandshake(sock: Duplex, hop: SshHop, options: ConnectOptions, context: ErrorContext): Promise<SshConnection> {
  const { Client } = await loadSsh2();
  return new Promise((resolve, reject) => {
    const client = new Client();
    let hostKeyError: WindeckError | null = null;
    let ready = false;
    let dead = false;
    let closedReason: WindeckError | null = null;
    let resolveClosed: (e: WindeckError | null) => void = () => undefined;
    const closed = new Promise<WindeckError | null>((r) => (resolveClosed = r));
    const handshakeMs = options.handshakeTimeoutMs ?? options.connectTimeoutMs;
    const keepaliveIntervalMs = hop.keepalive?.intervalMs ?? options.keepaliveIntervalMs;
    const keepaliveCountMax = hop.keepalive?.countMax ?? options.keepaliveCountMax;

    const classify = (error: Error & { level?: string }): WindeckError => {
      if (hostKeyError) return hostKeyError;
      if (error instanceof WindeckError) return error;
      const level = error.level ?? '';
      const msg = error.message ?? String(error);
      if (level === 'client-authentication') {
        return new WindeckError(
          'AUTH_FAILED',
          `${where(hop)} refused the credentials for user "${hop.auth.username}" (all offered methods failed).`,
          { ...context, step: 'auth' },
          { cause: error },
        );
      }
      if (/privateKey|passphrase|Encrypted private/i.test(msg)) {
        return new WindeckError(
          'AUTH_FAILED',
          `The private key for ${where(hop)} could not be used: ${msg.replace(/\s+/g, ' ').slice(0, 160)}`,
          { ...context, step: 'auth' },
          { cause: error },
        );
      }
      if (/keepalive/i.test(msg)) {
        return new WindeckError(
          'UNREACHABLE',
          `${where(hop)} stopped answering (no keepalive reply for ${keepaliveIntervalMs * (keepaliveCountMax + 1)} ms).`,
          { ...context, step: 'keepalive' },
          { cause: error },
        );
      }
      if (level === 'client-timeout') {
        return new WindeckError(
          'TIMEOUT',
          `The SSH handshake with ${where(hop)} did not finish within ${handshakeMs} ms (handshake).`,
          { ...context, step: 'handshake' },
          { cause: error },
        );
      }
      if ((error as NodeJS.ErrnoException).code) return socketError(error as NodeJS.ErrnoException, hop, context);
      return new WindeckError('UNREACHABLE', `SSH with ${where(hop)} failed: ${msg}`, { ...context, step: ready ? 'session' : 'handshake' }, { cause: error });
    };

    const onAbort = () => {
      if (!ready) {
        client.end();
        sock.destroy();
        reject(new WindeckError('CANCELLED', `Connecting to ${where(hop)} was cancelled.`, { ...context, step: 'handshake' }));
      }
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });

    client.on('ready', () => {
      ready = true;
      options.signal?.removeEventListener('abort', onAbort);
      resolve({
        client,
        closed,
        get dead() {
          return dead;
        },
        close: () => {
          dead = true;
          client.end();
        },
      });
    });
    client.on('error', (error: Error & { level?: string }) => {
      const e = classify(error);
      closedReason = closedReason ?? e;
      if (!ready) {
        options.signal?.removeEventListener('abort', onAbort);
        // ssh2 only half-closes; a peer that never answers would keep the socket forever.
        sock.destroy();
        reject(e);
      } else {
        // A broken live connection (keepalive timeout, reset): fail its runs now rather than waiting for a
        // FIN that a blackholed peer never sends.
        dead = true;
        resolveClosed(closedReason);
        sock.destroy();
      }
    });
    client.on('close', () => {
      dead = true;
      options.signal?.removeEventListener('abort', onAbort);
      if (!ready)
        reject(
          hostKeyError ??
            closedReason ??
            new WindeckError('UNREACHABLE', `${where(hop)} closed the connection during the SSH handshake.`, { ...context, step: 'handshake' }),
        );
      resolveClosed(closedReason);
    });

    const known = options.verifier.knownKeyTypes(hop.host, hop.port, hop.hostKeyAlias);
    const config: ConnectConfig = {
      sock: sock as unknown as ConnectConfig['sock'],
      username: hop.auth.username,
      readyTimeout: handshakeMs,
      keepaliveInterval: keepaliveIntervalMs,
      keepaliveCountMax: keepaliveCountMax,
      algorithms: { serverHostKey: hostKeyAlgorithmOrder(known) as NonNullable<ConnectConfig['algorithms']>['serverHostKey'] },
      hostVerifier: (key: Buffer) => {
        const check = options.verifier.check(hop.host, hop.port, key, hop.hostKeyAlias);
        if (check.ok) return true;
        hostKeyError = new WindeckError(check.code, check.message, { ...context, step: 'host-key' });
        return false;
      },
      ...(hop.auth.password !== undefined ? { password: hop.auth.password } : {}),
      ...(hop.auth.privateKey !== undefined ? { privateKey: hop.auth.privateKey } : {}),
      ...(hop.auth.passphrase !== undefined ? { passphrase: hop.auth.passphrase } : {}),
      ...(hop.auth.agent !== undefined ? { agent: hop.auth.agent } : {}),
    };
    try {
      client.connect(config);
    } catch (error) {
      options.signal?.removeEventListener('abort', onAbort);
      sock.destroy();
      reject(classify(error as Error));
    }
  });
}

/** `sshHandshake` through the caller's gate; a socket that failed or closed while waiting is reported as such. */
function gatedHandshake(sock: Duplex, hop: SshHop, options: ConnectOptions, context: ErrorContext): Promise<SshConnection> {
  const gate = options.handshakeGate;
  if (!gate) return sshHandshake(sock, hop, options, context);
  let failed: NodeJS.ErrnoException | null = null;
  const onError = (e: NodeJS.ErrnoException) => (failed ??= e);
  sock.on('error', onError);
  return gate(() => {
    sock.removeListener('error', onError);
    if (failed) return Promise.reject(socketError(failed, hop, context));
    if (sock.destroyed || options.signal?.aborted) {
      sock.destroy();
      return Promise.reject(
        options.signal?.aborted
          ? new WindeckError('CANCELLED', `Connecting to ${hop.host} was cancelled.`, { ...context, step: 'connect' })
          : new WindeckError('UNREACHABLE', `${where(hop)} closed the connection before the SSH handshake started.`, { ...context, step: 'handshake' }),
      );
    }
    return sshHandshake(sock, hop, options, context);
  });
}

/**
 * Connect to `target`, through its jump hops if any. The jump connections live as long as the returned one:
 * closing it closes them.
 */
export async function openSshConnection(target: SshTarget, options: ConnectOptions): Promise<SshConnection> {
  const context: ErrorContext = { node: target.node, transport: 'ssh' };
  if (options.signal?.aborted) throw new WindeckError('CANCELLED', `Connecting to ${target.node} was cancelled.`, { ...context, step: 'connect' });
  const hops: SshHop[] = [...(target.jumps ?? []), target];
  const opened: SshConnection[] = [];
  try {
    let sock: Duplex = await tcpConnect(hops[0]!, options.connectTimeoutMs, context, options.signal);
    for (let i = 0; i < hops.length; i += 1) {
      const hop = hops[i]!;
      const conn = await gatedHandshake(sock, hop, options, context);
      opened.push(conn);
      const next = hops[i + 1];
      if (next) sock = await forwardThrough(conn.client, next, options.connectTimeoutMs, context);
    }
  } catch (error) {
    for (const c of opened.reverse()) c.close();
    throw error;
  }
  const last = opened[opened.length - 1]!;
  if (opened.length === 1) return last;
  const jumps = opened.slice(0, -1);
  void last.closed.then(() => jumps.reverse().forEach((j) => j.close()));
  for (const j of jumps) void j.closed.then(() => last.close());
  return last;
}
