import { createRequire } from 'node:module';
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
  /**
   * Runs `send` with the connection's socket corked: the SSH packets it writes (a channel's data and its EOF) leave
   * in one writev instead of one write each.
   */
  batch?<T>(send: () => T): T;
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

/**
 * CPU time one event-loop turn spends on inbound SSH data before the rest waits for the next turn: what a timer (a
 * progress event, a keepalive, another request's timeout, the UI host's messages) can be delayed by SSH traffic.
 */
export const INBOUND_TURN_BUDGET_MS = 4;

/** One connection's place in the inbound scheduler: what it read and has not handed to ssh2 yet. */
export interface InboundSlot {
  /** Chunks held back, oldest first (its socket stops reading while it has any, so at most one in practice). */
  held: Buffer[];
  /** Hands a chunk to the connection's 'data' listeners (ssh2's parser). */
  emit(chunk: Buffer): void;
  /** Starts reading again once everything held was handed on. */
  resume(): void;
  /** False once the socket is destroyed: what it still held is dropped. */
  alive(): boolean;
}

/**
 * A fair, time-budgeted turn for inbound SSH data, shared by every SSH connection of the process. libuv runs the
 * read callback of every ready socket in one poll phase, and each callback decrypts and parses SSH packets and runs
 * what completes (a channel opens, a run finishes) before the next: with a few dozen connections answering at
 * once, one turn took tens of ms and every timer waited for it. Here a turn hands chunks on while it has used less
 * than `budgetMs` (measured from its first chunk, so the promise jobs each chunk set off count too); after that a
 * connection's chunk is held, its socket stops reading (so its order, and its EOF after its data, are kept, and the
 * peer is held back by TCP and the SSH window), and it joins a first-come first-served line. The line is worked off
 * in the check phase (setImmediate, one chunk per immediate so each one's promise jobs run before the budget is
 * looked at again) with a fresh budget per loop turn; when that is used up too, the rest waits for the next turn,
 * after the timers. While anyone waits in line, new chunks queue behind them. A turn is thus bounded by about two
 * budgets plus one chunk's work; a single busy connection (a pull) loses nothing but a readStop/readStart and an
 * immediate every few ms.
 */
export function inboundScheduler(budgetMs = INBOUND_TURN_BUDGET_MS, now: () => number = () => performance.now()) {
  /** Start of the current turn's budget; -1 = no chunk handed on yet in this turn. */
  let turnStart = -1;
  /** Connections with held chunks, first come first served. */
  const line: InboundSlot[] = [];
  /** Immediates scheduled for the line in the current generation; a yield starts a new generation. */
  let generation = 0;
  let scheduled = 0;
  let resetArmed = false;
  const spent = (): boolean => turnStart >= 0 && now() - turnStart >= budgetMs;
  const startTurn = () => {
    if (turnStart >= 0) return;
    turnStart = now();
    if (!resetArmed) {
      // The poll phase's budget ends with the phase; the line (if any) goes on with what is left of it.
      resetArmed = true;
      setImmediate(() => {
        resetArmed = false;
        if (line.length === 0) turnStart = -1;
      });
    }
  };
  const arm = () => {
    const gen = generation;
    while (scheduled < line.length) {
      scheduled += 1;
      setImmediate(() => work(gen));
    }
  };
  const handOn = (slot: InboundSlot) => {
    const chunk = slot.held.shift()!;
    if (slot.held.length > 0) {
      line.push(slot);
      arm();
    }
    slot.emit(chunk);
    if (slot.held.length === 0 && slot.alive()) slot.resume();
  };
  const work = (gen: number) => {
    // An immediate of an earlier generation: the turn it was for has yielded, its place went to the next one.
    if (gen !== generation) return;
    scheduled -= 1;
    if (line.length === 0) return;
    if (turnStart < 0) turnStart = now();
    else if (spent()) {
      // Yield: the timers run before the rest of the line; the next turn gets a fresh budget.
      generation += 1;
      scheduled = 0;
      turnStart = -1;
      arm();
      return;
    }
    const slot = line.shift()!;
    if (!slot.alive()) slot.held.length = 0;
    else handOn(slot);
    // The line is done: the next poll phase starts a fresh budget.
    if (line.length === 0) turnStart = -1;
  };
  return {
    /**
     * A chunk `slot` read: handed on now (true), or held for a later turn (false: the socket stops reading until
     * `slot.resume`).
     */
    deliver(slot: InboundSlot, chunk: Buffer): boolean {
      if (slot.held.length > 0) {
        slot.held.push(chunk);
        return false;
      }
      if (line.length === 0) {
        startTurn();
        if (!spent()) {
          slot.emit(chunk);
          return true;
        }
      }
      slot.held.push(chunk);
      line.push(slot);
      arm();
      return false;
    },
    /** Connections waiting in line (tests). */
    get waiting(): number {
      return line.length;
    },
  };
}

export type InboundScheduler = ReturnType<typeof inboundScheduler>;

/** The process's scheduler for every SSH connection's socket reads. */
let sharedInbound: InboundScheduler = inboundScheduler();

/** Replace the shared inbound scheduler (tests: a zero budget holds every chunk for a later turn). */
export function setInboundTurnBudget(budgetMs: number): void {
  sharedInbound = inboundScheduler(budgetMs);
}

/**
 * Bytes of one read slab during a bulk transfer and the least free space a read is then offered (a slab with less
 * left is replaced), and the first slabs of a connection (a read is offered at least a quarter of one).
 */
export const READ_SLAB_BYTES = 256 * 1024;
export const READ_MIN_BYTES = 64 * 1024;
export const READ_FIRST_SLAB_BYTES = 16 * 1024;

/**
 * Socket reads for an SSH connection, with Node's `onread`: each read is offered the free rest of a shared slab
 * and the bytes it got are emitted as a 'data' chunk, a view of the slab, as a plain socket would. Node's own
 * reads are a new 64 KiB buffer each (200 MB of them for a 200 MB pull) and cut the SSH packets (32 KiB) at every
 * 64 KiB, which makes ssh2 copy the cut packet into a buffer of its own: larger reads from a slab cut fewer packets
 * (fewer of those copies, less memory for V8's garbage collector to trace) and run the per-read JavaScript
 * (socket, ssh2's parser) less often. The same bytes are allocated for the reads themselves; a chunk that is kept
 * (an exec channel's output) keeps its slab alive, as a pooled Buffer does.
 * A connection starts on 16 KiB slabs, where small reads (a command's answer) share a slab until less than 4 KiB
 * of it is left; once a read fills what it was offered (a bulk transfer) it moves to 256 KiB slabs, each read
 * offered at least 64 KiB. An `onread` socket always holds the buffer its next read goes into, also while idle: a
 * connection holds 16 KiB until one of its reads filled what it was offered (a transfer, or an answer larger than
 * what was left of a slab), 256 KiB after that. (A floor as large as the first slab, tried first, gave every small
 * read a fresh slab, which cost a 200-node warm fan-out 25-40% more CPU than Node's own reads.)
 * An `onread` socket does not queue what it read: chunks read before anyone listens for 'data' (the server's
 * banner, while ssh2 loads or the handshake waits for its slot) are kept and emitted, in order, right after the
 * first 'data' listener is added. The socket keeps reading meanwhile, so a peer that closes is still noticed.
 * After that, chunks go through `scheduler` (the process's `inboundScheduler`; null: straight to the listeners).
 */
export function slabReads(
  slabBytes = READ_SLAB_BYTES,
  minBytes = READ_MIN_BYTES,
  firstBytes = Math.min(READ_FIRST_SLAB_BYTES, slabBytes),
  scheduler: InboundScheduler | null = sharedInbound,
) {
  /** The size of the next slab, and the least a read is offered: first slabs until a read fills its offer, then bulk. */
  let size = firstBytes;
  let floor = Math.max(1, Math.floor(firstBytes / 4));
  let slab = Buffer.allocUnsafeSlow(size);
  let used = 0;
  let sock: net.Socket | null = null;
  /** Chunks read before a 'data' listener was there. */
  let early: Buffer[] | null = [];
  /** The slab's free part offered to the next read. */
  const next = (): Buffer => {
    if (slab.length - used < floor) {
      slab = Buffer.allocUnsafeSlow(size);
      used = 0;
    }
    return slab.subarray(used);
  };
  const slot: InboundSlot = {
    held: [],
    emit: (chunk) => sock?.emit('data', chunk),
    resume: () => sock?.resume(),
    alive: () => !!sock && !sock.destroyed,
  };
  const flushEarly = () => {
    const kept = early;
    early = null;
    for (const chunk of kept ?? []) if (sock && !sock.destroyed) sock.emit('data', chunk);
  };
  return {
    onread: {
      buffer: next,
      callback: (nread: number, buf: Uint8Array): boolean => {
        // `buf` is what `next` offered: the read's bytes are its first `nread`. The slab's used part is never
        // offered again, so the chunk stays valid for as long as anyone holds it.
        const chunk = Buffer.from(buf.buffer, buf.byteOffset, nread);
        used += nread;
        if (nread >= buf.length && size !== slabBytes) {
          size = slabBytes;
          floor = Math.min(minBytes, slabBytes);
        }
        if (early) early.push(chunk);
        else if (sock && !sock.destroyed) {
          // Handed on now, or held for a later turn (false: Node stops reading this socket until the slot resumes it).
          if (scheduler) return scheduler.deliver(slot, chunk);
          sock.emit('data', chunk);
        }
        return true;
      },
    },
    attach(s: net.Socket) {
      sock = s;
      const onListener = (event: string | symbol) => {
        if (event !== 'data') return;
        s.removeListener('newListener', onListener);
        // After the listener is in place (newListener runs before it is added) and before the next read.
        process.nextTick(flushEarly);
      };
      s.on('newListener', onListener);
    },
  };
}

function tcpConnect(hop: SshHop, timeoutMs: number, context: ErrorContext, signal?: AbortSignal): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    // No Nagle: pipelined requests (SFTP READs, channel opens) go out at once instead of waiting for an ACK.
    // Reads land in shared slabs, up to 256 KiB at a time (`slabReads`).
    const reads = slabReads();
    const sock = net.connect({ host: hop.host, port: hop.port, noDelay: true, onread: reads.onread });
    reads.attach(sock);
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

/** The parts of ssh2 Windeck uses: the SSH client, and the key parser (`windeck credentials` asks it about a key). */
export interface Ssh2Client {
  Client: typeof import('ssh2').Client;
  utils: { parseKey: typeof import('ssh2').utils.parseKey };
}

let ssh2Module: Ssh2Client | null = null;

/**
 * ssh2 is loaded on the first connection, not at start-up: it is the largest module on the CLI's and the
 * console's start path and answering from the store never needs it. Only its client is loaded
 * (`ssh2/lib/client.js`, which brings the key parser, SFTP and agent support with it), not its index: the
 * index adds the SSH server, the HTTP(S) agents and key generation, which Windeck's dialling never uses.
 * ssh2 is CommonJS and is loaded with `require` (createRequire), as the node simulator does: an ESM `import()`
 * of a CommonJS file routes every file it requires through the ESM loader (cjs-module-lexer on each), which on
 * Node 20 made `import('ssh2/lib/client.js')` take twice as long as requiring it (~125 ms vs ~60 ms CPU on the
 * 2-core CI machine; `import('ssh2')`, the former way: ~72 ms). It resolves from this file (the bundle in
 * dist/, or the source under vitest), like the import did.
 */
export function loadSsh2(): Promise<Ssh2Client> {
  try {
    if (!ssh2Module) {
      const require = createRequire(import.meta.url);
      const Client = require('ssh2/lib/client.js') as typeof import('ssh2').Client;
      const { parseKey } = require('ssh2/lib/protocol/keyParser.js') as { parseKey: typeof import('ssh2').utils.parseKey };
      if (typeof Client !== 'function' || typeof parseKey !== 'function') throw new Error('ssh2 does not have the layout Windeck expects (lib/client.js).');
      ssh2Module = { Client, utils: { parseKey } };
    }
    return Promise.resolve(ssh2Module);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/** Whether ssh2 has been loaded in this process (by a connection or by the console's preload). */
export function ssh2Loaded(): boolean {
  return ssh2Module !== null;
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
        batch: <T>(send: () => T): T => {
          sock.cork();
          try {
            return send();
          } finally {
            sock.uncork();
          }
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
