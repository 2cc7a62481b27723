import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { pipelinedRead, type SftpReader } from '../../../../../../electron/services/transports/ssh/sftp-read';

/**
 * A fake SFTP server over a buffer: answers READs out of order (random delays), caps each answer (as a server
 * with a small max read length does), and counts the READs outstanding at once.
 */
function fakeServer(file: Buffer, opts: { cap?: number; failAt?: number; shuffle?: boolean } = {}) {
  let outstanding = 0;
  let maxOutstanding = 0;
  const requests: Array<{ position: number; length: number }> = [];
  const reader: SftpReader = {
    read(_handle, buffer, offset, length, position, cb) {
      outstanding += 1;
      maxOutstanding = Math.max(maxOutstanding, outstanding);
      requests.push({ position, length });
      const delay = opts.shuffle === false ? 0 : crypto.randomInt(0, 3);
      setTimeout(() => {
        outstanding -= 1;
        if (opts.failAt !== undefined && position >= opts.failAt) {
          cb(Object.assign(new Error('Permission denied'), { code: 3 }), 0, buffer, position);
          return;
        }
        if (position >= file.length) {
          cb(undefined, 0, buffer, position);
          return;
        }
        const n = Math.min(length, opts.cap ?? length, file.length - position);
        file.copy(buffer, offset, position, position + n);
        cb(undefined, n, buffer.subarray(offset, offset + n), position);
      }, delay);
    },
  };
  return { reader, stats: () => ({ maxOutstanding, requests }) };
}

function collector(opts: { highWaterMark?: number; slow?: boolean } = {}) {
  const parts: Buffer[] = [];
  const sink = new Writable({
    highWaterMark: opts.highWaterMark ?? 16 * 1024,
    write(chunk: Buffer, _enc, cb) {
      parts.push(Buffer.from(chunk));
      if (opts.slow) setTimeout(cb, 1);
      else cb();
    },
  });
  return { sink, data: () => Buffer.concat(parts) };
}

describe('pipelinedRead', () => {
  it('keeps several READs outstanding and writes the bytes in file order, out-of-order answers included', async () => {
    const file = crypto.randomBytes(1_000_003);
    const server = fakeServer(file);
    const out = collector();
    const n = await pipelinedRead(server.reader, Buffer.from('h'), out.sink, { chunkBytes: 32 * 1024, inFlight: 8 });
    expect(n).toBe(file.length);
    expect(out.data().equals(file)).toBe(true);
    expect(server.stats().maxOutstanding).toBe(8);
  });

  it('asks again for the rest of a short answer (a server that caps READs)', async () => {
    const file = crypto.randomBytes(300_000);
    const server = fakeServer(file, { cap: 10_000 });
    const out = collector();
    const n = await pipelinedRead(server.reader, Buffer.from('h'), out.sink, { chunkBytes: 64 * 1024, inFlight: 4 });
    expect(n).toBe(file.length);
    expect(out.data().equals(file)).toBe(true);
    // Every byte was asked for; follow-up READs start where a short answer ended.
    expect(server.stats().requests.some((r) => r.position % (64 * 1024) !== 0)).toBe(true);
  });

  it('handles an empty file and a file of exactly one chunk', async () => {
    for (const size of [0, 4096]) {
      const file = crypto.randomBytes(size);
      const out = collector();
      expect(await pipelinedRead(fakeServer(file).reader, Buffer.from('h'), out.sink, { chunkBytes: 4096, inFlight: 4 })).toBe(size);
      expect(out.data().equals(file)).toBe(true);
    }
  });

  it('respects the sink backpressure (bounded reorder buffer) and still delivers everything', async () => {
    const file = crypto.randomBytes(400_000);
    const server = fakeServer(file);
    const out = collector({ highWaterMark: 1024, slow: true });
    const n = await pipelinedRead(server.reader, Buffer.from('h'), out.sink, { chunkBytes: 8192, inFlight: 16 });
    expect(n).toBe(file.length);
    expect(out.data().equals(file)).toBe(true);
  });

  it('rejects with the server error and stops asking', async () => {
    const file = crypto.randomBytes(500_000);
    const server = fakeServer(file, { failAt: 200_000 });
    const out = collector();
    await expect(pipelinedRead(server.reader, Buffer.from('h'), out.sink, { chunkBytes: 16 * 1024, inFlight: 4 })).rejects.toThrow('Permission denied');
    // Nothing far past the failure was asked for.
    expect(Math.max(...server.stats().requests.map((r) => r.position))).toBeLessThan(200_000 + 16 * 1024 * 8);
  });

  it('stops when told to (cancel) with that error', async () => {
    const file = crypto.randomBytes(500_000);
    const out = collector();
    let chunks = 0;
    const stop = new Error('cancelled');
    await expect(
      pipelinedRead(fakeServer(file).reader, Buffer.from('h'), out.sink, {
        chunkBytes: 8192,
        inFlight: 4,
        onData: () => (chunks += 1),
        stopped: () => (chunks >= 3 ? stop : null),
      }),
    ).rejects.toBe(stop);
    expect(out.data().length).toBeLessThan(file.length);
  });
});
