import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandHost } from './command-host';

/**
 * Lets a real OpenSSH `sshd` front the simulated node (interop tests, the fan-out benchmark): sshd's
 * `ForceCommand` runs `forcecommand-helper.mjs`, which forwards `$SSH_ORIGINAL_COMMAND` and stdin to this relay
 * on 127.0.0.1 and plays the answer back (stdout, stderr, exit code). Windows-side behaviour stays in the
 * command host; sshd does the real SSH.
 *
 * Wire format (helper -> relay): one JSON line `{"command", "user", "connection"}` (`connection` is sshd's
 * SSH_CONNECTION, "client_ip client_port server_ip server_port", so one relay can serve many node addresses), then the raw stdin, then end.
 * Relay -> helper: frames `[type u8][length u32 BE][payload]`, type 1 stdout, 2 stderr, 3 exit (JSON
 * `{"code", "dropConnection"}`), after which the relay ends the socket.
 */

export const FRAME_STDOUT = 1;
export const FRAME_STDERR = 2;
export const FRAME_EXIT = 3;

function frame(type: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(type, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

export interface CommandRelay {
  host: string;
  port: number;
  /** Commands relayed so far. */
  readonly count: number;
  close(): Promise<void>;
}

/** Serve `pick(command)`'s host on `address` (127.0.0.0/8). `pick` may route by the sshd user or a marker. */
export async function startCommandRelay(pick: CommandHost | ((header: { command: string; user?: string; connection?: string }) => CommandHost | null), address = '127.0.0.1'): Promise<CommandRelay> {
  const choose = typeof pick === 'function' ? pick : () => pick;
  const sockets = new Set<net.Socket>();
  let count = 0;
  // allowHalfOpen: the helper ends its side after stdin; the answer still has to go back.
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    let header: { command: string; user?: string; connection?: string } | null = null;
    let stdinText = '';
    let resolveStdin: (s: string) => void = () => undefined;
    const stdin = new Promise<string>((r) => (resolveStdin = r));
    socket.on('data', (chunk: Buffer) => {
      if (header) {
        stdinText += chunk.toString('latin1');
        return;
      }
      buffered = Buffer.concat([buffered, chunk]);
      const nl = buffered.indexOf(0x0a);
      if (nl < 0) return;
      try {
        header = JSON.parse(buffered.subarray(0, nl).toString('utf8')) as { command: string; user?: string; connection?: string };
      } catch {
        socket.destroy();
        return;
      }
      stdinText += buffered.subarray(nl + 1).toString('latin1');
      const host = choose(header);
      if (!host) {
        socket.end(Buffer.concat([frame(FRAME_STDERR, Buffer.from('windeck-sim: no simulated node for this login\r\n')), frame(FRAME_EXIT, Buffer.from(JSON.stringify({ code: 255, dropConnection: false })))]));
        return;
      }
      count += 1;
      const exec = host.execute(header.command, stdin);
      exec.stdout.on('data', (c: Buffer) => socket.write(frame(FRAME_STDOUT, c)));
      exec.stderr.on('data', (c: Buffer) => socket.write(frame(FRAME_STDERR, c)));
      socket.once('close', () => exec.abort());
      void exec.exit.then(async (result) => {
        await Promise.all([new Promise((r) => (exec.stdout.readableEnded ? r(null) : exec.stdout.once('end', r))), new Promise((r) => (exec.stderr.readableEnded ? r(null) : exec.stderr.once('end', r)))]);
        if (!socket.destroyed) socket.end(frame(FRAME_EXIT, Buffer.from(JSON.stringify(result))));
      });
    });
    socket.on('end', () => resolveStdin(stdinText));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    host: address,
    port,
    get count() {
      return count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Absolute path of the helper script sshd's ForceCommand runs (plain JavaScript, runs under `node`). */
export function forceCommandHelperPath(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), 'forcecommand-helper.mjs');
}
