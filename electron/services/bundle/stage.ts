import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type { RedactionLevel } from '../../../shared/contract/methods/bundles';
import { BUNDLE_STREAM_CHUNK_BYTES } from '../../../shared/domain/limits';
import { StreamRedactor, mergeCounts, redactBytes, redactJsonValue, redactText, type RedactionCounts, type RedactionFinding } from '../../../shared/logic/redact';
import { looksUtf16le } from '../../../shared/logic/redact-codec';
import type { PseudonymTable } from '../../../shared/logic/redact-pseudonyms';
import { FileDigest, bundlePath } from './manifest';
import { finalScan } from './scan';

/**
 * The staging area of one bundle: every entry is redacted, scanned once more (scan.ts) and only then written,
 * hashed while written. Nothing reaches the disk unredacted. The zip (zip.ts) or the output folder is made from
 * here; the staging directory is removed afterwards (or kept for a preview until it is exported or expires).
 */

export interface StageRecord {
  path: string;
  sha256: string;
  size: number;
  /** Bytes before redaction (what the node sent, after decompression for .gz). */
  sourceBytes: number;
  counts: RedactionCounts;
  findings: RedactionFinding[];
  findingsTruncated: boolean;
  notes: string[];
  /** Already compressed (`.gz`): stored in the zip, not compressed again. */
  compressed: boolean;
}

export interface StageOptions {
  level: RedactionLevel;
  pseudonyms: PseudonymTable | null;
  /** Called after each file with its path and size (progress). */
  onFile?: (record: StageRecord) => void;
}

export class BundleStage {
  readonly records = new Map<string, StageRecord>();
  readonly counts: RedactionCounts = {};

  private constructor(
    readonly dir: string,
    private readonly options: StageOptions,
  ) {}

  /** A fresh staging directory under `parent` (created if needed). */
  static async create(parent: string, options: StageOptions, prefix = 'stage'): Promise<BundleStage> {
    await fsp.mkdir(parent, { recursive: true });
    const dir = await fsp.mkdtemp(path.join(parent, `.windeck-${prefix}-`));
    return new BundleStage(dir, options);
  }

  /** Re-open a kept staging directory (a preview) with its records. */
  static reopen(dir: string, options: StageOptions, records: StageRecord[]): BundleStage {
    const stage = new BundleStage(dir, options);
    for (const r of records) {
      stage.records.set(r.path, r);
      mergeCounts(stage.counts, r.counts);
    }
    return stage;
  }

  get level(): RedactionLevel {
    return this.options.level;
  }

  get pseudonyms(): PseudonymTable | null {
    return this.options.pseudonyms;
  }

  private redactOptions() {
    return { level: this.options.level, pseudonyms: this.options.pseudonyms };
  }

  fileOf(entryPath: string): string {
    return path.join(this.dir, ...bundlePath(entryPath).split('/'));
  }

  has(entryPath: string): boolean {
    return this.records.has(entryPath);
  }

  private async commit(entryPath: string, data: Buffer, meta: Omit<StageRecord, 'path' | 'sha256' | 'size'>): Promise<StageRecord> {
    const file = this.fileOf(entryPath);
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await fsp.writeFile(file, data);
    const record: StageRecord = { path: entryPath, sha256: crypto.createHash('sha256').update(data).digest('hex'), size: data.length, ...meta };
    this.remember(record);
    return record;
  }

  private remember(record: StageRecord): void {
    const previous = this.records.get(record.path);
    if (previous) for (const [k, v] of Object.entries(previous.counts)) this.counts[k] = (this.counts[k] ?? 0) - v;
    this.records.set(record.path, record);
    mergeCounts(this.counts, record.counts);
    this.options.onFile?.(record);
  }

  /** A text entry (UTF-8): redacted, scanned, written. */
  async writeText(entryPath: string, text: string): Promise<StageRecord> {
    const r = redactText(text, this.redactOptions());
    const scan = await finalScan(r.text, path.basename(entryPath));
    return this.commit(entryPath, Buffer.from(scan.text, 'utf8'), {
      sourceBytes: Buffer.byteLength(text),
      counts: mergeCounts({ ...r.counts }, scan.counts),
      findings: r.findings,
      findingsTruncated: r.findingsTruncated,
      notes: scan.notes,
      compressed: false,
    });
  }

  /** Bytes as received (probe raw output, a config file): the encoding (UTF-8, BOM, UTF-16LE) is kept. */
  async writeBytes(entryPath: string, bytes: Uint8Array): Promise<StageRecord> {
    const r = redactBytes(bytes, this.redactOptions());
    let out = Buffer.from(r.bytes);
    const utf16 = r.encoding === 'utf16le' || r.encoding === 'utf16le-bom';
    const text = utf16 ? out.subarray(r.encoding === 'utf16le-bom' ? 2 : 0).toString('utf16le') : out.toString('latin1');
    const scan = await finalScan(text, path.basename(entryPath));
    if (scan.text !== text) {
      out = utf16 ? Buffer.concat([r.encoding === 'utf16le-bom' ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(scan.text, 'utf16le')]) : Buffer.from(scan.text, 'latin1');
    }
    return this.commit(entryPath, out, {
      sourceBytes: bytes.length,
      counts: mergeCounts({ ...r.counts }, scan.counts),
      findings: r.findings,
      findingsTruncated: r.findingsTruncated,
      notes: scan.notes,
      compressed: false,
    });
  }

  /** A JSON value we produce (NodeList, EventList, probe results): Secret data and annotations first, then text. */
  async writeJson(entryPath: string, value: unknown): Promise<StageRecord> {
    const first = redactJsonValue(value, this.redactOptions());
    const record = await this.writeText(entryPath, JSON.stringify(first.value, null, 2) + '\n');
    const merged = { ...record, counts: mergeCounts({ ...record.counts }, first.counts) };
    this.remember(merged);
    return merged;
  }

  /**
   * A large entry streamed through redaction in chunks (bounded memory): `source` yields the bytes as read;
   * `gzipped` sources are decompressed, redacted and compressed again (the entry keeps its `.gz` name and is stored
   * in the zip without a second compression). UTF-16LE is detected from the first bytes and kept.
   */
  async writeStream(entryPath: string, source: AsyncIterable<Buffer> | Readable, options: { gzipped?: boolean } = {}): Promise<StageRecord> {
    const file = this.fileOf(entryPath);
    await fsp.mkdir(path.dirname(file), { recursive: true });
    const redactor = new StreamRedactor(this.redactOptions());
    const scanCounts: RedactionCounts = {};
    const notes: string[] = [];
    const name = path.basename(entryPath);
    let sourceBytes = 0;
    let encoding: 'latin1' | 'utf16le' | null = null;
    let bom: Buffer | null = null;
    let carry: Buffer = Buffer.alloc(0);
    const digest = new FileDigest();

    const emit = async function* (text: string): AsyncGenerator<Buffer> {
      if (text === '') return;
      const scan = await finalScan(text, name, { ownPatterns: false });
      mergeCounts(scanCounts, scan.counts);
      notes.push(...scan.notes);
      yield Buffer.from(scan.text, encoding ?? 'latin1');
    };

    async function* redactChunks(input: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async function* (last: boolean): AsyncGenerator<Buffer> {
        let buf = Buffer.concat([carry, ...pending]);
        pending = [];
        pendingBytes = 0;
        if (encoding === null) {
          if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) {
            bom = buf.subarray(0, 2);
            buf = buf.subarray(2);
            encoding = 'utf16le';
          } else encoding = looksUtf16le(buf) ? 'utf16le' : 'latin1';
          if (bom) yield bom;
        }
        if (encoding === 'utf16le' && buf.length % 2 === 1 && !last) {
          carry = Buffer.from(buf.subarray(buf.length - 1));
          buf = buf.subarray(0, buf.length - 1);
        } else carry = Buffer.alloc(0);
        yield* emit(redactor.push(buf.toString(encoding)));
        if (last) yield* emit(redactor.end());
      };
      for await (const chunk of input) {
        const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        sourceBytes += b.length;
        pending.push(b);
        pendingBytes += b.length;
        if (pendingBytes >= BUNDLE_STREAM_CHUNK_BYTES) yield* flush(false);
      }
      yield* flush(true);
    }

    const tap = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        digest.update(chunk);
        cb(null, chunk);
      },
    });
    const input = source instanceof Readable ? source : Readable.from(source);
    if (options.gzipped) await pipeline(input, zlib.createGunzip(), redactChunks, zlib.createGzip({ level: 6 }), tap, fs.createWriteStream(file));
    else await pipeline(input, redactChunks, tap, fs.createWriteStream(file));
    const done = digest.done(entryPath);
    const record: StageRecord = {
      path: entryPath,
      sha256: done.sha256,
      size: done.size,
      sourceBytes,
      counts: mergeCounts({ ...redactor.counts }, scanCounts),
      findings: redactor.findings,
      findingsTruncated: redactor.findingsTruncated,
      notes,
      compressed: options.gzipped === true,
    };
    this.remember(record);
    return record;
  }

  /** Remove an entry that turned out unusable (a node dropped mid-file): it is not in the bundle then. */
  async discard(entryPath: string): Promise<void> {
    const previous = this.records.get(entryPath);
    if (previous) for (const [k, v] of Object.entries(previous.counts)) this.counts[k] = (this.counts[k] ?? 0) - v;
    this.records.delete(entryPath);
    await fsp.rm(this.fileOf(entryPath), { force: true });
  }

  /** Delete the staging directory. */
  async remove(): Promise<void> {
    await fsp.rm(this.dir, { recursive: true, force: true });
  }
}
