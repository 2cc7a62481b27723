import fsp from 'node:fs/promises';
import zlib from 'node:zlib';
import { WindeckError } from '../../../shared/contract/errors';

/**
 * A minimal zip writer (PKWARE APPNOTE 6.3) for bundles: entries whose CRC-32 and sizes are known before their
 * data is written (pre-deflated streamed logs, stored `.gz` files, small buffers deflated here), so every local
 * header is complete and no data descriptors are needed; ZIP64 records when a size, an offset or the entry count
 * needs them. UTF-8 names (flag bit 11), Unix mode in the external attributes, DOS time in local time (as yazl
 * and Info-ZIP write it). Writes sequentially through one file handle.
 */

const U32 = 0xffffffff;
/** Bytes per read when a file is copied into the archive (addFile). */
const ZIP_COPY_CHUNK_BYTES = 1024 * 1024;

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
  private offset = 0;
  private readonly entries: Written[] = [];
  /** addFile's copy buffer (allocated on first use). */
  private copyBuffer: Buffer | null = null;

  private constructor(private readonly fh: fsp.FileHandle) {}

  /** Create `target` (must not exist). */
  static async create(target: string): Promise<ZipWriter> {
    return new ZipWriter(await fsp.open(target, 'wx'));
  }

  private async write(buf: Buffer): Promise<void> {
    let done = 0;
    while (done < buf.length) {
      const { bytesWritten } = await this.fh.write(buf, done, buf.length - done, null);
      done += bytesWritten;
    }
    this.offset += buf.length;
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

  /** An entry from a buffer holding its (already compressed, per `meta.method`) data. */
  async addData(meta: ZipEntryMeta, data: Buffer): Promise<void> {
    if (data.length !== meta.compressedSize)
      throw new WindeckError('INTERNAL', `Zip entry ${meta.name}: ${data.length} bytes given, ${meta.compressedSize} declared.`);
    const e = this.begin(meta);
    await this.write(this.localHeader(e));
    await this.write(data);
  }

  /** An entry whose (already compressed, per `meta.method`) data is the whole of `file`. */
  async addFile(meta: ZipEntryMeta, file: string, signal?: AbortSignal): Promise<void> {
    const e = this.begin(meta);
    await this.write(this.localHeader(e));
    // One copy buffer per writer, reused: a read stream allocated a new 1 MiB buffer per read, and the garbage of a
    // 60 MiB copy (1 GiB of logs) added 15-20 MiB to the bundle's peak RSS before a GC reclaimed it. A read and
    // its write never overlap (write resolves once the bytes are in the file).
    const buffer = (this.copyBuffer ??= Buffer.allocUnsafeSlow(ZIP_COPY_CHUNK_BYTES));
    let copied = 0;
    const source = await fsp.open(file, 'r');
    try {
      for (;;) {
        signal?.throwIfAborted();
        const { bytesRead } = await source.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        await this.write(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead));
        copied += bytesRead;
      }
    } finally {
      await source.close();
    }
    if (copied !== meta.compressedSize)
      throw new WindeckError('INTERNAL', `Zip entry ${meta.name}: ${copied} bytes in ${file}, ${meta.compressedSize} declared (changed while zipping?).`);
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

  /** Central directory and end records; closes the file. Returns the archive's size. */
  async finish(): Promise<number> {
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

  /** Close without finishing (the caller removes the file). */
  async abort(): Promise<void> {
    await this.fh.close().catch(() => undefined);
  }
}
