import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { WindeckError } from '../../../shared/contract/windeck-error';
import { BUNDLE_STREAM_CHUNK_BYTES } from '../../../shared/domain/limits';
import {
  Latin1Pieces,
  StreamRedactor,
  mergeCounts,
  type Latin1Ops,
  type RedactOptions,
  type RedactionCounts,
  type RedactionFinding,
} from '../../../shared/logic/redact';
import { looksUtf16le } from '../../../shared/logic/redact-codec';
import { SECRETLINT_SCANNER, finalScan, finalScanLatin1 } from './scan';

/**
 * One streamed bundle entry (a log), start to end: read (a file or bytes), gunzip when `.gz`, redact in chunks
 * (StreamRedactor: partial lines and open PEM blocks are held back, so a secret split across chunks is still one
 * secret), final secretlint scan of each redacted chunk, then write the staged file (re-gzipped for `.gz`),
 * hashing it (sha256 for the manifest, CRC-32 for the zip) and, for plain entries, a raw-deflate copy next to the
 * staging area that the zip writer copies as is. Runs in a worker thread (redact-worker.ts) or in-thread (strict
 * redaction, whose pseudonym table is shared by every file of a bundle). Partial files are removed on failure.
 */

export interface LogEntryTask {
  entryPath: string;
  /** The source: a file to read, or its bytes. */
  source: { file: string } | { bytes: Uint8Array };
  gzipped: boolean;
  /** The staged file (redacted; gzip again for `.gz`), or null: none (a zip-only stage keeps the deflated copy only). */
  outFile: string | null;
  /** Where the raw-deflate copy of a plain entry goes (null: none). */
  deflateFile: string | null;
  level: number;
}

export interface LogEntryResult {
  sha256: string;
  size: number;
  crc32: number;
  sourceBytes: number;
  counts: RedactionCounts;
  findings: RedactionFinding[];
  findingsTruncated: boolean;
  notes: string[];
  deflated: { file: string; size: number } | null;
}

/** Output buffer of the plain entries' synchronous deflate (one call per gather). */
const ZLIB_CHUNK_BYTES = 256 * 1024;

/**
 * Read size and output buffer of the zlib streams of a gzipped entry (16 KiB, zlib's default, means a round trip to
 * the thread pool per 16 KiB). Each stream allocates a new output buffer whenever one fills, and these buffers live
 * until redacted and re-compressed: at 256 KiB (and 512 KiB reads) they left the 1 GiB bench's process 5-15 MiB more
 * resident at its peak (glibc keeps freed memory of that size in its arenas), once the workers' full garbage
 * collections became rare. Same CPU at 64 KiB.
 */
const GZIP_STREAM_BYTES = 64 * 1024;

function sourceStream(source: LogEntryTask['source'] | AsyncIterable<Buffer> | Readable, readBytes = BUNDLE_STREAM_CHUNK_BYTES): Readable {
  if (source instanceof Readable) return source;
  if ('file' in source && typeof source.file === 'string') return fs.createReadStream(source.file, { highWaterMark: readBytes });
  if ('bytes' in source && source.bytes instanceof Uint8Array)
    return Readable.from([Buffer.from(source.bytes.buffer, source.bytes.byteOffset, source.bytes.byteLength)]);
  return Readable.from(source as AsyncIterable<Buffer>);
}

/**
 * Read buffers for `ringReader`, two per entry being read (the redactor's context is a view of the last one),
 * kept for the thread's next entries. Entries redacted at the same time on one thread each take their own, and
 * give them back only when done (the last part is redacted after the reader has ended).
 */
const freeRings: Buffer[][] = [];

/**
 * A plain file read in parts of BUNDLE_STREAM_CHUNK_BYTES (each filled to the full size but the last), into
 * buffers that are reused from one part and one file to the next instead of a new Buffer per read (each one
 * counts as external memory and brings on full garbage collections). The caller must be done with a part when it
 * asks for the next one, except what `holder` still holds (the redactor's context, held-back bytes): such a
 * buffer is skipped (a fresh one is read into instead). `holder` is the redactor itself, not a closure made per
 * entry (optimized code that inlined one closure was thrown away once that entry's closure was collected).
 */
async function* ringReader(
  file: string,
  readRing: Buffer[],
  holder: { holdsBuffer(buffer: ArrayBufferLike): boolean },
  signal?: AbortSignal,
): AsyncGenerator<Buffer> {
  const fh = await fsp.open(file, 'r');
  try {
    let slot = 0;
    for (;;) {
      if (signal?.aborted) throw new WindeckError('CANCELLED', `Reading ${file} was cancelled.`);
      let buf: Buffer | undefined;
      for (let tries = 0; tries < READ_RING_SIZE && !buf; tries++, slot = (slot + 1) % READ_RING_SIZE) {
        const b = (readRing[slot] ??= Buffer.allocUnsafeSlow(BUNDLE_STREAM_CHUNK_BYTES));
        if (!holder.holdsBuffer(b.buffer)) buf = b;
      }
      buf ??= Buffer.allocUnsafeSlow(BUNDLE_STREAM_CHUNK_BYTES);
      let n = 0;
      while (n < buf.length) {
        const { bytesRead } = await fh.read(buf, n, buf.length - n, null);
        if (bytesRead === 0) break;
        n += bytesRead;
      }
      if (n > 0) yield buf.subarray(0, n);
      if (n < buf.length) return;
    }
  } finally {
    await fh.close();
  }
}

const READ_RING_SIZE = 2;

/**
 * Output gathered for one synchronous deflate (and one hash update, one CRC-32, one write): the byte path's output
 * is many views of the input. Each gather is deflated on its own (a fresh window) and ends with a sync flush, so
 * the gathers concatenate to one raw-deflate stream; the last one finishes it.
 */
const GATHER_BYTES = 1024 * 1024;
/** Gather buffers kept for the thread's next entries (one per entry being written). */
const freeGathers: Buffer[] = [];

/** Buffer's native searches and decoding for the redactor's byte path (views: no copy). */
export const BUFFER_LATIN1_OPS: Latin1Ops = {
  indexOf: (bytes, needle, from) => asBuffer(bytes).indexOf(needle, from, 'latin1'),
  indexOfByte: (bytes, byte, from) => asBuffer(bytes).indexOf(byte, from),
  decode: (bytes, start, end) => asBuffer(bytes).toString('latin1', start, end),
};

/** The last view wrapped by `asBuffer` (the byte path asks many times about the same bytes; a new Buffer costs). */
let wrappedIn: Uint8Array | null = null;
let wrappedOut: Buffer | null = null;

function asBuffer(bytes: Uint8Array): Buffer {
  if (Buffer.isBuffer(bytes)) return bytes;
  if (bytes !== wrappedIn || !wrappedOut) {
    wrappedIn = bytes;
    wrappedOut = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  return wrappedOut;
}

/** Scratch for `latin1Joined` (reused: it only lives for one synchronous decode). */
let joinScratch = Buffer.alloc(0);

/** `a` and `b` decoded as one Latin-1 string, without allocating a buffer for the two per part. */
function latin1Joined(a: Uint8Array, b: Uint8Array): string {
  const n = a.length + b.length;
  if (joinScratch.length < n) joinScratch = Buffer.allocUnsafe(Math.max(n, BUNDLE_STREAM_CHUNK_BYTES + 128 * 1024));
  joinScratch.set(a, 0);
  joinScratch.set(b, a.length);
  const text = joinScratch.toString('latin1', 0, n);
  // A scratch grown for one huge part (a held-back PEM block) is not kept.
  if (joinScratch.length > 4 * BUNDLE_STREAM_CHUNK_BYTES) joinScratch = Buffer.alloc(0);
  return text;
}

/**
 * No carried bytes (only read, never written). One shared Buffer rather than `Buffer.alloc(0)` in branches that run
 * rarely: a call that never ran before `flush` was optimized threw that code away ("insufficient type feedback").
 */
const NO_BYTES = Buffer.alloc(0);

/**
 * One entry's redaction: the redactor, what was read and found, and the chunking state. A class rather than
 * closures made per entry: V8 optimizes a closure made anew per call on its own, so the closures this replaced
 * (`redactChunks`, its `flush`, `emitBytes`) were compiled by Turbofan again for entry after entry (9, 6 and 4
 * times on a 1 GiB bundle, ~2 s of compile time in all); methods are compiled once per thread.
 */
class EntryRedaction {
  // The redactor also finds the final scan's anchor words in its own pass over the text (see finalScan).
  readonly redactor: StreamRedactor;
  readonly scanCounts: RedactionCounts = {};
  readonly notes: string[] = [];
  sourceBytes = 0;
  private encoding: 'latin1' | 'utf16le' | null = null;
  private carry: Buffer = NO_BYTES;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private readonly hash = crypto.createHash('sha256');
  private crc = 0;
  private size = 0;

  constructor(
    redact: RedactOptions,
    private readonly name: string,
    /** False: every part takes the string path (the byte path's reference in the tests). */
    private readonly bytePath: boolean,
  ) {
    this.redactor = new StreamRedactor(redact, undefined, undefined, SECRETLINT_SCANNER, BUFFER_LATIN1_OPS);
  }

  /** Hash, CRC-32 and count output bytes. */
  tap(chunk: Buffer): void {
    this.hash.update(chunk);
    this.crc = zlib.crc32(chunk, this.crc);
    this.size += chunk.length;
  }

  result(deflated: LogEntryResult['deflated']): LogEntryResult {
    const redactor = this.redactor;
    return {
      sha256: this.hash.digest('hex'),
      size: this.size,
      crc32: this.crc >>> 0,
      sourceBytes: this.sourceBytes,
      counts: mergeCounts({ ...redactor.counts }, this.scanCounts),
      findings: redactor.findings,
      findingsTruncated: redactor.findingsTruncated,
      notes: this.notes,
      deflated,
    };
  }

  private async *emit(text: string): AsyncGenerator<Buffer> {
    if (text === '') return;
    const scan = await finalScan(text, this.name, { ownPatterns: false, prefilter: true, anchors: this.redactor.companionMatches });
    mergeCounts(this.scanCounts, scan.counts);
    this.notes.push(...scan.notes);
    yield Buffer.from(scan.text, this.encoding ?? 'latin1');
  }

  /** The byte path's output (Latin-1 parts the redactor handled as bytes): scanned the same way, without decoding. */
  private async *emitBytes(pieces: Uint8Array[]): AsyncGenerator<Buffer> {
    const text = new Latin1Pieces(pieces, BUFFER_LATIN1_OPS);
    if (text.length === 0) return;
    const scan = await finalScanLatin1(text, this.name, this.redactor.companionMatches);
    mergeCounts(this.scanCounts, scan.counts);
    this.notes.push(...scan.notes);
    for (const p of scan.pieces) if (p.length > 0) yield asBuffer(p);
  }

  async *redactChunks(input: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of input) {
      const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      this.sourceBytes += b.length;
      this.pending.push(b);
      this.pendingBytes += b.length;
      if (this.pendingBytes >= BUNDLE_STREAM_CHUNK_BYTES) yield* this.flush(false);
    }
    yield* this.flush(true);
  }

  private async *flush(last: boolean): AsyncGenerator<Buffer> {
    const redactor = this.redactor;
    // The byte path (Latin-1, known from the first part): the redactor reads the pieces as they came (no
    // concatenation), up to the last line break of the last piece, and its output is views of them.
    if (this.encoding === 'latin1' && this.bytePath) {
      const pieces = this.carry.length > 0 ? [this.carry, ...this.pending] : this.pending;
      const lastPiece = pieces[pieces.length - 1];
      const cut = !lastPiece ? 0 : last ? lastPiece.length : lastPiece.lastIndexOf(10) + 1;
      const out = lastPiece && cut > 0 ? redactor.pushLatin1([...pieces.slice(0, -1), lastPiece.subarray(0, cut)]) : null;
      if (lastPiece && out) {
        this.carry = !last && cut < lastPiece.length ? Buffer.from(lastPiece.subarray(cut)) : NO_BYTES;
        this.pending = [];
        this.pendingBytes = 0;
        yield* this.emitBytes(out);
        if (last) yield* this.emit(redactor.end());
        return;
      }
    }
    let buf = this.pending.length === 1 && this.carry.length === 0 ? (this.pending[0] as Buffer) : Buffer.concat([this.carry, ...this.pending]);
    this.pending = [];
    this.pendingBytes = 0;
    if (this.encoding === null) {
      let bom: Buffer | null = null;
      if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) {
        bom = buf.subarray(0, 2);
        buf = buf.subarray(2);
        this.encoding = 'utf16le';
      } else this.encoding = looksUtf16le(buf) ? 'utf16le' : 'latin1';
      if (bom) yield Buffer.from(bom);
    }
    const encoding = this.encoding;
    if (encoding === 'utf16le' && buf.length % 2 === 1 && !last) {
      this.carry = Buffer.from(buf.subarray(buf.length - 1));
      buf = buf.subarray(0, buf.length - 1);
    } else if (encoding === 'latin1' && !last) {
      // Hand the redactor whole lines: it would hold the partial last line back itself, by joining it to the
      // next part (a copy of the whole part per chunk). The output is the same either way.
      const cut = buf.lastIndexOf(10) + 1;
      this.carry = cut > 0 && cut < buf.length ? Buffer.from(buf.subarray(cut)) : NO_BYTES;
      if (cut > 0) buf = buf.subarray(0, cut);
    } else this.carry = NO_BYTES;
    // Latin-1 text comes with its bytes (one per character): the redactor scans those (a WebAssembly kernel).
    // And it is decoded together with the redactor's context (the tail of the last part), so the redactor does
    // not concatenate and copy the two: one half-MB string per part instead of two.
    // The byte path: a part of whole lines without anything that needs the whole text as a string is redacted
    // as bytes (only the lines around trigger words are decoded); the output is the input outside the spans.
    const asBytes = encoding === 'latin1' && this.bytePath && buf.length > 0 ? redactor.pushLatin1([buf]) : null;
    const context = encoding === 'latin1' ? redactor.latin1Context : null;
    if (asBytes) yield* this.emitBytes(asBytes);
    else if (encoding === 'latin1' && context && context.length > 0 && buf.length > 0) {
      const joined = latin1Joined(context, buf);
      yield* this.emit(redactor.push(joined.slice(context.length), buf, joined));
    } else yield* this.emit(redactor.push(buf.toString(encoding), encoding === 'latin1' ? buf : undefined));
    if (last) yield* this.emit(redactor.end());
  }
}

/**
 * A plain entry's output: gathered into `gather`, then hashed, written and deflated synchronously per gather
 * (see GATHER_BYTES).
 */
class PlainOutput {
  gathered = 0;
  deflatedSize = 0;

  constructor(
    private readonly entry: EntryRedaction,
    readonly gather: Buffer,
    private readonly outFh: fsp.FileHandle | null,
    private readonly deflateFh: fsp.FileHandle | null,
    private readonly level: number,
  ) {}

  async write(piece: Buffer): Promise<void> {
    const gather = this.gather;
    for (let at = 0; at < piece.length;) {
      const take = Math.min(piece.length - at, gather.length - this.gathered);
      gather.set(at === 0 && take === piece.length ? piece : piece.subarray(at, at + take), this.gathered);
      this.gathered += take;
      at += take;
      if (this.gathered === gather.length) await this.drain(false);
    }
  }

  async drain(last: boolean): Promise<void> {
    const bytes = this.gather.subarray(0, this.gathered);
    this.entry.tap(bytes);
    if (this.outFh && bytes.length > 0) await writeAll(this.outFh, bytes);
    if (this.deflateFh) {
      // Synchronous, on this thread: no stream, no thread-pool round trip per piece.
      const z = zlib.deflateRawSync(bytes, {
        level: this.level,
        chunkSize: ZLIB_CHUNK_BYTES,
        finishFlush: last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH,
      });
      this.deflatedSize += z.length;
      await writeAll(this.deflateFh, z);
    }
    this.gathered = 0;
  }
}

/** Redact one entry into the staging area. `input` overrides `task.source` with a stream (in-thread callers). */
export async function redactLogEntry(
  task: LogEntryTask,
  redact: RedactOptions,
  options: { signal?: AbortSignal; input?: AsyncIterable<Buffer> | Readable; latin1Bytes?: boolean } = {},
): Promise<LogEntryResult> {
  // `latin1Bytes: false`: every part takes the string path (the byte path's reference in the tests).
  const entry = new EntryRedaction(redact, path.basename(task.entryPath), options.latin1Bytes !== false);
  const redactor = entry.redactor;
  if (!task.outFile && !task.deflateFile) throw new WindeckError('INTERNAL', `Redacting ${task.entryPath}: no staged file and no deflated copy.`);
  if (task.outFile) await fsp.mkdir(path.dirname(task.outFile), { recursive: true });
  const plainDeflate = task.gzipped ? null : task.deflateFile;
  if (plainDeflate) await fsp.mkdir(path.dirname(plainDeflate), { recursive: true });

  if (!task.gzipped) {
    // A plain entry: one loop on this thread. The file is read into reused buffers (ringReader), and each output
    // piece is consumed (copied into the gather) before the next part is read.
    const readRing = options.input || !('file' in task.source) ? null : (freeRings.pop() ?? []);
    const input: AsyncIterable<Buffer> =
      options.input ?? (readRing && 'file' in task.source ? ringReader(task.source.file, readRing, redactor, options.signal) : sourceStream(task.source));
    const outFh = task.outFile ? await fsp.open(task.outFile, 'w') : null;
    const deflateFh = plainDeflate ? await fsp.open(plainDeflate, 'w') : null;
    const output = new PlainOutput(entry, freeGathers.pop() ?? Buffer.allocUnsafeSlow(GATHER_BYTES), outFh, deflateFh, task.level);
    try {
      for await (const piece of entry.redactChunks(input)) {
        if (options.signal?.aborted) throw new WindeckError('CANCELLED', `Redacting ${task.entryPath} was cancelled.`);
        await output.write(piece);
      }
      await output.drain(true);
      await outFh?.close();
      await deflateFh?.close();
      // Done with every part (and the redactor with its context): the buffers may serve the next entry.
      freeGathers.push(output.gather);
      if (readRing) freeRings.push(readRing);
    } catch (error) {
      await outFh?.close().catch(() => undefined);
      await deflateFh?.close().catch(() => undefined);
      if (task.outFile) await fsp.rm(task.outFile, { force: true });
      if (plainDeflate) await fsp.rm(plainDeflate, { force: true });
      if (options.signal?.aborted) throw new WindeckError('CANCELLED', `Redacting ${task.entryPath} was cancelled.`);
      throw error;
    }
    return entry.result(plainDeflate ? { file: plainDeflate, size: output.deflatedSize } : null);
  }

  // A gzipped entry: gunzip, redact, gzip again, through streams.
  const tap = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      entry.tap(chunk);
      cb(null, chunk);
    },
  });
  const input = sourceStream(options.input ?? task.source, GZIP_STREAM_BYTES);
  const signalOpt = options.signal ? { signal: options.signal } : {};
  // Where the gzip goes after the tap: the staged file, or nowhere.
  const sink = () =>
    task.outFile
      ? fs.createWriteStream(task.outFile)
      : new Writable({
          write(_chunk: Buffer, _enc, cb) {
            cb();
          },
        });
  try {
    await pipeline(
      input,
      zlib.createGunzip({ chunkSize: GZIP_STREAM_BYTES }),
      (source: AsyncIterable<Buffer>) => entry.redactChunks(source),
      zlib.createGzip({ level: task.level, chunkSize: GZIP_STREAM_BYTES }),
      tap,
      sink(),
      signalOpt,
    );
  } catch (error) {
    input.destroy();
    if (task.outFile) await fsp.rm(task.outFile, { force: true });
    if (options.signal?.aborted) throw new WindeckError('CANCELLED', `Redacting ${task.entryPath} was cancelled.`);
    throw error;
  }
  return entry.result(null);
}

async function writeAll(fh: fsp.FileHandle, bytes: Buffer): Promise<void> {
  for (let at = 0; at < bytes.length;) {
    const { bytesWritten } = await fh.write(bytes, at, bytes.length - at);
    at += bytesWritten;
  }
}
