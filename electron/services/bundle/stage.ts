import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { RedactionLevel } from '../../../shared/contract/methods/bundles';
import { BUNDLE_STREAM_DEFLATE_LEVEL } from '../../../shared/domain/limits';
import { mergeCounts, redactBytes, redactJsonValue, redactText, type RedactionCounts, type RedactionFinding } from '../../../shared/logic/redact';
import type { PseudonymTable } from '../../../shared/logic/redact-pseudonyms';
import { redactLogEntry, type LogEntryTask } from './entry-pipeline';
import { bundlePath } from './manifest';
import { finalScan } from './scan';
import { PoolFailure, redactPool } from './worker-pool';
import { WindeckError } from '../../../shared/contract/errors';

/**
 * The staging area of one bundle: every entry is redacted, scanned once more (scan.ts) and only then written,
 * hashed while written. Nothing reaches the disk unredacted. The zip (zip.ts) or the output folder is made from
 * here; the staging directory is removed afterwards (or kept for a preview until it is exported or expires).
 */

/** The hidden folder of a staging area holding the raw-deflate copies of streamed entries (not bundle content). */
export const DEFLATE_DIR = '.windeck-deflate';

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
  /** CRC-32 of the staged bytes, when known (streamed entries). */
  crc32?: number;
  /** A raw-deflate copy of the staged bytes (streamed plain entries), outside the staging folder. */
  deflated?: { file: string; size: number } | null;
  /** False: the entry has no plain staged file, only its raw-deflate copy (a `zipOnly` stage). */
  staged?: boolean;
}

export interface StageOptions {
  level: RedactionLevel;
  pseudonyms: PseudonymTable | null;
  /** Called after each file with its path and size (progress). */
  onFile?: (record: StageRecord) => void;
  /**
   * The stage only feeds a zip (`writeBundleZip`; not a folder, not a preview): streamed plain entries then keep
   * only their raw-deflate copy, which is what the zip copies, and no plain staged file (writing a gigabyte of logs
   * twice cost CPU and disk for nothing). Redaction is unchanged: both copies hold the redacted bytes.
   */
  zipOnly?: boolean;
}

let zipOrderReady = false;

/**
 * The zip orders its entries with `localeCompare` (zip.ts), whose first call builds ICU's collator: ~15 ms of the
 * main thread, and the zip is a serial step after the last entry. A stage that feeds a zip has it built while its
 * workers redact (the main thread mostly waits then); the order is the same.
 */
function prepareZipOrder(): void {
  if (zipOrderReady) return;
  zipOrderReady = true;
  setImmediate(() => 'a'.localeCompare('b')).unref();
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
      out = utf16
        ? Buffer.concat([r.encoding === 'utf16le-bom' ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(scan.text, 'utf16le')])
        : Buffer.from(scan.text, 'latin1');
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
   * A large entry streamed through redaction in chunks (bounded memory): `source` yields the bytes as read (or
   * names a file, or holds the bytes); `gzipped` sources are decompressed, redacted and compressed again (the
   * entry keeps its `.gz` name and is stored in the zip without a second compression). UTF-16LE is detected from
   * the first bytes and kept. With standard redaction a file or bytes source runs in the worker pool
   * (worker-pool.ts), so several calls in flight use every core; a plain entry also gets a raw-deflate copy
   * outside the staging folder that the zip writer copies as is.
   */
  async writeStream(
    entryPath: string,
    source: AsyncIterable<Buffer> | Readable | { file: string } | { bytes: Uint8Array },
    options: { gzipped?: boolean; signal?: AbortSignal } = {},
  ): Promise<StageRecord> {
    const file = this.fileOf(entryPath);
    const gzipped = options.gzipped === true;
    let taskSource: LogEntryTask['source'] | null = null;
    if (
      source instanceof fs.ReadStream &&
      typeof source.path === 'string' &&
      source.bytesRead === 0 &&
      (source as unknown as { start?: number }).start === undefined
    ) {
      taskSource = { file: source.path };
      source.destroy();
    } else if (!(source instanceof Readable) && 'file' in source && typeof source.file === 'string') taskSource = { file: source.file };
    else if (!(source instanceof Readable) && 'bytes' in source && source.bytes instanceof Uint8Array) taskSource = { bytes: source.bytes };
    await this.dropDeflated(entryPath);
    const task: LogEntryTask = {
      entryPath,
      source: taskSource ?? { bytes: new Uint8Array(0) },
      gzipped,
      outFile: this.options.zipOnly === true && !gzipped ? null : file,
      deflateFile: gzipped ? null : this.deflateFileOf(entryPath),
      level: BUNDLE_STREAM_DEFLATE_LEVEL,
    };
    const pool = this.options.pseudonyms === null && this.options.level === 'standard' && taskSource ? redactPool() : null;
    if (pool && this.zipOnly) prepareZipOrder();
    const inThread = () =>
      this.inThread(() =>
        redactLogEntry(task, this.redactOptions(), {
          ...(options.signal ? { signal: options.signal } : {}),
          ...(taskSource ? {} : { input: source as AsyncIterable<Buffer> | Readable }),
        }),
      );
    // A worker that could not start or died takes nothing with it: the entry is redacted here instead.
    const done = pool
      ? await pool
          .run(task, options.signal)
          .catch((error: unknown) => (error instanceof PoolFailure && !options.signal?.aborted ? inThread() : Promise.reject(error)))
      : await inThread();
    const record: StageRecord = {
      path: entryPath,
      sha256: done.sha256,
      size: done.size,
      sourceBytes: done.sourceBytes,
      counts: done.counts,
      findings: done.findings,
      findingsTruncated: done.findingsTruncated,
      notes: done.notes,
      compressed: gzipped,
      crc32: done.crc32,
      deflated: done.deflated,
      ...(task.outFile === null ? { staged: false } : {}),
    };
    this.remember(record);
    return record;
  }

  /** In-thread streamed entries run one at a time (one core either way; memory stays that of one entry). */
  private inThreadTail: Promise<unknown> = Promise.resolve();
  private inThread<T>(run: () => Promise<T>): Promise<T> {
    const next = this.inThreadTail.then(run, run);
    this.inThreadTail = next.catch(() => undefined);
    return next;
  }

  /** Where the raw-deflate copy of a streamed entry lives: a hidden folder of the staging area that is never part
   * of a bundle (writeBundleDir removes it first). */
  private deflateFileOf(entryPath: string): string {
    return path.join(this.dir, DEFLATE_DIR, ...bundlePath(entryPath).split('/'));
  }

  private async dropDeflated(entryPath: string): Promise<void> {
    const previous = this.records.get(entryPath);
    if (previous?.deflated) await fsp.rm(previous.deflated.file, { force: true });
  }

  /** Remove an entry that turned out unusable (a node dropped mid-file): it is not in the bundle then. */
  async discard(entryPath: string): Promise<void> {
    const previous = this.records.get(entryPath);
    if (previous) for (const [k, v] of Object.entries(previous.counts)) this.counts[k] = (this.counts[k] ?? 0) - v;
    this.records.delete(entryPath);
    await fsp.rm(this.fileOf(entryPath), { force: true });
    if (previous?.deflated) await fsp.rm(previous.deflated.file, { force: true });
  }

  get zipOnly(): boolean {
    return this.options.zipOnly === true;
  }

  /** Delete the deflated copies (kept outside the staging folder); the staged files stay. */
  async removeDeflated(): Promise<void> {
    if (this.zipOnly) throw new WindeckError('INTERNAL', 'This staging area only holds what a zip needs; it cannot become a folder.');
    await fsp.rm(path.join(this.dir, DEFLATE_DIR), { recursive: true, force: true });
    for (const r of this.records.values()) if (r.deflated) r.deflated = null;
  }

  /** Delete the staging directory. */
  async remove(): Promise<void> {
    await fsp.rm(this.dir, { recursive: true, force: true });
  }
}
