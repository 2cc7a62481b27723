import crypto from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { slabReads } from '../../../../../../electron/services/transports/ssh/connect';

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A loopback server that writes `pieces` (with a pause between them) to each connection and keeps it open. */
async function serve(pieces: Buffer[], gapMs = 0): Promise<number> {
  const server = net.createServer(async (c) => {
    for (const p of pieces) {
      c.write(p);
      if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
    }
    c.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

/** Connect with slab reads; start listening for 'data' after `listenAfterMs`; collect `bytes` bytes. */
async function pull(port: number, bytes: number, listenAfterMs: number, slabBytes?: number, minBytes?: number, firstBytes?: number) {
  const reads = slabReads(slabBytes, minBytes, firstBytes);
  const sock = net.connect({ host: '127.0.0.1', port, onread: reads.onread });
  reads.attach(sock);
  const chunks: Buffer[] = [];
  let got = 0;
  const done = new Promise<void>((resolve, reject) => {
    sock.on('error', reject);
    sock.on('close', () => reject(new Error(`closed after ${got} bytes`)));
    setTimeout(() => reject(new Error(`only ${got} of ${bytes} bytes arrived`)), 10_000).unref();
    setTimeout(() => {
      sock.on('data', (c: Buffer) => {
        chunks.push(c);
        got += c.length;
        if (got >= bytes) resolve();
      });
    }, listenAfterMs);
  });
  await done;
  sock.destroy();
  return chunks;
}

describe('slabReads (onread socket reads into shared slabs)', () => {
  it('delivers every byte in order, including what was read before anyone listened', async () => {
    const data = crypto.randomBytes(3 * 1024 * 1024 + 17);
    const pieces = [data.subarray(0, 100), data.subarray(100, 70_000), data.subarray(70_000)];
    const port = await serve(pieces, 20);
    // The first pieces arrive while nobody listens for 'data' (as while ssh2 loads or waits for its handshake slot).
    const chunks = await pull(port, data.length, 30);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
  });

  it('never hands out the same slab memory twice, and reads more than 64 KiB at once when that much is there', async () => {
    const data = crypto.randomBytes(4 * 1024 * 1024);
    const port = await serve([data]);
    // Listen late: the whole 4 MiB is in the socket buffers by then, so reads fill what they are offered.
    const chunks = await pull(port, data.length, 100, 256 * 1024, 64 * 1024, 64 * 1024);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    const bySlab = new Map<ArrayBufferLike, Array<[number, number]>>();
    // The first slab is 64 KiB; a read that fills its offer moves the connection to 256 KiB slabs.
    expect(chunks[0]!.buffer.byteLength).toBe(64 * 1024);
    expect(chunks.at(-1)!.buffer.byteLength).toBe(256 * 1024);
    for (const c of chunks) {
      expect([64 * 1024, 256 * 1024]).toContain(c.buffer.byteLength);
      const spans = bySlab.get(c.buffer) ?? [];
      spans.push([c.byteOffset, c.byteOffset + c.length]);
      bySlab.set(c.buffer, spans);
    }
    for (const spans of bySlab.values()) {
      spans.sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < spans.length; i += 1) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
    }
    expect(Math.max(...chunks.map((c) => c.length))).toBeGreaterThan(64 * 1024);
  });

  it('keeps a connection that only gets small reads on 64 KiB slabs (idle connections hold little)', async () => {
    // 30 small pieces, ~19 KB in all: no read can fill a 64 KiB offer, however late it runs.
    const pieces = Array.from({ length: 30 }, (_, i) => crypto.randomBytes(500 + i * 10));
    const data = Buffer.concat(pieces);
    const port = await serve(pieces, 3);
    const chunks = await pull(port, data.length, 0, 256 * 1024, 64 * 1024, 64 * 1024);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    for (const c of chunks) expect(c.buffer.byteLength).toBe(64 * 1024);
  });

  it('lets small reads share a slab (the defaults: a warm fan-out reads many small answers)', async () => {
    // 40 pieces of 200 bytes, 8 KB in all, with pauses: each arrives as its own read. A first slab is replaced only
    // when less than a quarter of it is left, so they fit in one or two slabs, not one slab per read (which cost a
    // 200-node warm fan-out 25-40% more CPU when the floor was the slab's size).
    const pieces = Array.from({ length: 40 }, () => crypto.randomBytes(200));
    const data = Buffer.concat(pieces);
    const port = await serve(pieces, 2);
    const chunks = await pull(port, data.length, 0);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    expect(chunks.length).toBeGreaterThan(10);
    expect(new Set(chunks.map((c) => c.buffer)).size).toBeLessThanOrEqual(3);
  });
});
