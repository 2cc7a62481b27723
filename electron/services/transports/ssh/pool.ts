import crypto from 'node:crypto';
import { WindeckError } from '../../../../shared/contract/errors';
import {
  SSH_CHANNELS_PER_CONNECTION,
  SSH_HANDSHAKES_AT_ONCE,
  SSH_KEEPALIVE_COUNT_MAX,
  SSH_KEEPALIVE_INTERVAL_MS,
  SSH_POOL_IDLE_MS,
} from '../../../../shared/domain/limits';
import { openSshConnection, type HostKeyVerifier, type SshConnection, type SshHop, type SshTarget } from './connect';

/**
 * Reused SSH connections, one per (user, host, port, jump chain, credential). Callers lease a connection,
 * open channels on it (at most `channelsPerConnection` at a time: OpenSSH's MaxSessions defaults to 10),
 * and give it back; a connection idle for `idleMs` is closed. A broken connection is dropped from the pool,
 * so the next lease dials again. `dispose()` closes everything. At most `handshakesAtOnce` dials are in their SSH
 * handshake at a time (the others have their TCP connection open and wait their turn): a 200-node fan-out must not
 * stall the main event loop with dozens of handshakes' signatures and key derivations landing in the same turns.
 */

export interface SshPoolOptions {
  verifier: HostKeyVerifier;
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  idleMs?: number;
  channelsPerConnection?: number;
  handshakesAtOnce?: number;
  /** Injected for tests (counts dials). */
  connect?: typeof openSshConnection;
}

export interface SshLease {
  connection: SshConnection;
  /** Wait for a free channel slot; returns its release. */
  channelSlot(signal?: AbortSignal): Promise<() => void>;
  release(): void;
}

interface Entry {
  key: string;
  connecting: Promise<SshConnection> | null;
  connection: SshConnection | null;
  leases: number;
  activeChannels: number;
  waiters: Array<() => void>;
  idleTimer: NodeJS.Timeout | null;
}

function authFingerprint(hop: SshHop): string {
  const a = hop.auth;
  const h = crypto.createHash('sha256');
  h.update(a.username + '\0' + (a.password ?? '') + '\0' + String(a.privateKey ?? '') + '\0' + (a.passphrase ?? '') + '\0' + (a.agent ?? ''));
  return h.digest('hex').slice(0, 16);
}

/** Pool key: never holds a secret in clear (credentials are hashed). */
export function poolKey(target: SshTarget): string {
  const hops = [...(target.jumps ?? []), target];
  return hops.map((h) => `${h.auth.username}@${h.host}:${h.port}#${authFingerprint(h)}`).join('>');
}

export class SshPool {
  private readonly entries = new Map<string, Entry>();
  private disposed = false;
  private readonly keepaliveIntervalMs: number;
  private readonly keepaliveCountMax: number;
  private readonly idleMs: number;
  private readonly channels: number;
  private readonly connect: typeof openSshConnection;
  private readonly handshakesAtOnce: number;
  private handshaking = 0;
  private readonly handshakeQueue: Array<() => void> = [];
  /** Most handshakes that were in flight at the same moment (tests, benchmarks). */
  peakHandshakes = 0;
  /** Dials made (a reused connection does not count). */
  dials = 0;

  constructor(private readonly options: SshPoolOptions) {
    this.keepaliveIntervalMs = options.keepaliveIntervalMs ?? SSH_KEEPALIVE_INTERVAL_MS;
    this.keepaliveCountMax = options.keepaliveCountMax ?? SSH_KEEPALIVE_COUNT_MAX;
    this.idleMs = options.idleMs ?? SSH_POOL_IDLE_MS;
    this.channels = options.channelsPerConnection ?? SSH_CHANNELS_PER_CONNECTION;
    this.connect = options.connect ?? openSshConnection;
    this.handshakesAtOnce = Math.max(1, options.handshakesAtOnce ?? SSH_HANDSHAKES_AT_ONCE);
  }

  /** Run one handshake when a slot is free; a finished handshake hands its slot straight to the next in line. */
  private readonly handshakeGate = async <T>(run: () => Promise<T>): Promise<T> => {
    if (this.handshaking < this.handshakesAtOnce) this.handshaking += 1;
    else await new Promise<void>((resolve) => this.handshakeQueue.push(resolve));
    this.peakHandshakes = Math.max(this.peakHandshakes, this.handshaking);
    try {
      return await run();
    } finally {
      const next = this.handshakeQueue.shift();
      if (next) next();
      else this.handshaking -= 1;
    }
  };

  get verifier(): HostKeyVerifier {
    return this.options.verifier;
  }

  /** Open connections and connections being dialled. */
  stats(): { open: number; connecting: number; leased: number } {
    let open = 0;
    let connecting = 0;
    let leased = 0;
    for (const e of this.entries.values()) {
      if (e.connection && !e.connection.dead) open += 1;
      else if (e.connecting) connecting += 1;
      leased += e.leases;
    }
    return { open, connecting, leased };
  }

  async lease(target: SshTarget, opts: { connectTimeoutMs: number; handshakeTimeoutMs?: number; signal?: AbortSignal }): Promise<SshLease> {
    if (this.disposed) throw new WindeckError('CANCELLED', 'The SSH pool is shut down.', { node: target.node, transport: 'ssh' });
    const key = poolKey(target);
    let entry = this.entries.get(key);
    if (entry?.connection?.dead) {
      this.drop(entry);
      entry = undefined;
    }
    if (!entry) {
      entry = { key, connecting: null, connection: null, leases: 0, activeChannels: 0, waiters: [], idleTimer: null };
      this.entries.set(key, entry);
    }
    const e = entry;
    if (e.idleTimer) {
      clearTimeout(e.idleTimer);
      e.idleTimer = null;
    }
    e.leases += 1;
    try {
      if (!e.connection) {
        if (!e.connecting) {
          this.dials += 1;
          e.connecting = this.connect(target, {
            verifier: this.options.verifier,
            connectTimeoutMs: opts.connectTimeoutMs,
            ...(opts.handshakeTimeoutMs !== undefined ? { handshakeTimeoutMs: opts.handshakeTimeoutMs } : {}),
            keepaliveIntervalMs: this.keepaliveIntervalMs,
            keepaliveCountMax: this.keepaliveCountMax,
            handshakeGate: this.handshakeGate,
            // The dial is shared by every lease waiting on it; one caller's cancel must not kill it for all.
          });
          e.connecting.then(
            (c) => {
              e.connection = c;
              e.connecting = null;
              void c.closed.then(() => {
                if (this.entries.get(key) === e) this.entries.delete(key);
                for (const w of e.waiters.splice(0)) w();
              });
            },
            () => {
              e.connecting = null;
              if (this.entries.get(key) === e && !e.connection) this.entries.delete(key);
            },
          );
        }
        const pending = e.connecting;
        const conn = await raceAbort(pending!, opts.signal, target);
        e.connection = conn;
      }
    } catch (error) {
      this.releaseEntry(e);
      throw error;
    }
    let released = false;
    return {
      connection: e.connection!,
      channelSlot: (signal) => this.slot(e, signal, target),
      release: () => {
        if (released) return;
        released = true;
        this.releaseEntry(e);
      },
    };
  }

  private slot(e: Entry, signal: AbortSignal | undefined, target: SshTarget): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const tryTake = (): boolean => {
        if (e.connection?.dead) {
          reject(new WindeckError('UNREACHABLE', `The SSH connection to ${target.node} closed.`, { node: target.node, transport: 'ssh', step: 'channel' }));
          return true;
        }
        if (e.activeChannels < this.channels) {
          e.activeChannels += 1;
          let freed = false;
          resolve(() => {
            if (freed) return;
            freed = true;
            e.activeChannels -= 1;
            const next = e.waiters.shift();
            if (next) next();
          });
          return true;
        }
        return false;
      };
      if (tryTake()) return;
      const waiter = () => {
        signal?.removeEventListener('abort', onAbort);
        if (!tryTake()) e.waiters.push(waiter);
      };
      const onAbort = () => {
        const i = e.waiters.indexOf(waiter);
        if (i >= 0) e.waiters.splice(i, 1);
        reject(
          new WindeckError('CANCELLED', `Waiting for a free SSH channel to ${target.node} was cancelled.`, {
            node: target.node,
            transport: 'ssh',
            step: 'channel',
          }),
        );
      };
      e.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaseEntry(e: Entry): void {
    e.leases = Math.max(0, e.leases - 1);
    if (e.leases === 0 && e.connection && !e.connection.dead && !this.disposed) {
      e.idleTimer = setTimeout(() => {
        if (e.leases === 0) this.drop(e);
      }, this.idleMs);
      e.idleTimer.unref?.();
    }
  }

  private drop(e: Entry): void {
    if (e.idleTimer) clearTimeout(e.idleTimer);
    e.idleTimer = null;
    e.connection?.close();
    if (this.entries.get(e.key) === e) this.entries.delete(e.key);
  }

  /** Close a node's pooled connection (after a host key change was accepted, or credentials changed). */
  forget(target: SshTarget): void {
    const e = this.entries.get(poolKey(target));
    if (e) this.drop(e);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const all = [...this.entries.values()];
    const closing: Array<Promise<unknown>> = [];
    for (const e of all) {
      if (e.connection) closing.push(e.connection.closed);
      else if (e.connecting) closing.push(e.connecting.then((c) => (c.close(), c.closed)).catch(() => undefined));
      this.drop(e);
    }
    await Promise.race([Promise.all(closing), new Promise((r) => setTimeout(r, 2000).unref?.())]);
  }
}

function raceAbort<T>(p: Promise<T>, signal: AbortSignal | undefined, target: SshTarget): Promise<T> {
  if (!signal) return p;
  if (signal.aborted)
    return Promise.reject(
      new WindeckError('CANCELLED', `Connecting to ${target.node} was cancelled.`, { node: target.node, transport: 'ssh', step: 'connect' }),
    );
  return new Promise<T>((resolve, reject) => {
    const onAbort = () =>
      reject(new WindeckError('CANCELLED', `Connecting to ${target.node} was cancelled.`, { node: target.node, transport: 'ssh', step: 'connect' }));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
