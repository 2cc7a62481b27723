/**
 * Scan one input file into facts. Small files (up to DIAGNOSE_FULL_PARSE_MAX_BYTES) are read whole, classified by
 * content and run through every parser; bigger ones are classified from their head and then streamed line by line
 * through the log signature scanner, so memory stays bounded whatever the size. Gzip (`.log.gz` in bundles) is
 * decompressed on the fly.
 */
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { WindeckError } from '../../../shared/contract/errors';
import { DIAGNOSE_FULL_PARSE_MAX_BYTES, DIAGNOSE_HEAD_BYTES, DIAGNOSE_LINE_MAX_CHARS } from '../../../shared/domain/limits';
import type { Fact, ParseContext } from '../../../shared/logic/facts';
import { classify, classifyText, type InputKind } from '../../../shared/parse/classify';
import { LogSignalScanner } from '../../../shared/parse/log-signals';
import { componentOfKind, parseText } from '../../../shared/parse/parse-text';
import { parseProbeOutput } from '../../../shared/parse/probe-output';
import { decodeBytes, sniffEncoding } from '../../../shared/parse/text';

export interface EntryContext {
  /** Source name for facts (the input path). */
  source: string;
  node: string | null;
  /** Windeck bundle probe output: parse with that probe's parser. */
  probeId: string | null;
  /** Kind forced by a known layout (bundle manifest, findings, probe results): listed, not parsed. */
  forcedKind: InputKind | null;
}

export interface EntryScan {
  kind: InputKind;
  facts: Fact[];
  warnings: string[];
  bytesRead: number;
}

export interface ScanHooks {
  signal?: AbortSignal;
  /** Raw bytes consumed so far for this entry (for progress). */
  onBytes?: (n: number) => void;
}

function cancelled(signal?: AbortSignal): void {
  if (signal?.aborted) throw new WindeckError('CANCELLED', 'Diagnosis cancelled.');
}

/** Read up to `limit` bytes; returns the chunks read and whether the stream ended. */
async function readUpTo(stream: Readable, limit: number, hooks: ScanHooks): Promise<{ chunks: Buffer[]; size: number; ended: boolean; iterator: AsyncIterator<Buffer> }> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let size = 0;
  while (size <= limit) {
    cancelled(hooks.signal);
    const next = await iterator.next();
    if (next.done) return { chunks, size, ended: true, iterator };
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value as Uint8Array);
    chunks.push(chunk);
    size += chunk.length;
    hooks.onBytes?.(chunk.length);
  }
  return { chunks, size, ended: false, iterator };
}

/**
 * Cut decoded text into blocks of whole lines for the scanner (LF or CRLF), carrying the unfinished last line to
 * the next chunk. A line longer than DIAGNOSE_LINE_MAX_CHARS is cut, so a file without line ends stays bounded.
 */
class BlockFeeder {
  private carry = '';
  private skipping = false;
  private lineNo = 1;

  constructor(private readonly scanner: LogSignalScanner) {}

  push(text: string): void {
    let t = text;
    if (this.skipping) {
      const nl = t.indexOf('\n');
      if (nl < 0) return;
      this.skipping = false;
      this.flushCarry();
      t = t.slice(nl + 1);
    }
    const last = t.lastIndexOf('\n');
    if (last < 0) {
      this.carry += t;
      if (this.carry.length > DIAGNOSE_LINE_MAX_CHARS) {
        this.carry = this.carry.slice(0, DIAGNOSE_LINE_MAX_CHARS);
        this.skipping = true;
      }
      return;
    }
    const block = this.carry + t.slice(0, last + 1);
    this.carry = t.slice(last + 1);
    this.lineNo += this.scanner.pushBlock(block, this.lineNo);
  }

  private flushCarry(): void {
    if (this.carry === '') return;
    this.lineNo += this.scanner.pushBlock(this.carry + '\n', this.lineNo);
    this.carry = '';
  }

  end(): void {
    this.flushCarry();
  }
}

/** Stream the rest of a big file through the log scanner. */
async function streamScan(head: Buffer[], iterator: AsyncIterator<Buffer>, kind: InputKind, ctx: EntryContext, hooks: ScanHooks): Promise<Fact[]> {
  const first = Buffer.concat(head.slice(0, 1));
  const enc = sniffEncoding(first.subarray(0, Math.min(first.length, 4096)));
  const label = enc.startsWith('utf-16le') ? 'utf-16le' : enc.startsWith('utf-16be') ? 'utf-16be' : 'utf-8';
  const decoder = new TextDecoder(label, { fatal: false });
  const scanner = new LogSignalScanner({ source: ctx.source, node: ctx.node }, componentOfKind(kind));
  const feeder = new BlockFeeder(scanner);
  for (const chunk of head) feeder.push(decoder.decode(chunk, { stream: true }));
  for (;;) {
    cancelled(hooks.signal);
    const next = await iterator.next();
    if (next.done) break;
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value as Uint8Array);
    hooks.onBytes?.(chunk.length);
    feeder.push(decoder.decode(chunk, { stream: true }));
  }
  feeder.push(decoder.decode());
  feeder.end();
  return scanner.finish();
}

/** Decode with Node's native decoders (much faster than the portable one in shared/parse/text.ts). */
export function decodeNative(bytes: Buffer): string {
  const enc = sniffEncoding(bytes.subarray(0, 4096));
  switch (enc) {
    case 'utf-8-bom':
      return bytes.subarray(3).toString('utf8');
    case 'utf-16le-bom':
      return bytes.subarray(2).toString('utf16le');
    case 'utf-16le':
      return bytes.toString('utf16le');
    case 'utf-16be-bom':
    case 'utf-16be':
      return decodeBytes(bytes).text;
    default:
      return bytes.toString('utf8');
  }
}

function parseWhole(bytes: Buffer, name: string, ctx: EntryContext): { kind: InputKind; facts: Fact[]; warnings: string[] } {
  // Archives, event logs and binaries are told by their first bytes.
  const head = classify(name, bytes.subarray(0, 4096));
  if (head.encoding === 'binary') return { kind: head.kind, facts: [], warnings: [] };
  const text = decodeNative(bytes);
  const c = classifyText(text);
  const pctx: ParseContext = { source: ctx.source, node: ctx.node };
  if (ctx.probeId) {
    const r = parseProbeOutput(ctx.probeId, text, pctx);
    return { kind: r.kind, facts: r.facts, warnings: r.warnings };
  }
  const r = parseText(text, pctx, c);
  return { kind: r.kind, facts: r.facts, warnings: r.warnings };
}

/**
 * Copies of facts that share no memory with the text they were parsed from. A fact's excerpt and data are often
 * substrings of the whole file's text, and V8 keeps such a substring as a view of its parent string: a few facts
 * kept per file would keep every file's whole text alive (a 1 GiB folder of 2 MiB logs reached 840 MiB RSS). The
 * structured clone copies each string.
 */
function detached(facts: Fact[]): Fact[] {
  return facts.length === 0 ? facts : structuredClone(facts);
}

/**
 * Scan one entry's stream. Never loads more than DIAGNOSE_FULL_PARSE_MAX_BYTES (plus one chunk) at once, and the
 * facts returned hold no reference to the text read (`detached`), so a caller may keep them across many files.
 */
export async function scanStream(open: () => Promise<Readable>, name: string, ctx: EntryContext, hooks: ScanHooks = {}): Promise<EntryScan> {
  let stream: Readable;
  try {
    stream = await open();
  } catch (error) {
    if ((error as WindeckError).code === 'CANCELLED') throw error;
    return { kind: 'unreadable', facts: [], warnings: [`cannot open: ${(error as Error).message}`], bytesRead: 0 };
  }
  let bytesRead = 0;
  const counting: ScanHooks = { signal: hooks.signal, onBytes: (n) => ((bytesRead += n), hooks.onBytes?.(n)) };
  try {
    const { chunks, ended, iterator } = await readUpTo(stream, DIAGNOSE_FULL_PARSE_MAX_BYTES, counting);
    const headBytes = Buffer.concat(chunks).subarray(0, DIAGNOSE_HEAD_BYTES);
    const isGzip = headBytes.length >= 2 && headBytes[0] === 0x1f && headBytes[1] === 0x8b;
    if (ctx.forcedKind) {
      stream.destroy();
      return { kind: ctx.forcedKind, facts: [], warnings: [], bytesRead };
    }
    if (isGzip) {
      // Decompress as a stream: the compressed chunks read so far, then the rest of the source.
      const gunzip = zlib.createGunzip();
      const write = async (c: Buffer) => {
        if (gunzip.destroyed) return;
        if (!gunzip.write(c)) await new Promise<void>((r) => {
          gunzip.once('drain', r);
          gunzip.once('close', r);
        });
      };
      const pump = (async () => {
        try {
          for (const c of chunks) await write(c);
          for (;;) {
            if (gunzip.destroyed) break;
            const next = await iterator.next();
            if (next.done) break;
            const c = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value as Uint8Array);
            counting.onBytes?.(c.length);
            await write(c);
          }
          if (!gunzip.destroyed) gunzip.end();
        } catch (error) {
          gunzip.destroy(error as Error);
        }
      })();
      const inner = await scanStream(async () => gunzip, name.replace(/\.gz$/i, ''), ctx, { signal: hooks.signal });
      await pump;
      return { ...inner, bytesRead };
    }
    if (ended) {
      const r = parseWhole(Buffer.concat(chunks), name, ctx);
      return { ...r, facts: detached(r.facts), bytesRead };
    }
    // Big: classify from the head (whole lines only), then stream.
    const headText = decodeNative(headBytes);
    const cut = Math.max(headText.lastIndexOf('\n'), 0);
    const c = classifyText(headText.slice(0, cut || headText.length));
    const facts = detached(await streamScan(chunks, iterator, c.kind, ctx, counting));
    return { kind: c.kind, facts, warnings: [`large file (${bytesRead} bytes): streamed through the log scan only`], bytesRead };
  } catch (error) {
    if ((error as WindeckError).code === 'CANCELLED') throw error;
    return { kind: 'unreadable', facts: [], warnings: [`read failed: ${(error as Error).message}`], bytesRead };
  } finally {
    stream.destroy();
  }
}
