import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { pipelinedRead, sftpReadSize, type SftpReader } from '../../../../../../electron/services/transports/ssh/sftp-read';
import { tempDir } from '../../../../../helpers/temp-dir';

/**
 * A fake SFTP server over a buffer: answers READs out of order (random delays), caps each answer (as a server
 * with a small max read length does), and counts the READs outstanding at once.
 */
function fakeServer(file: Buffer, opts: { cap?: number; failAt?: number; shuffle?: boolean } = {}) {
  let outstanding = 0;
  let maxOutstanding = 0;
  /** Every READ asked, with the length answered (null until answered, 0 for EOF or an error). */
  const requests: Array<{ position: number; length: number; answered: number | null }> = [];
  /** The memory each READ was given (to see buffers reused). */
  const memory = new Set<ArrayBufferLike>();
  const reader: SftpReader = {
    read(_handle, buffer, offset, length, position, cb) {
      outstanding += 1;
      maxOutstanding = Math.max(maxOutstanding, outstanding);
      const request = { position, length, answered: null as number | null };
      requests.push(request);
      memory.add(buffer.buffer);
      const delay = opts.shuffle === false ? 0 : crypto.randomInt(0, 3);
      setTimeout(() => {
        outstanding -= 1;
        request.answered = 0;
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
        request.answered = n;
        cb(undefined, n, buffer.subarray(offset, offset + n), position);
      }, delay);
    },
  };
  return { reader, stats: () => ({ maxOutstanding, requests, buffers: memory.size }) };
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

  it('adapts the READ size to a server that caps READs at 64 KiB (Windows OpenSSH 7.7): the re-asks stop', async () => {
    const file = crypto.randomBytes(6 * 1024 * 1024 + 12_345);
    const server = fakeServer(file, { cap: 64 * 1024 });
    const out = collector();
    const sizes: number[] = [];
    // What ssh2 believes an OpenSSH server without limits@openssh.com answers: 256 KiB - 2 KiB.
    const n = await pipelinedRead(server.reader, Buffer.from('h'), out.sink, {
      chunkBytes: 260_096,
      inFlight: 32,
      bytesInFlight: 2 * 1024 * 1024,
      onChunkSize: (b) => sizes.push(b),
    });
    expect(n).toBe(file.length);
    expect(out.data().equals(file)).toBe(true);
    expect(sizes).toEqual([64 * 1024]);
    const { requests, maxOutstanding } = server.stats();
    // Only the first READs (2 MiB / 260,096 = 8 at once) came back short (the rests are asked for in pieces of
    // what the server answered); the end of the file does not count.
    const short = requests.filter((r) => r.answered !== null && r.answered > 0 && r.answered < r.length && r.position + r.answered < file.length);
    expect(short.length).toBeLessThanOrEqual(8);
    expect(short.every((r) => r.length === 260_096)).toBe(true);
    expect(requests.slice(0, 8).every((r) => r.length === 260_096)).toBe(true);
    // Later READs (new ones and the rests of the short ones) ask for at most the cap; the bytes in flight stay
    // 2 MiB, so 32 READs of 64 KiB are outstanding at once.
    expect(requests.slice(16).every((r) => r.length <= 64 * 1024)).toBe(true);
    expect(maxOutstanding).toBe(32);
    // About one READ per 64 KiB of the file (no re-ask per READ); READs past the end only find the EOF.
    expect(requests.filter((r) => r.position < file.length).length).toBeLessThanOrEqual(Math.ceil(file.length / (64 * 1024)) + 16);
  });

  it('keeps the READ size when only the end of the file answers short, and never goes below the floor', async () => {
    const file = crypto.randomBytes(1_000_000);
    const sizes: number[] = [];
    const out = collector();
    await pipelinedRead(fakeServer(file).reader, Buffer.from('h'), out.sink, { chunkBytes: 64 * 1024, inFlight: 8, onChunkSize: (b) => sizes.push(b) });
    expect(out.data().equals(file)).toBe(true);
    expect(sizes).toEqual([]);
    // A server answering 1,000 bytes at a time is below the 4 KiB floor: re-asked, never adopted as the size.
    const tiny = fakeServer(crypto.randomBytes(100_000), { cap: 1000 });
    const out2 = collector();
    await pipelinedRead(tiny.reader, Buffer.from('h'), out2.sink, { chunkBytes: 16 * 1024, inFlight: 4, onChunkSize: (b) => sizes.push(b) });
    expect(out2.data().length).toBe(100_000);
    expect(sizes).toEqual([]);
  });

  it('reuses READ buffers once the sink is done with them (reuseBuffers), never while it still holds them', async () => {
    const file = crypto.randomBytes(8_000_017);
    const server = fakeServer(file, { cap: 40_000 });
    // A sink that finishes each write later and checks the chunk was not overwritten in between.
    const parts: Buffer[] = [];
    let overwritten = 0;
    const sink = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _enc, cb) {
        const copy = Buffer.from(chunk);
        parts.push(copy);
        setTimeout(
          () => {
            if (!chunk.equals(copy)) overwritten += 1;
            cb();
          },
          crypto.randomInt(0, 3),
        );
      },
    });
    const n = await pipelinedRead(server.reader, Buffer.from('h'), sink, { chunkBytes: 64 * 1024, inFlight: 8, reuseBuffers: true });
    expect(n).toBe(file.length);
    expect(Buffer.concat(parts).equals(file)).toBe(true);
    expect(overwritten).toBe(0);
    const { requests, buffers } = server.stats();
    // ~200 READs of 40,000 bytes through a few dozen buffers (without reuse: one buffer per READ).
    expect(requests.length).toBeGreaterThan(200);
    expect(buffers).toBeLessThan(requests.length / 3);

    // Into a file stream, as the download does.
    const tmp = tempDir('windeck-sftp-read-');
    try {
      const dest = path.join(tmp.dir, 'pulled.log');
      const out = fs.createWriteStream(dest);
      const server2 = fakeServer(file);
      expect(await pipelinedRead(server2.reader, Buffer.from('h'), out, { chunkBytes: 32 * 1024, inFlight: 16, reuseBuffers: true })).toBe(file.length);
      await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
      expect(fs.readFileSync(dest).equals(file)).toBe(true);
      expect(server2.stats().buffers).toBeLessThan(server2.stats().requests.length / 3);
    } finally {
      tmp.cleanup();
    }
  });

  it('sizes the first READs from what ssh2 learned about the server', () => {
    expect(sftpReadSize({ _maxReadLen: 261_120 }, 256 * 1024)).toBe(261_120);
    expect(sftpReadSize({ _maxReadLen: 31_952 }, 256 * 1024)).toBe(31_952);
    expect(sftpReadSize({ _maxReadLen: 1024 * 1024 }, 256 * 1024)).toBe(256 * 1024);
    expect(sftpReadSize({}, 64 * 1024)).toBe(64 * 1024);
    expect(sftpReadSize({ _maxReadLen: 'x' }, 64 * 1024)).toBe(64 * 1024);
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
