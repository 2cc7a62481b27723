import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import wabtInit from 'wabt';
import { StreamRedactor, scanForRedaction, type RedactOptions } from '../../../../shared/logic/redact';
import { TRIGGER_WORDS } from '../../../../shared/logic/redact-patterns';
import { REDACT_SCAN_KERNEL_WASM } from '../../../../shared/logic/redact-scan-kernel';
import { PseudonymTable } from '../../../../shared/logic/redact-pseudonyms';
import { LiteralScanner, foldTable, slotOf } from '../../../../shared/logic/redact-scan';
import {
  ANY_NEXT2,
  kernelCount,
  kernelNulForTests,
  kernelScan,
  kernelText,
  kernelWordsForTests,
  slotKeys,
  slotNext2,
} from '../../../../shared/logic/redact-scan-wasm';
import { SECRETLINT_SCANNER } from '../../../../electron/services/bundle/scan';
import { makeCanaries, prng } from '../../../integration/bundle/canaries';
import { B64, hostileText, mixCase, ODD_LATIN1, pick } from './hostile-text';
import { REFERENCE_SCANNER, referenceFindAll, referenceScan } from './reference-scanners';

/**
 * The WebAssembly kernel of scanText (shared/logic/redact-scan-kernel.wat, used for Latin-1 text given with its
 * bytes: streamed logs) against the reference scans: the same trigger words, base64 runs and companion words on
 * hostile random Latin-1 texts (every byte value, NULs, padding, `-`/`_` neighbours, CRLF) and the real
 * sample-derived fixtures, and byte-identical stream redaction (text, counts, findings, companion matches) with
 * and without the bytes. Also: the committed wasm is what the .wat source compiles to.
 */

const root = path.resolve(__dirname, '../../../..');
const std = { level: 'standard' as const };
/** Hostile random Latin-1 text: word fragments, whole and doubled words, base64 runs, any byte value. */
function hostileLatin1(rand: () => number, words: readonly string[], pieces: number): string {
  return hostileText(rand, words, pieces, { odd: ODD_LATIN1, anyByte: true });
}

const latin1 = (text: string) => Buffer.from(text, 'latin1');
const isLatin1 = (text: string) => [...text].every((ch) => ch.charCodeAt(0) < 256);

describe('the scan kernel (WebAssembly)', () => {
  it('the committed wasm bytes are what redact-scan-kernel.wat compiles to (node build/wasm.mjs)', async () => {
    const wabt = await wabtInit();
    // The features build/wasm.mjs compiles with (WAT_FEATURES).
    const mod = wabt.parseWat('redact-scan-kernel.wat', fs.readFileSync(path.join(root, 'shared/logic/redact-scan-kernel.wat'), 'utf8'), { simd: true });
    mod.validate();
    const bytes = Buffer.from(mod.toBinary({ log: false, write_debug_names: false }).buffer);
    mod.destroy();
    expect(Buffer.from(REDACT_SCAN_KERNEL_WASM, 'base64').equals(bytes)).toBe(true);
  });

  it('runs (not the JavaScript fallback) on ordinary text, and gives up on more hits than it holds', () => {
    const either = new Uint8Array(4096).fill(1);
    const text = 'I0612 kubelet.go:1] pod="x" token=abc\n'.repeat(100);
    // No word lists: no slot has an exact key, every offset of a non-zero slot is reported.
    const k = kernelScan([latin1(text)], text.length, 0, either, []);
    expect(k?.count).toBe(text.length);
    const none = new Uint8Array(4096);
    expect(kernelScan([latin1(text)], text.length, 0, none, [])?.count).toBe(0);
    // Pieces that do not add up to the text: no answer.
    expect(kernelScan([latin1(text)], text.length + 1, 0, none, [])).toBeNull();
    // With the words of a table, only their starts: `tok` of `token` (the first three characters are `tok`).
    const trigger = new LiteralScanner(TRIGGER_WORDS);
    const hits = kernelScan([latin1(text)], text.length, 0, trigger.starts, [trigger]);
    expect(hits && Array.from(hits.hits).map((i) => text.slice(i - 2, i + 1))).toEqual(new Array<string>(100).fill('tok'));
    // Word lists that do not make the table (a non-zero slot no word starts in): nothing is dropped.
    const both = new Uint8Array(4096).map((_v, i) => (trigger.starts[i] !== 0 || SECRETLINT_SCANNER.starts[i] !== 0 ? 1 : 0));
    const rand = prng(1);
    const noise = latin1(Array.from({ length: 20000 }, () => 'abcdefghijklmnopqrstuvwxyz '[Math.floor(rand() * 27)]).join(''));
    const all = kernelScan([noise], noise.length, 0, both, [trigger])?.count as number;
    expect(kernelScan([noise], noise.length, 0, both, [])?.count).toBe(all);
    expect(kernelScan([noise], noise.length, 0, both, [trigger, SECRETLINT_SCANNER])?.count).toBeLessThan(all / 2);
    // A hit at every third character of a long text overflows the hit array: the JavaScript loop answers.
    const dense = 'key'.repeat(40000);
    expect(scanForRedaction(dense, latin1(dense))).toEqual(referenceScan(dense));
  });

  it('finds the same trigger words and base64 runs as the reference scans on hostile Latin-1 texts', () => {
    const rand = prng(8080);
    const canaries = makeCanaries(12).filter((c) => isLatin1(c.text));
    for (let t = 0; t < 3000; t++) {
      let text = hostileLatin1(rand, TRIGGER_WORDS, 1 + Math.floor(rand() * 80));
      if (rand() < 0.3) text += canaries[Math.floor(rand() * canaries.length)]!.text + pick(rand, ['', '=', '==', '===', '-', '_', 'x']);
      expect(scanForRedaction(text, latin1(text)), JSON.stringify(text)).toEqual(referenceScan(text));
    }
  });

  it('base64 runs near every length limit, at every offset, with each neighbour', () => {
    const rand = prng(1819);
    const run = (len: number, mixed: boolean) => {
      let out = '';
      for (let k = 0; k < len; k++) out += mixed ? B64[Math.floor(rand() * 64)] : 'abcdef0123456789'[Math.floor(rand() * 16)];
      if (mixed && len >= 2) out = 'aZ' + out.slice(2);
      return out;
    };
    const around = ['', ' ', '=', '==', '===', '-', '_', '\n', 'x y ', '.', '\u00e9', '\u00ff'];
    for (let len = 1; len <= 45; len++) {
      for (let offset = 0; offset <= 40; offset++) {
        const prefix = 'ab '.repeat(14).slice(0, offset) + pick(rand, around);
        const text = prefix + run(len, rand() < 0.8) + pick(rand, around) + (rand() < 0.5 ? run(Math.floor(rand() * 30), true) + pick(rand, around) : '');
        expect(scanForRedaction(text, latin1(text)).runs, JSON.stringify(text)).toEqual(referenceScan(text).runs);
      }
    }
    const dense = Array.from({ length: 4000 }, () => run(1 + Math.floor(rand() * 40), rand() < 0.7) + pick(rand, ['=', '==', '-', ' ', '_', '.'])).join('');
    const got = scanForRedaction(dense, latin1(dense)).runs;
    expect(got).toEqual(referenceScan(dense).runs);
    expect(got.length).toBeGreaterThan(200);
  });

  /**
   * A stream redacted in random chunks: with each chunk's Latin-1 bytes (and, as entry-pipeline.ts does, decoded
   * together with the redactor's context when `withBytes` is 'joined'), or without, or with the reference scans.
   */
  function streamed(text: string, cuts: number[], options: RedactOptions, withBytes: boolean | 'joined', hold: number, context: number) {
    const s = new StreamRedactor(options, hold, context, SECRETLINT_SCANNER);
    let out = '';
    const companions: Array<Array<[number, number]>> = [];
    for (let i = 0; i < cuts.length; i++) {
      const chunk = text.slice(cuts[i], cuts[i + 1] ?? text.length);
      const ctx = withBytes === 'joined' ? s.latin1Context : null;
      if (ctx && ctx.length > 0) {
        const joined = Buffer.concat([ctx, latin1(chunk)]).toString('latin1');
        out += s.push(joined.slice(ctx.length), latin1(chunk), joined);
      } else out += s.push(chunk, withBytes ? latin1(chunk) : undefined);
      companions.push(s.companionMatches);
    }
    out += s.end();
    companions.push(s.companionMatches);
    return { text: out, counts: s.counts, findings: s.findings, findingsTruncated: s.findingsTruncated, companions };
  }

  it('StreamRedactor with bytes: byte-identical output, counts, findings and companion matches on hostile Latin-1 streams', () => {
    const rand = prng(99);
    const canaries = makeCanaries(78).filter((c) => isLatin1(c.text));
    const anchorWords = [...SECRETLINT_SCANNER.words, 'secret', 'account', '://'];
    for (let t = 0; t < 48; t++) {
      const parts: string[] = [];
      for (let k = 0; k < 30; k++) {
        parts.push(hostileLatin1(rand, rand() < 0.5 ? anchorWords : TRIGGER_WORDS, 25));
        if (rand() < 0.7) parts.push(canaries[Math.floor(rand() * canaries.length)]!.text);
        if (rand() < 0.3) parts.push('W0612 proxier.go:1081] Policy creation failed: hcnCreateLoadBalancer failed \u00e9\u00ff\r\n'.repeat(200));
        if (rand() < 0.2) parts.push('x --password=a1 --token=b2 y\nsk-1 acct\naccount\n://\n');
      }
      const text = parts.join(t % 4 === 3 ? ' ' : pick(rand, ['\r\n', '\n']));
      const cuts: number[] = [];
      for (let at = 0; at < text.length; at += 1 + Math.floor(rand() * 40000)) cuts.push(at);
      const hold = t % 2 === 1 ? 3000 : 256 * 1024;
      const context = t % 3 === 0 ? 4096 : 16 * 1024;
      // Every eighth stream with strict redaction (pseudonyms; a fresh table of the same seed per run).
      const opts = (): RedactOptions => (t % 8 === 7 ? { level: 'strict', pseudonyms: new PseudonymTable(prng(t)) } : std);
      const fast = streamed(text, cuts, opts(), true, hold, context);
      const label = `stream ${t}`;
      for (const other of [
        streamed(text, cuts, opts(), false, hold, context),
        streamed(text, cuts, { ...opts(), scanner: REFERENCE_SCANNER }, false, hold, context),
        streamed(text, cuts, opts(), 'joined', hold, context),
      ]) {
        expect(fast.text === other.text, label).toBe(true);
        expect(fast.counts, label).toEqual(other.counts);
        expect(fast.findings, label).toEqual(other.findings);
        expect(fast.findingsTruncated, label).toBe(other.findingsTruncated);
      }
      // The companion matches are those of a fresh search of each emitted part (the reference scanner's `find`).
      const plain = streamed(text, cuts, opts(), false, hold, context);
      expect(fast.companions, label).toEqual(plain.companions);
      expect(Buffer.from(fast.text, 'latin1').equals(Buffer.from(plain.text, 'latin1'))).toBe(true);
    }
  });

  it('StreamRedactor with bytes: the real sample-derived fixtures give the same bytes', () => {
    const dir = path.join(root, 'test/fixtures/samples');
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(path.join(d, e.name));
        else files.push(path.join(d, e.name));
      }
    };
    walk(dir);
    expect(files.length).toBeGreaterThan(10);
    const rand = prng(5);
    const canaries = makeCanaries(3).filter((c) => isLatin1(c.text));
    for (const file of files) {
      // Each fixture as is, and with canary secrets spliced in at line starts.
      const raw = fs.readFileSync(file).toString('latin1');
      const lines = raw.split('\n');
      for (let k = 0; k < 5; k++) lines.splice(Math.floor(rand() * lines.length), 0, canaries[Math.floor(rand() * canaries.length)]!.text);
      for (const text of [raw, lines.join('\n')]) {
        const cuts: number[] = [];
        // Cuts at line ends (as entry-pipeline.ts hands whole lines: the joined decode is then used) and anywhere.
        for (let at = 0; at < text.length; at += 1 + Math.floor(rand() * 5000)) {
          const nl = text.indexOf('\n', at);
          cuts.push(rand() < 0.5 && nl >= 0 ? nl + 1 : at);
        }
        const fast = streamed(
          text,
          [...new Set(cuts)].sort((a, b) => a - b),
          std,
          'joined',
          256 * 1024,
          4096,
        );
        const ref = streamed(
          text,
          [...new Set(cuts)].sort((a, b) => a - b),
          { ...std, scanner: REFERENCE_SCANNER },
          false,
          256 * 1024,
          4096,
        );
        expect(fast.text === ref.text, file).toBe(true);
        expect(fast.counts, file).toEqual(ref.counts);
        expect(fast.findings, file).toEqual(ref.findings);
        expect(fast.companions, file).toEqual(ref.companions);
      }
    }
  });

  it('bytes that are not the chunk (a broken caller) are not used: the stream scans the text itself', () => {
    const text = 'I0612 kubelet.go:1] start\nx --password=Hunter2Secret! y\n' + 'I0612 line without anything\n'.repeat(2000);
    const run = (bytes?: (chunk: string) => Uint8Array) => {
      const s = new StreamRedactor(std, 256 * 1024, 4096, SECRETLINT_SCANNER);
      let out = '';
      for (let at = 0; at < text.length; at += 20000) {
        const chunk = text.slice(at, at + 20000);
        out += s.push(chunk, bytes?.(chunk));
      }
      return out + s.end();
    };
    const good = run();
    expect(good).toContain('--password=[REDACTED:password]');
    expect(run((chunk) => new Uint8Array(chunk.length))).toBe(good);
    expect(run((chunk) => latin1(chunk))).toBe(good);
  });

  it('the companion matches with bytes equal a fresh reference search of each emitted part', () => {
    const rand = prng(2027);
    const anchorWords = [...SECRETLINT_SCANNER.words, 'secret', 'account', '://'];
    for (let t = 0; t < 30; t++) {
      const text = Array.from({ length: 40 }, () => hostileLatin1(rand, anchorWords, 30)).join('\r\n');
      const s = new StreamRedactor(std, t % 3 === 0 ? 2000 : 256 * 1024, 4096, SECRETLINT_SCANNER);
      for (let at = 0; at < text.length;) {
        const next = at + 1 + Math.floor(rand() * 7000);
        const chunk = text.slice(at, next);
        const out = s.push(chunk, latin1(chunk));
        expect(s.companionMatches, `push ${t}/${at}`).toEqual(referenceFindAll(SECRETLINT_SCANNER.words, out));
        at = next;
      }
      const last = s.end();
      expect(s.companionMatches).toEqual(referenceFindAll(SECRETLINT_SCANNER.words, last));
    }
  });
});

/**
 * The kernel's word loops (`words`: 16 characters at a time with SIMD, slots found by swizzle lookups in the slot
 * sets; `wordsScalar`: one character at a time) against scanText's JavaScript loop, offset for offset: random
 * Latin-1 bytes (every byte value, upper case), trigger and anchor words placed at the 16-character block edges, at
 * `from` and ending at the last character, every `from` near a block edge, the real starts tables and random ones
 * (dense, to make every fold and slot count), and too little room for the offsets (-1).
 */
describe('the kernel word loops against the JavaScript loop', () => {
  const fold = foldTable();
  /** scanText's hot loop (and LiteralScanner.findAll's): offsets i in [from, n) whose key has a non-zero slot. */
  function jsHits(b: Uint8Array, from: number, either: Uint8Array): number[] {
    return jsKeyed(b, from, either).map(([i]) => i);
  }
  /** jsHits with each offset's key. */
  function jsKeyed(b: Uint8Array, from: number, either: Uint8Array): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    let key = 0;
    for (let i = from; i < b.length; i++) {
      key = ((key << 7) | (fold[b[i] as number] as number)) & 0x1fffff;
      if (either[slotOf(key)] !== 0) out.push([i, key]);
    }
    return out;
  }
  /** The folded characters at i + 1 and i + 2 as the kernel pairs them (fourth | fifth << 8; 0 past the end). */
  const pairAfter = (b: Uint8Array, i: number) =>
    (i + 1 < b.length ? (fold[b[i + 1] as number] as number) : 0) | ((i + 2 < b.length ? (fold[b[i + 2] as number] as number) : 0) << 8);
  /** Whether the next two characters' table `next2` (see slotNext2) lets offset i of slot `slot` through. */
  function next2Passes(b: Uint8Array, i: number, slot: number, next2: Uint16Array): boolean {
    const pair = pairAfter(b, i);
    for (let k = 0; k < 4; k++) if ((((next2[slot * 8 + k] as number) ^ pair) & (next2[slot * 8 + 4 + k] as number)) === 0) return true;
    return false;
  }
  /**
   * What the kernel reports with the exact keys `keys` and the next two characters `next2`: jsHits without the
   * offsets whose key is not their slot's, or whose next two characters pass none of the slot's pairs.
   */
  function exactHits(b: Uint8Array, from: number, either: Uint8Array, keys: Int32Array, next2: Uint16Array = ANY_NEXT2): number[] {
    return jsKeyed(b, from, either)
      .filter(([i, key]) => (keys[slotOf(key)] === key || keys[slotOf(key)] === -1) && next2Passes(b, i, slotOf(key), next2))
      .map(([i]) => i);
  }
  /**
   * The starts of `words`, found independently of slotKeys and slotNext2: the offsets of jsHits whose three
   * characters are the first three (lower-case) of some word, or whose slot is shared by the starts of several
   * words, and whose next two characters continue some word of the slot (any when a word of the slot has three
   * characters or the slot's words continue in more than four ways).
   */
  function wordStartHits(b: Uint8Array, from: number, either: Uint8Array, words: readonly string[]): number[] {
    const keyOfWord = (w: string) => [...w.slice(0, 3).toLowerCase()].reduce((k, ch) => (k << 7) | ch.charCodeAt(0), 0);
    const starts = new Set(words.map(keyOfWord));
    const perSlot = new Map<number, number>();
    for (const key of starts) perSlot.set(slotOf(key), (perSlot.get(slotOf(key)) ?? 0) + 1);
    const slotWords = new Map<number, string[]>();
    for (const w of words) slotWords.set(slotOf(keyOfWord(w)), [...(slotWords.get(slotOf(keyOfWord(w))) ?? []), w.toLowerCase()]);
    const continues = (i: number, key: number) => {
      const ws = slotWords.get(slotOf(key)) ?? [];
      if (ws.some((w) => w.length === 3) || new Set(ws.map((w) => w.slice(3, 5))).size > 4) return true;
      const next = (k: number) => (i + k < b.length ? String.fromCharCode(fold[b[i + k] as number] as number) : '');
      return ws.some((w) => w[3] === next(1) && (w.length === 4 || w[4] === next(2)));
    };
    return jsKeyed(b, from, either)
      .filter(([i, key]) => (starts.has(key) || (perSlot.get(slotOf(key)) ?? 0) > 1) && continues(i, key))
      .map(([i]) => i);
  }
  const keyOf = (a: number, b: number, c: number) => ((fold[a] as number) << 14) | ((fold[b] as number) << 7) | (fold[c] as number);
  const union = (...tables: Uint8Array[]) => {
    const u = new Uint8Array(4096);
    tables.forEach((t, k) => t.forEach((v, i) => (u[i] = (u[i] as number) | (v !== 0 ? 1 << k : 0))));
    return u;
  };
  const triggerScanner = new LiteralScanner(TRIGGER_WORDS);
  const triggerStarts = triggerScanner.starts;
  /** The real starts tables: the trigger words and the final scan's anchors (as scanLatin1), the trigger words alone. */
  const realTables: Array<{ either: Uint8Array; keys: Int32Array; next2: Uint16Array; words: readonly string[] }> = [
    { either: union(triggerStarts, SECRETLINT_SCANNER.starts), lists: [triggerScanner, SECRETLINT_SCANNER] as const },
    { either: union(triggerStarts), lists: [triggerScanner, null] },
  ].map(({ either, lists }) => ({
    either,
    keys: slotKeys(either, lists),
    next2: slotNext2(either, lists),
    words: lists.flatMap((l) => (l ? l.words : [])),
  }));
  const words = [...TRIGGER_WORDS, ...SECRETLINT_SCANNER.words];
  /** No exact keys: every offset of a non-zero slot passes. */
  const ANY_KEY = new Int32Array(4096).fill(-1);

  /**
   * A starts table of up to 8 non-zero slots per bucket (the slot sets fit): slots of keys that occur in `b`, with
   * exact keys: mostly the key that occurs, else -1 (any) or another key of the slot (that is then never reported);
   * and next two characters: one to four pairs, mostly those after an occurrence of the key (also past the text's
   * end), masks of both characters or the fourth only, random pairs, or none (any).
   */
  function denseTable(rand: () => number, b: Uint8Array): { either: Uint8Array; keys: Int32Array; next2: Uint16Array } {
    const t = new Uint8Array(4096);
    const keys = new Int32Array(4096);
    const next2 = new Uint16Array(4096 * 8);
    const perBucket = new Array<number>(16).fill(0);
    for (let k = 0; k < 200 && b.length >= 3; k++) {
      const i = Math.floor(rand() * (b.length - 2));
      const key = keyOf(b[i] as number, b[i + 1] as number, b[i + 2] as number);
      const slot = slotOf(key);
      if (t[slot] === 0 && (perBucket[slot >> 8] as number) < 8) {
        t[slot] = 1 + Math.floor(rand() * 3);
        const r = rand();
        keys[slot] = r < 0.7 ? key : r < 0.85 ? -1 : key ^ (1 << Math.floor(rand() * 21));
        perBucket[slot >> 8]!++;
        if (rand() < 0.2) continue;
        const lanes = 1 + Math.floor(rand() * 4);
        for (let lane = 0; lane < 4; lane++) {
          const l = Math.min(lane, lanes - 1);
          const q = rand();
          const pair = q < 0.7 ? pairAfter(b, i + 2) : Math.floor(rand() * 65536);
          next2[slot * 8 + lane] = lane < lanes ? pair : (next2[slot * 8 + l] as number);
          next2[slot * 8 + 4 + lane] = lane < lanes ? (rand() < 0.6 ? 0xffff : rand() < 0.8 ? 0x00ff : 0) : (next2[slot * 8 + 4 + l] as number);
        }
      }
    }
    return { either: t, keys, next2 };
  }

  /** Random Latin-1 bytes: words (any case) at block edges relative to `from`, at the start and the end, any byte. */
  function randomText(rand: () => number, from: number, n: number): Uint8Array {
    const b = new Uint8Array(n);
    const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=:/ \n';
    for (let i = 0; i < n; i++) {
      const r = rand();
      b[i] = r < 0.6 ? alphabet.charCodeAt(Math.floor(rand() * alphabet.length)) : r < 0.8 ? 128 + Math.floor(rand() * 128) : Math.floor(rand() * 128);
    }
    const put = (at: number) => {
      const w = mixCase(rand, pick(rand, words));
      for (let k = 0; k < w.length && at + k < n; k++) if (at + k >= 0) b[at + k] = w.charCodeAt(k);
    };
    for (let k = 0; k < 1 + n / 12; k++) {
      const edge = from + 16 * Math.floor(rand() * (1 + (n - from) / 16));
      put(edge + Math.floor(rand() * 5) - 2 - (rand() < 0.5 ? 2 : 0));
    }
    put(from);
    put(n - 3);
    if (rand() < 0.3) put(from - 1);
    return b;
  }

  function check(b: Uint8Array, from: number, either: Uint8Array, keys: Int32Array, label: string, next2: Uint16Array = ANY_NEXT2): number[] {
    const expected = exactHits(b, from, either, keys, next2);
    expect(kernelWordsForTests(b, from, either, keys, 'wordsScalar', b.length, next2), label).toEqual(expected);
    expect(kernelWordsForTests(b, from, either, keys, 'words', b.length, next2), label).toEqual(expected);
    return expected;
  }

  it('the same offsets on random texts, every from near a block edge, real and dense starts tables', () => {
    const rand = prng(4711);
    let hits = 0;
    let reported = 0;
    let dropped = 0;
    let droppedNext2 = 0;
    for (let t = 0; t < 2500; t++) {
      const n = t % 50 === 0 ? 2000 + Math.floor(rand() * 3000) : Math.floor(rand() * 120);
      const r = rand();
      const from = r < 0.3 ? 0 : r < 0.4 ? n : r < 0.5 ? Math.max(0, n - 1 - Math.floor(rand() * 3)) : Math.floor(rand() * (n + 1));
      const b = randomText(rand, from, n);
      const label = `text ${t} from ${from}: ${JSON.stringify(Buffer.from(b).toString('latin1')).slice(0, 300)}`;
      for (const { either, keys, next2 } of [...realTables, denseTable(rand, b)]) {
        const all = jsHits(b, from, either).length;
        const keyed = check(b, from, either, keys, label).length;
        const got = check(b, from, either, keys, label, next2).length;
        // Without exact keys: every offset of a non-zero slot (the loops' hash lookup alone).
        expect(kernelWordsForTests(b, from, either, ANY_KEY, 'words'), label).toEqual(jsHits(b, from, either));
        hits += all;
        reported += got;
        dropped += all - keyed;
        droppedNext2 += keyed - got;
      }
      // With the real tables: exactly the offsets where the three characters start one of the words and the next
      // two continue one.
      for (const { either, keys, next2, words: w } of realTables) {
        expect(kernelWordsForTests(b, from, either, keys, 'words', b.length, next2), label).toEqual(wordStartHits(b, from, either, w));
      }
    }
    // The texts do hit (hundreds of thousands of offsets compared), and the exact keys and the next two characters
    // drop some, not all.
    expect(hits).toBeGreaterThan(100000);
    expect(reported).toBeGreaterThan(20000);
    expect(dropped).toBeGreaterThan(10000);
    expect(droppedNext2).toBeGreaterThan(10000);
  });

  it("the real tables' next two characters drop the near misses of log text, not the words (also at the text's end)", () => {
    const { either, keys, next2 } = realTables[0]!;
    const words = (text: string) =>
      (kernelWordsForTests(latin1(text), 0, either, keys, 'words', text.length, next2) as number[]).map((i) => text.slice(i - 2, i + 3));
    // `net use`, `net.exe`, `credential`, `ConvertTo-SecureString`, `token`, `key` (three characters: any next).
    const log = 'I0612 Subnet added via network; Policy creation; "ContainerStarted" tokens= net use x NET.EXE Credential ConvertTo-SecureString key';
    expect(words(log)).toEqual(['token', 'net u', 'NET.E', 'Crede', 'Conve', 'key']);
    // The kernel sees only the bytes it is given: a word cut by the text's end is no hit, a three-character word is.
    for (const [text, found] of [
      ['xx net', []],
      ['xx net ', []],
      ['xx net u', ['net u']],
      ['xx tok', []],
      ['xx toke', []],
      ['xx key', ['key']],
      ['....pas', []],
      // `pass` has four characters: any fifth, also none.
      ['....pass', ['pass']],
      ['....passw', ['passw']],
    ] as Array<[string, string[]]>) {
      // Every position relative to the 16-character blocks (the SIMD loop and its one-character tail).
      for (let pad = 0; pad < 20; pad++) {
        const t = '.'.repeat(pad) + text;
        expect(words(t), JSON.stringify(t)).toEqual(found);
        expect(kernelWordsForTests(latin1(t), 0, either, keys, 'wordsScalar', t.length, next2), JSON.stringify(t)).toEqual(
          kernelWordsForTests(latin1(t), 0, either, keys, 'words', t.length, next2),
        );
      }
    }
  });

  it('folds every byte value as foldTable does, in every lane', () => {
    for (let c = 0; c < 256; c++) {
      for (const other of [0x41, 0x61, 0x7a, 0x5a, 0x20, 0xc4, 0x30]) {
        // One non-zero slot: that of the three characters c, c, other; the text holds them in every lane.
        const either = new Uint8Array(4096);
        const key = keyOf(c, c, other);
        either[slotOf(key)] = 1;
        // The exact key: the lanes' keys are compared too.
        const keys = new Int32Array(4096);
        keys[slotOf(key)] = key;
        const b = new Uint8Array(70);
        for (let i = 0; i < b.length; i++) b[i] = i % 3 === 2 ? other : c;
        for (const from of [0, 1, 2, 5]) {
          check(b, from, either, keys, `byte ${c}, ${other}, from ${from}`);
          check(b, from, either, ANY_KEY, `byte ${c}, ${other}, from ${from}, any key`);
        }
        expect((kernelWordsForTests(b, 0, either, keys, 'words') as number[]).length).toBeGreaterThan(15);
      }
    }
  });

  it('returns -1 exactly when the offsets do not fit in `cap`, in both loops', () => {
    const rand = prng(77);
    for (let t = 0; t < 400; t++) {
      const n = 1 + Math.floor(rand() * 200);
      const from = Math.floor(rand() * n);
      const b = randomText(rand, from, n);
      const { either, keys, next2 } = rand() < 0.5 ? realTables[0]! : denseTable(rand, b);
      const table = rand() < 0.5 ? next2 : ANY_NEXT2;
      const expected = exactHits(b, from, either, keys, table);
      for (const loop of ['words', 'wordsScalar'] as const) {
        expect(kernelWordsForTests(b, from, either, keys, loop, expected.length, table), `${t} ${loop}`).toEqual(expected);
        if (expected.length > 0) expect(kernelWordsForTests(b, from, either, keys, loop, expected.length - 1, table), `${t} ${loop}`).toBe(-1);
        if (expected.length > 16)
          expect(kernelWordsForTests(b, from, either, keys, loop, Math.floor(rand() * expected.length), table), `${t} ${loop}`).toBe(-1);
      }
    }
  });

  it('reports a NUL byte in text[from, n) in the same pass (both loops, kernelScan): at every offset near block edges, none before `from`', () => {
    const rand = prng(909);
    let withNul = 0;
    for (let t = 0; t < 1500; t++) {
      const n = t % 40 === 0 ? 1000 + Math.floor(rand() * 2000) : 1 + Math.floor(rand() * 100);
      const from = rand() < 0.3 ? 0 : Math.floor(rand() * n);
      const b = randomText(rand, from, n);
      for (let i = 0; i < n; i++) if (b[i] === 0) b[i] = 1;
      // No NUL, one NUL (anywhere: before `from`, at it, at block edges, in the last block, the last byte), or two.
      const r = rand();
      const at = (): number => {
        const k = rand();
        if (k < 0.2 || n - from < 1) return Math.floor(rand() * n);
        if (k < 0.4) return n - 1 - Math.floor(rand() * Math.min(16, n - from));
        if (k < 0.5) return from - 1 - Math.floor(rand() * 3);
        const edge = from + 16 * Math.floor(rand() * (1 + (n - from) / 16));
        return edge + Math.floor(rand() * 3) - 1;
      };
      if (r > 0.25)
        for (let k = r > 0.85 ? 2 : 1; k > 0; k--) {
          const i = at();
          if (i >= 0 && i < n) b[i] = 0;
        }
      const expected = b.subarray(from).includes(0);
      if (expected) withNul++;
      const label = `text ${t} n ${n} from ${from} NUL at ${[...b.keys()].filter((i) => b[i] === 0)}`;
      const { either, keys } = t % 2 === 0 ? realTables[0]! : denseTable(rand, b);
      expect(kernelNulForTests(b, from, either, keys, 'wordsScalar'), label).toBe(expected);
      expect(kernelNulForTests(b, from, either, keys, 'words'), label).toBe(expected);
      expect(kernelScan([b], n, from, either, [])?.nul, label).toBe(expected);
    }
    expect(withNul).toBeGreaterThan(500);
    expect(withNul).toBeLessThan(1400);
  });

  it('counts a byte in any range of its text (kernelCount), at every alignment, over many rounds of 255 blocks', () => {
    const rand = prng(5150);
    for (let t = 0; t < 600; t++) {
      const n = t % 30 === 0 ? 20000 + Math.floor(rand() * 60000) : Math.floor(rand() * 300);
      const b = kernelText(n) as Uint8Array;
      // Line breaks mostly, runs of them, other bytes, and every byte value now and then (255 is -1 as a lane).
      for (let i = 0; i < n; i++) {
        const r = rand();
        b[i] = r < 0.05 ? 10 : r < 0.1 ? 255 : r < 0.12 ? Math.floor(rand() * 256) : 97 + Math.floor(rand() * 26);
      }
      if (t % 7 === 0) b.fill(10, 0, Math.min(n, 9000));
      for (let k = 0; k < 6; k++) {
        const from = Math.floor(rand() * (n + 1));
        const to = from + Math.floor(rand() * (n - from + 1));
        for (const byte of [10, 255, 0]) {
          let expected = 0;
          for (let i = from; i < to; i++) if (b[i] === byte) expected++;
          expect(kernelCount(b, from, to, byte), `text ${t} [${from}, ${to}) byte ${byte}`).toBe(expected);
        }
      }
    }
    // Only the kernel's own text: another array, or a range outside the view, is not counted (-1).
    expect(kernelCount(new Uint8Array(100), 0, 100, 10)).toBe(-1);
    const b = kernelText(50) as Uint8Array;
    expect(kernelCount(b, 0, 51, 10)).toBe(-1);
    expect(kernelCount(b.subarray(1), 0, 10, 10)).toBe(-1);
  });

  it('kernelScan of a text written into kernelText: the offsets, runs and NUL flag of the same text given as pieces', () => {
    const rand = prng(6161);
    const { either, words: w } = realTables[0]!;
    const lists = [triggerScanner, SECRETLINT_SCANNER];
    for (let t = 0; t < 300; t++) {
      const n = t % 20 === 0 ? 30000 + Math.floor(rand() * 30000) : 1 + Math.floor(rand() * 2000);
      const from = rand() < 0.5 ? 0 : Math.floor(rand() * n);
      const text = randomText(rand, from, n);
      for (let k = 0; n > 30 && k < n / 200; k++) text.set(latin1(B64.slice(0, 30)), Math.floor(rand() * (n - 30)));
      const cut = Math.floor(rand() * n);
      const pieces = kernelScan([text.slice(0, cut), text.slice(cut)], n, from, either, lists);
      const expected = pieces && { hits: Array.from(pieces.hits), runs: pieces.runs, nul: pieces.nul };
      const inPlace = kernelText(n) as Uint8Array;
      inPlace.set(text);
      const got = kernelScan([inPlace], n, from, either, lists);
      expect(got && { hits: Array.from(got.hits), runs: got.runs, nul: got.nul }, `text ${t}`).toEqual(expected);
      // The text is still there (the scan did not grow the memory under the view).
      expect(inPlace.length).toBe(n);
      expect(Buffer.from(inPlace).equals(Buffer.from(text))).toBe(true);
      if (expected) expect(expected.hits).toEqual(wordStartHits(text, from, either, w));
    }
  });

  it('a starts table whose slot sets do not fit the SIMD loop is scanned by the one-character loop', () => {
    // Nine non-zero slots in one bucket: more than the 8 rounds.
    const either = new Uint8Array(4096);
    for (let k = 0; k < 9; k++) either[0x300 + k * 7] = 1;
    const rand = prng(3);
    const b = randomText(rand, 0, 3000);
    const keys = new Int32Array(4096);
    for (let k = 0; k < 9; k++) keys[0x300 + k * 7] = k % 2 === 0 ? -1 : 12345;
    expect(kernelWordsForTests(b, 0, either, keys, 'words')).toBeNull();
    expect(kernelWordsForTests(b, 0, either, keys, 'wordsScalar')).toEqual(exactHits(b, 0, either, keys));
    // ...and kernelScan (scanText's kernel) gives the same offsets then.
    const text = Buffer.from(b).toString('latin1');
    const k = kernelScan([b], b.length, 0, either, []);
    expect(k && Array.from(k.hits)).toEqual(jsHits(b, 0, either));
    expect(scanForRedaction(text, b)).toEqual(referenceScan(text));
  });

  it("scanText with the kernel finds the reference scans' words at block edges, at the start and at the end", () => {
    const rand = prng(2718);
    for (let t = 0; t < 1500; t++) {
      const n = 3 + Math.floor(rand() * 150);
      const b = randomText(rand, 0, n);
      const text = Buffer.from(b).toString('latin1');
      expect(scanForRedaction(text, b), JSON.stringify(text)).toEqual(referenceScan(text));
    }
  });
});
