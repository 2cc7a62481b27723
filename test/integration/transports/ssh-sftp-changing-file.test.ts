import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { WindeckError } from '../../../shared/contract/errors';
import { PinningVerifier } from '../../../electron/services/transports/ssh/host-keys';
import { SshTransport } from '../../../electron/services/transports/ssh/exec';
import { knownHostsName, parseKnownHosts } from '../../../electron/services/transports/ssh/known-hosts';
import { SshPool } from '../../../electron/services/transports/ssh/pool';
import { generateKeyPair } from '../../../electron/sim/windows-node/ssh-server';
import { sftpFileNode } from '../../helpers/sftp-file-node';
import { tempDir } from '../../helpers/temp-dir';

/**
 * Downloads through the real ssh2 client (pipelined READs, DATA answers copied straight into the READ buffers,
 * READ buffers reused by a file sink) of a log whose size is not a multiple of the READ size, and of a log that
 * grows or shrinks while it is being read (logs do): what arrives is exactly the file as the server had it when
 * it answered, in order, and the byte count and progress agree with the file written; cancel and the idle
 * timeout still end such a download.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * An SFTP server holding one file, `C:\k\app.log`; `onRead` may change the file before a READ is answered, or
 * return false to leave that READ unanswered (a node that stalls).
 */
async function node(initial: Buffer, onRead?: (offset: number, file: { data: Buffer }) => boolean | void) {
  const file = { data: initial };
  const sftpNode = await sftpFileNode({
    sftpPath: '/C:/k/app.log',
    ident: 'OpenSSH_for_Windows_9.5',
    hostKeyName: 'windeck-sftp-change-host',
    onRead: (sftp, reqid, offset, length, STATUS) => {
      if (onRead?.(offset, file) === false) return;
      if (offset >= file.data.length) return sftp.status(reqid, STATUS.EOF);
      sftp.data(reqid, file.data.subarray(offset, Math.min(offset + length, file.data.length)));
    },
  });
  cleanups.push(sftpNode.close);
  const port = sftpNode.port;
  const pool = new SshPool({
    verifier: new PinningVerifier({ knownHosts: parseKnownHosts(`${knownHostsName('127.0.0.1', port)} ${sftpNode.hostKeyPublic}\n`, 'change-known-hosts') }),
  });
  cleanups.push(() => pool.dispose());
  const clientKey = generateKeyPair('windeck-sftp-change-client').privateKey;
  const transport = new SshTransport(
    'win-change',
    { node: 'win-change', host: '127.0.0.1', port, auth: { username: 'Administrator', privateKey: clientKey } },
    pool,
  );
  return { transport, file };
}

async function pullToFile(transport: SshTransport): Promise<{ bytes: number; progress: number; written: Buffer }> {
  const dir = tempDir('windeck-sftp-change-');
  cleanups.push(() => dir.cleanup());
  const dest = path.join(dir.dir, 'app.log');
  const sink = fs.createWriteStream(dest);
  let progress = 0;
  const bytes = await transport.download('C:\\k\\app.log', sink, { signal: new AbortController().signal, onProgress: (n) => (progress += n) });
  await new Promise<void>((resolve, reject) => sink.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return { bytes, progress, written: fs.readFileSync(dest) };
}

const MiB = 1024 * 1024;

describe('SFTP download of a log whose size is odd or changes while it is read', () => {
  it('delivers a file that is not a multiple of the READ size byte for byte', async () => {
    const data = crypto.randomBytes(3 * MiB + 4321);
    const { transport } = await node(data);
    const r = await pullToFile(transport);
    expect(r.bytes).toBe(data.length);
    expect(r.progress).toBe(data.length);
    expect(r.written.equals(data)).toBe(true);
  });

  it('follows a log that grows while it is read, up to the end the server reports', async () => {
    const data = crypto.randomBytes(3 * MiB + 17);
    const more = crypto.randomBytes(700_001);
    let grown = false;
    const { transport, file } = await node(data, (offset, f) => {
      if (!grown && offset >= MiB) {
        grown = true;
        f.data = Buffer.concat([f.data, more]);
      }
    });
    const r = await pullToFile(transport);
    expect(grown).toBe(true);
    // READs past the old end are sent after the READ that grew the file, so they see the new end.
    expect(r.bytes).toBe(file.data.length);
    expect(r.progress).toBe(r.bytes);
    expect(r.written.equals(file.data)).toBe(true);
  });

  it('stops where a log that shrank while it was read now ends', async () => {
    const data = crypto.randomBytes(4 * MiB + 999);
    const keep = Math.floor(1.5 * MiB) + 99;
    let shrunk = false;
    const { transport } = await node(data, (offset, f) => {
      if (!shrunk && offset >= MiB) {
        shrunk = true;
        f.data = f.data.subarray(0, keep);
      }
    });
    const r = await pullToFile(transport);
    expect(shrunk).toBe(true);
    expect(r.bytes).toBe(keep);
    expect(r.progress).toBe(keep);
    expect(r.written.equals(data.subarray(0, keep))).toBe(true);
  });

  it('cancels mid-transfer with CANCELLED, and the pooled connection still serves the next download', async () => {
    const data = crypto.randomBytes(8 * MiB + 5);
    const { transport } = await node(data);
    const controller = new AbortController();
    let seen = 0;
    const sink = new Writable({ write: (_c: Buffer, _e, cb) => cb() });
    const error = await transport
      .download('C:\\k\\app.log', sink, {
        signal: controller.signal,
        onProgress: (n) => {
          seen += n;
          if (seen >= MiB) controller.abort();
        },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WindeckError);
    expect((error as WindeckError).code).toBe('CANCELLED');
    expect(seen).toBeLessThan(data.length);
    const r = await pullToFile(transport);
    expect(r.bytes).toBe(data.length);
    expect(r.written.equals(data)).toBe(true);
  });

  it('fails with TIMEOUT (idle) when the node stops answering READs', async () => {
    const data = crypto.randomBytes(4 * MiB);
    const { transport } = await node(data, (offset) => offset < MiB);
    const sink = new Writable({ write: (_c: Buffer, _e, cb) => cb() });
    let seen = 0;
    const started = Date.now();
    const error = await transport
      .download('C:\\k\\app.log', sink, { signal: new AbortController().signal, timeouts: { idleMs: 400 }, onProgress: (n) => (seen += n) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WindeckError);
    expect((error as WindeckError).code).toBe('TIMEOUT');
    expect((error as WindeckError).context?.step).toBe('idle');
    expect(seen).toBeGreaterThanOrEqual(MiB);
    expect(seen).toBeLessThan(2 * MiB);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
