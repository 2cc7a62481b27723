import fs from 'node:fs';
import fsp from 'node:fs/promises';
import zlib from 'node:zlib';
import { WindeckError } from '../../../shared/contract/errors';

/**
 * A minimal zip writer (PKWARE APPNOTE 6.3) for bundles: entries whose CRC-32 and sizes are known before their
 * data is written (pre-deflated streamed logs, stored `.gz` files, small buffers deflated here), so every local
 * header is complete and no data descriptors are needed; ZIP64 records when a size, an offset or the entry count
 * needs them. UTF-8 names (flag bit 11), Unix mode in the external attributes, DOS time in local time (as yazl
 * and Info-ZIP write it). One file handle, positional writes: every entry's place is known when it is added (its
 * header and data sizes are), so `startFile` can copy several entries at once while the archive's bytes stay those
 * of a sequential write.
 */

const U32 = 0xffffffff;
/** Bytes per read when a file is copied into the archive (addFile, startFile). */
const ZIP_COPY_CHUNK_BYTES = 512 * 1024;

export interface ZipEntryMeta {
  name: string;
  /** 0 = stored, 8 = deflate. */
  method: 0 | 8;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  mtime: Date;
  mode: number;
}

interface Written extends ZipEntryMeta {
  offset: number;
  nameBytes: Buffer;
}

// Entry copies use plain descriptors and callbacks: per operation, a FileHandle's promise API cost the main thread
// several times more (a handle object per file, its promise wrappers); a bundle's zip runs ~2000 of them.
function openRead(file: string): Promise<number> {
  return new Promise((resolve, reject) => fs.open(file, 'r', (error, fd) => (error ? reject(error) : resolve(fd))));
}
function readInto(fd: number, buffer: Buffer, offset: number, length: number): Promise<number> {
  return new Promise((resolve, reject) => fs.read(fd, buffer, offset, length, null, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))));
}
function writeFrom(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => fs.write(fd, buffer, offset, length, position, (error, written) => (error ? reject(error) : resolve(written))));
}
function closeFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.close(fd, (error) => (error ? reject(error) : resolve())));
}

function dosDateTime(d: Date): { date: number; time: number } {
  let date = d.getDate() & 0x1f;
  date |= ((d.getMonth() + 1) & 0xf) << 5;
  date |= ((Math.max(1980, d.getFullYear()) - 1980) & 0x7f) << 9;
  let time = Math.floor(d.getSeconds() / 2);
  time |= (d.getMinutes() & 0x3f) << 5;
  time |= (d.getHours() & 0x1f) << 11;
  return { date, time };
}

export class ZipWriter {
  /** Where the next entry goes: the end of every entry added so far (copies still running included). */
  private offset = 0;
  private readonly entries: Written[] = [];
  /** Copy buffers not in use (one per running copy, allocated on first use and reused). */
  private readonly freeBuffers: Buffer[] = [];
  /** Copies started by startFile and not yet settled (each settles without rejecting; see `failure`). */
  private readonly copies = new Set<Promise<void>>();
  /** The first error of a started copy (reported by drain, finish). */
  private failure: { error: unknown } | null = null;

  private constructor(private readonly fh: fsp.FileHandle) {}

  /** Create `target` (must not exist). */
  static async create(target: string): Promise<ZipWriter> {
    return new ZipWriter(await fsp.open(target, 'wx'));
  }

  /** Reserve `length` bytes at the end of the archive; returns their offset. */
  private reserve(length: number): number {
    const at = this.offset;
    this.offset += length;
    return at;
  }

  private async writeAt(buf: Buffer, position: number): Promise<void> {
    let done = 0;
    while (done < buf.length) done += await writeFrom(this.fh.fd, buf, done, buf.length - done, position + done);
  }

  /** Append `buf` (its place is reserved before the first await). */
  private write(buf: Buffer): Promise<void> {
    return this.writeAt(buf, this.reserve(buf.length));
  }

  private localHeader(e: Written): Buffer {
    const zip64 = e.compressedSize >= U32 || e.uncompressedSize >= U32;
    const extra = zip64 ? Buffer.alloc(20) : Buffer.alloc(0);
    if (zip64) {
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(16, 2);
      extra.writeBigUInt64LE(BigInt(e.uncompressedSize), 4);
      extra.writeBigUInt64LE(BigInt(e.compressedSize), 12);
    }
    const { date, time } = dosDateTime(e.mtime);
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(zip64 ? 45 : 20, 4);
    h.writeUInt16LE(0x0800, 6);
    h.writeUInt16LE(e.method, 8);
    h.writeUInt16LE(time, 10);
    h.writeUInt16LE(date, 12);
    h.writeUInt32LE(e.crc32 >>> 0, 14);
    h.writeUInt32LE(zip64 ? U32 : e.compressedSize, 18);
    h.writeUInt32LE(zip64 ? U32 : e.uncompressedSize, 22);
    h.writeUInt16LE(e.nameBytes.length, 26);
    h.writeUInt16LE(extra.length, 28);
    return Buffer.concat([h, e.nameBytes, extra]);
  }

  private begin(meta: ZipEntryMeta): Written {
    const nameBytes = Buffer.from(meta.name, 'utf8');
    if (nameBytes.length > 0xffff) throw new WindeckError('VALIDATION', `Zip entry name too long: ${meta.name.slice(0, 80)}…`);
    const e: Written = { ...meta, offset: this.offset, nameBytes };
    this.entries.push(e);
    return e;
  }

  /** An entry from a buffer holding its (already compressed, per `meta.method`) data; its place is taken when
   * called (addBuffer: when its deflate is done, so await it before adding the next entry). */
  async addData(meta: ZipEntryMeta, data: Buffer): Promise<void> {
    if (data.length !== meta.compressedSize)
      throw new WindeckError('INTERNAL', `Zip entry ${meta.name}: ${data.length} bytes given, ${meta.compressedSize} declared.`);
    const e = this.begin(meta);
    const header = this.localHeader(e);
    const at = this.reserve(header.length + data.length);
    await this.writeAt(Buffer.concat([header, data]), at);
  }

  /** An entry whose (already compressed, per `meta.method`) data is the whole of `file`; resolves once copied. */
  async addFile(meta: ZipEntryMeta, file: string, signal?: AbortSignal): Promise<void> {
    this.startFile(meta, file, signal);
    await this.drain(0);
  }

  /**
   * Start copying an entry whose (already compressed) data is the whole of `file`: its place in the archive is
   * taken now (entries keep the order they were added in), the copy runs in the background. `drain(n)` waits until
   * at most n copies run and throws the first copy's error; `finish` waits for all of them.
   */
  startFile(meta: ZipEntryMeta, file: string, signal?: AbortSignal): void {
    const e = this.begin(meta);
    const header = this.localHeader(e);
    const at = this.reserve(header.length + meta.compressedSize);
    const copy: Promise<void> = this.copyFile(e, header, at, file, signal).then(
      () => {
        this.copies.delete(copy);
      },
      (error: unknown) => {
        this.copies.delete(copy);
        this.failure ??= { error };
      },
    );
    this.copies.add(copy);
  }

  /** Wait until at most `max` started copies run; throws the first error of any copy. */
  async drain(max: number): Promise<void> {
    while (this.copies.size > max && !this.failure) await Promise.race(this.copies);
    if (this.failure) throw this.failure.error;
  }

  private async copyFile(e: Written, header: Buffer, at: number, file: string, signal?: AbortSignal): Promise<void> {
    // Copy buffers are reused from entry to entry (one per running copy): a read stream allocated a new 1 MiB
    // buffer per read, and the garbage of a 60 MiB copy (1 GiB of logs) added 15-20 MiB to the bundle's peak RSS
    // before a GC reclaimed it. Within one copy a read and its write never overlap.
    const source = await openRead(file);
    const buffer = this.freeBuffers.pop() ?? Buffer.allocUnsafeSlow(ZIP_COPY_CHUNK_BYTES);
    let copied = 0;
    try {
      // The header goes out with the first part of the data (one write less per entry).
      header.copy(buffer, 0);
      let filled = header.length;
      let position = at;
      for (;;) {
        signal?.throwIfAborted();
        // Up to one byte more than declared: a read that stops short of it once the declared size is in has met
        // the end of the file (no extra read that returns 0 per entry).
        const want = Math.min(buffer.length - filled, e.compressedSize - copied + 1);
        const bytesRead = await readInto(source, buffer, filled, want);
        filled += bytesRead;
        copied += bytesRead;
        // A file longer than declared fails before its bytes are written (they would overwrite the next entry's).
        if (copied > e.compressedSize) break;
        const end = bytesRead === 0 || (copied === e.compressedSize && bytesRead < want);
        if (end || filled === buffer.length) {
          if (filled > 0) await this.writeAt(filled === buffer.length ? buffer : buffer.subarray(0, filled), position);
          position += filled;
          filled = 0;
        }
        if (end) break;
      }
    } finally {
      this.freeBuffers.push(buffer);
      await closeFd(source);
    }
    if (copied !== e.compressedSize)
      throw new WindeckError(
        'INTERNAL',
        `Zip entry ${e.name}: ${copied > e.compressedSize ? 'more than ' : ''}${Math.min(copied, e.compressedSize)} bytes in ${file}, ${e.compressedSize} declared (changed while zipping?).`,
      );
  }

  /** A small entry from its plain bytes: deflated here (level 6), or stored when `compress` is false. */
  async addBuffer(name: string, plain: Buffer, options: { mtime: Date; mode: number; compress: boolean }): Promise<void> {
    const data = options.compress
      ? await new Promise<Buffer>((resolve, reject) => zlib.deflateRaw(plain, { level: 6 }, (err, out) => (err ? reject(err) : resolve(out))))
      : plain;
    await this.addData(
      {
        name,
        method: options.compress ? 8 : 0,
        crc32: zlib.crc32(plain),
        compressedSize: data.length,
        uncompressedSize: plain.length,
        mtime: options.mtime,
        mode: options.mode,
      },
      data,
    );
  }

  /** Central directory and end records (after every started copy); closes the file. Returns the archive's size. */
  async finish(): Promise<number> {
    await this.drain(0);
    const cdStart = this.offset;
    const parts: Buffer[] = [];
    for (const e of this.entries) {
      const needSizes = e.compressedSize >= U32 || e.uncompressedSize >= U32;
      const needOffset = e.offset >= U32;
      const fields: bigint[] = [];
      if (needSizes) fields.push(BigInt(e.uncompressedSize), BigInt(e.compressedSize));
      if (needOffset) fields.push(BigInt(e.offset));
      const extra = Buffer.alloc(fields.length ? 4 + fields.length * 8 : 0);
      if (fields.length) {
        extra.writeUInt16LE(0x0001, 0);
        extra.writeUInt16LE(fields.length * 8, 2);
        fields.forEach((f, i) => extra.writeBigUInt64LE(f, 4 + i * 8));
      }
      const { date, time } = dosDateTime(e.mtime);
      const h = Buffer.alloc(46);
      h.writeUInt32LE(0x02014b50, 0);
      h.writeUInt16LE((3 << 8) | (fields.length ? 45 : 20), 4);
      h.writeUInt16LE(fields.length ? 45 : 20, 6);
      h.writeUInt16LE(0x0800, 8);
      h.writeUInt16LE(e.method, 10);
      h.writeUInt16LE(time, 12);
      h.writeUInt16LE(date, 14);
      h.writeUInt32LE(e.crc32 >>> 0, 16);
      h.writeUInt32LE(needSizes ? U32 : e.compressedSize, 20);
      h.writeUInt32LE(needSizes ? U32 : e.uncompressedSize, 24);
      h.writeUInt16LE(e.nameBytes.length, 28);
      h.writeUInt16LE(extra.length, 30);
      h.writeUInt16LE(0, 32);
      h.writeUInt16LE(0, 34);
      h.writeUInt16LE(0, 36);
      h.writeUInt32LE(((e.mode & 0xffff) << 16) >>> 0, 38);
      h.writeUInt32LE(needOffset ? U32 : e.offset, 42);
      parts.push(h, e.nameBytes, extra);
    }
    await this.write(Buffer.concat(parts));
    const cdSize = this.offset - cdStart;
    const count = this.entries.length;
    const zip64 = count >= 0xffff || cdStart >= U32 || cdSize >= U32;
    if (zip64) {
      const eocd64At = this.offset;
      const r = Buffer.alloc(56);
      r.writeUInt32LE(0x06064b50, 0);
      r.writeBigUInt64LE(44n, 4);
      r.writeUInt16LE((3 << 8) | 45, 12);
      r.writeUInt16LE(45, 14);
      r.writeUInt32LE(0, 16);
      r.writeUInt32LE(0, 20);
      r.writeBigUInt64LE(BigInt(count), 24);
      r.writeBigUInt64LE(BigInt(count), 32);
      r.writeBigUInt64LE(BigInt(cdSize), 40);
      r.writeBigUInt64LE(BigInt(cdStart), 48);
      const loc = Buffer.alloc(20);
      loc.writeUInt32LE(0x07064b50, 0);
      loc.writeUInt32LE(0, 4);
      loc.writeBigUInt64LE(BigInt(eocd64At), 8);
      loc.writeUInt32LE(1, 16);
      await this.write(Buffer.concat([r, loc]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(0, 4);
    end.writeUInt16LE(0, 6);
    end.writeUInt16LE(zip64 ? 0xffff : count, 8);
    end.writeUInt16LE(zip64 ? 0xffff : count, 10);
    end.writeUInt32LE(zip64 ? U32 : cdSize, 12);
    end.writeUInt32LE(zip64 ? U32 : cdStart, 16);
    end.writeUInt16LE(0, 20);
    await this.write(end);
    await this.fh.close();
    return this.offset;
  }

  /** Close without finishing, once the started copies have settled (the caller removes the file). */
  async abort(): Promise<void> {
    while (this.copies.size > 0) await Promise.race(this.copies);
    await this.fh.close().catch(() => undefined);
  }
}
