import crypto from 'node:crypto';
import net from 'node:net';
import { createRequire } from 'node:module';
import type { AuthContext, Connection, PublicKeyAuthContext, ServerChannel } from 'ssh2';

let ssh2Lib: typeof import('ssh2') | null = null;
/**
 * ssh2 (CommonJS) is required when a simulated node first needs it, not when this module loads: the product's
 * bundles include the simulator for the demo, and loading ssh2 at start-up would slow every command's start.
 */
function ssh2(): typeof import('ssh2') {
  ssh2Lib ??= createRequire(import.meta.url)('ssh2') as typeof import('ssh2');
  return ssh2Lib;
}
import type { CommandHost } from './command-host';

/**
 * The simulated node's SSH server (ssh2 `Server`), in front of the command host. Like Windows OpenSSH it runs
 * exec requests through the default shell (the command host decides how that shell answers), serves SFTP
 * (`/C:/k/kubelet.log` style paths) from the node model, and accepts password and public-key authentication.
 *
 * Faults read at each connection: `authFailure` rejects every attempt; `hostKeyChange` presents the alternate
 * host key. Every authentication attempt is recorded in `authAttempts`, so tests can prove that a client which
 * refused the host key never tried to log in.
 */

export interface SimUser {
  username: string;
  password?: string;
  /** OpenSSH public key lines ("ssh-ed25519 AAAA... comment") allowed for this user. */
  authorizedKeys?: string[];
}

export interface SshServerOptions {
  commandHost: CommandHost;
  address: string;
  port?: number;
  /** Host key (OpenSSH private key text); generated when absent. */
  hostKey?: string;
  /** Presented instead while the `hostKeyChange` fault is on; generated when absent. */
  alternateHostKey?: string;
  users: SimUser[];
  /** Act as a jump host: accept direct-tcpip (ProxyJump) to 127.0.0.0/8 targets. Off by default. */
  allowLoopbackForwarding?: boolean;
}

export interface AuthAttempt {
  at: number;
  method: string;
  username: string;
  accepted: boolean;
}

export interface SimSshServer {
  host: string;
  port: number;
  hostKeyPrivate: string;
  /** "ssh-ed25519 AAAA..." of the normal host key. */
  hostKeyPublic: string;
  /** `SHA256:...` as `ssh-keygen -lf` prints it. */
  hostKeyFingerprint: string;
  alternateHostKeyFingerprint: string;
  readonly authAttempts: AuthAttempt[];
  readonly connectionCount: number;
  /** Currently open client connections. */
  readonly openConnections: number;
  stop(): Promise<void>;
}

/** Generate an ed25519 host or user key pair in OpenSSH format. */
export function generateKeyPair(comment = 'windeck-sim'): { privateKey: string; publicKey: string } {
  // ssh2 1.17's keygen now and then (about 1 key in 300, measured) writes an ed25519 key its own parser rejects
  // ("Malformed OpenSSH private key"); generate again until the key parses.
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const kp = ssh2().utils.generateKeyPairSync('ed25519', { comment });
    if (!(ssh2().utils.parseKey(kp.private) instanceof Error)) return { privateKey: kp.private, publicKey: kp.public };
  }
  throw new Error('could not generate a parseable ed25519 key');
}

/** The SSH wire blob of a public or private key text. */
export function publicKeyBlob(keyText: string): Buffer {
  const parsed = ssh2().utils.parseKey(keyText);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) throw new Error(`cannot parse key: ${key instanceof Error ? key.message : 'empty'}`);
  return key.getPublicSSH();
}

export function fingerprintOf(keyText: string): string {
  return 'SHA256:' + crypto.createHash('sha256').update(publicKeyBlob(keyText)).digest('base64').replace(/=+$/, '');
}

/** "ssh-ed25519 AAAA..." for a key text. */
export function publicKeyLine(keyText: string): string {
  const blob = publicKeyBlob(keyText);
  const type = blob.subarray(4, 4 + blob.readUInt32BE(0)).toString('latin1');
  return `${type} ${blob.toString('base64')}`;
}

function timingSafeEqualText(a: string, b: string): boolean {
  const x = crypto.createHash('sha256').update(a).digest();
  const y = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(x, y);
}

function checkPublicKey(ctx: PublicKeyAuthContext, user: SimUser): boolean {
  for (const line of user.authorizedKeys ?? []) {
    const parsed = ssh2().utils.parseKey(line);
    const key = Array.isArray(parsed) ? parsed[0] : parsed;
    if (!key || key instanceof Error) continue;
    if (key.type !== ctx.key.algo && !(key.type === 'ssh-rsa' && ctx.key.algo.startsWith('rsa-sha2'))) continue;
    if (!key.getPublicSSH().equals(ctx.key.data)) continue;
    if (!ctx.signature || !ctx.blob) return true; // key probe: "would this key do?"
    return key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true;
  }
  return false;
}

/** Windows OpenSSH SFTP path `/C:/k/x.log` -> `C:\k\x.log`. */
export function sftpToWindowsPath(p: string): string | null {
  const m = /^\/?([A-Za-z]):(\/.*)?$/.exec(p);
  if (!m) return null;
  return `${m[1]!.toUpperCase()}:${(m[2] ?? '/').replaceAll('/', '\\')}`;
}

function serveSftp(accept: () => import('ssh2').SFTPWrapper, host: CommandHost): void {
  const sftp = accept();
  const STATUS = ssh2().utils.sftp.STATUS_CODE;
  const handles = new Map<number, Buffer>();
  let nextHandle = 1;
  sftp.on('OPEN', (reqid, filename, flags) => {
    const winPath = sftpToWindowsPath(filename);
    const file = winPath ? host.model.file(winPath) : null;
    if (!file) return sftp.status(reqid, STATUS.NO_SUCH_FILE, 'The system cannot find the file specified.');
    if (flags & ssh2().utils.sftp.OPEN_MODE.WRITE) return sftp.status(reqid, STATUS.PERMISSION_DENIED, 'Access is denied.');
    const id = nextHandle++;
    handles.set(id, file.bytes);
    const h = Buffer.alloc(4);
    h.writeUInt32BE(id, 0);
    sftp.handle(reqid, h);
  });
  sftp.on('READ', (reqid, handle, offset, length) => {
    const bytes = handles.get(handle.readUInt32BE(0));
    if (!bytes) return sftp.status(reqid, STATUS.FAILURE, 'invalid handle');
    if (offset >= bytes.length) return sftp.status(reqid, STATUS.EOF);
    sftp.data(reqid, bytes.subarray(offset, Math.min(bytes.length, offset + length)));
  });
  const attrsOf = (size: number) => ({ mode: 0o100644, uid: 0, gid: 0, size, atime: 0, mtime: 0 });
  sftp.on('FSTAT', (reqid, handle) => {
    const bytes = handles.get(handle.readUInt32BE(0));
    if (!bytes) return sftp.status(reqid, STATUS.FAILURE, 'invalid handle');
    sftp.attrs(reqid, attrsOf(bytes.length));
  });
  const stat = (reqid: number, p: string) => {
    const winPath = sftpToWindowsPath(p);
    const file = winPath ? host.model.file(winPath) : null;
    if (!file) return sftp.status(reqid, STATUS.NO_SUCH_FILE, 'The system cannot find the file specified.');
    sftp.attrs(reqid, attrsOf(file.bytes.length));
  };
  sftp.on('STAT', stat);
  sftp.on('LSTAT', stat);
  sftp.on('CLOSE', (reqid, handle) => {
    handles.delete(handle.readUInt32BE(0));
    sftp.status(reqid, STATUS.OK);
  });
  sftp.on('REALPATH', (reqid, p) => {
    const name = p === '.' || p === '' ? '/C:/Users/Administrator' : p;
    sftp.name(reqid, [{ filename: name, longname: name, attrs: attrsOf(0) }]);
  });
  for (const op of ['WRITE', 'OPENDIR', 'READDIR', 'REMOVE', 'RMDIR', 'MKDIR', 'RENAME', 'SETSTAT', 'FSETSTAT', 'READLINK', 'SYMLINK'] as const) {
    sftp.on(op, (reqid: number) => sftp.status(reqid, STATUS.OP_UNSUPPORTED, 'not supported by the simulator'));
  }
}

function runExec(stream: ServerChannel, command: string, host: CommandHost, socket: net.Socket): void {
  let stdinText = '';
  const stdin = new Promise<string>((resolve) => {
    stream.on('data', (chunk: Buffer) => {
      stdinText += chunk.toString('latin1');
    });
    stream.once('end', () => resolve(stdinText));
    stream.once('close', () => resolve(stdinText));
  });
  const exec = host.execute(command, stdin);
  let closed = false;
  stream.once('close', () => {
    closed = true;
    exec.abort();
  });
  exec.stdout.on('data', (chunk: Buffer) => {
    if (!closed) stream.write(chunk);
  });
  exec.stderr.on('data', (chunk: Buffer) => {
    if (!closed) stream.stderr.write(chunk);
  });
  void exec.exit.then(async (result) => {
    // Let buffered output leave before deciding how the run ends.
    await Promise.all([new Promise((r) => (exec.stdout.readableEnded ? r(null) : exec.stdout.once('end', r))), new Promise((r) => (exec.stderr.readableEnded ? r(null) : exec.stderr.once('end', r)))]);
    if (closed) return;
    if (result.dropConnection) {
      socket.destroy();
      return;
    }
    stream.exit(result.code);
    stream.end();
  });
  exec.stdout.resume();
  exec.stderr.resume();
}

/** Start the SSH server on `address:port` (port 0 picks one). */
export async function startSimSshServer(options: SshServerOptions): Promise<SimSshServer> {
  const hostKeyPrivate = options.hostKey ?? generateKeyPair('windeck-sim-host').privateKey;
  const alternate = options.alternateHostKey ?? generateKeyPair('windeck-sim-host-changed').privateKey;
  const authAttempts: AuthAttempt[] = [];
  const sockets = new Set<net.Socket>();
  let connectionCount = 0;
  const host = options.commandHost;

  const onClient = (client: Connection, socket: net.Socket) => {
    client.on('error', () => undefined);
    client.on('authentication', (ctx: AuthContext) => {
      const user = options.users.find((u) => u.username.toLowerCase() === ctx.username.toLowerCase());
      let accepted = false;
      if (!host.faults.authFailure && user) {
        if (ctx.method === 'password') accepted = user.password !== undefined && timingSafeEqualText(ctx.password, user.password);
        else if (ctx.method === 'publickey') accepted = checkPublicKey(ctx, user);
      }
      authAttempts.push({ at: Date.now(), method: ctx.method, username: ctx.username, accepted });
      if (accepted) ctx.accept();
      else ctx.reject(['publickey', 'password']);
    });
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('exec', (accept, _reject, info) => runExec(accept(), info.command, host, socket));
        session.on('sftp', (accept) => serveSftp(accept, host));
        session.on('pty', (accept) => accept?.());
        session.on('env', (accept) => accept?.());
        session.on('shell', (_accept, reject) => reject?.());
      });
      client.on('request', (accept, reject) => reject?.());
      client.on('tcpip', (accept, reject, info) => {
        if (!options.allowLoopbackForwarding || !/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(info.destIP)) return reject();
        const upstream = net.connect(info.destPort, info.destIP);
        let stream: ServerChannel | null = null;
        upstream.once('connect', () => {
          const s = accept();
          stream = s;
          s.pipe(upstream).pipe(s);
          s.on('close', () => upstream.destroy());
          upstream.on('close', () => s.close());
        });
        upstream.on('error', () => {
          if (stream) stream.close();
          else reject();
        });
      });
    });
  };

  // ssh2 keeps the raw socket on the connection object; the drop fault needs it.
  const withSocket = (client: Connection) => onClient(client, (client as unknown as { _sock: net.Socket })._sock);
  const normal = new (ssh2().Server)({ hostKeys: [hostKeyPrivate], ident: 'OpenSSH_for_Windows_9.5' }, withSocket);
  const changed = new (ssh2().Server)({ hostKeys: [alternate], ident: 'OpenSSH_for_Windows_9.5' }, withSocket);

  const tcp = net.createServer((socket) => {
    connectionCount += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    (host.faults.hostKeyChange ? changed : normal).injectSocket(socket);
  });
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(options.port ?? 0, options.address, () => {
      tcp.removeListener('error', reject);
      resolve();
    });
  });
  const addr = tcp.address() as net.AddressInfo;
  return {
    host: options.address,
    port: addr.port,
    hostKeyPrivate,
    hostKeyPublic: publicKeyLine(hostKeyPrivate),
    hostKeyFingerprint: fingerprintOf(hostKeyPrivate),
    alternateHostKeyFingerprint: fingerprintOf(alternate),
    authAttempts,
    get connectionCount() {
      return connectionCount;
    },
    get openConnections() {
      return sockets.size;
    },
    async stop() {
      await new Promise<void>((resolve) => {
        tcp.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}
