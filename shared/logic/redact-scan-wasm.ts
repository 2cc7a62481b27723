import { base64Decode } from './redact-codec';
import { REDACT_SCAN_KERNEL_WASM } from './redact-scan-kernel';
import { foldTable, slotOf } from './redact-scan';

/**
 * The WebAssembly kernel of redact.ts' scanText (redact-scan-kernel.wat): the word loop and the base64 runs of a
 * Latin-1 text (one byte per character) given as its bytes. About ten times faster than the same loops in
 * JavaScript on log text (they are latency-bound there), and they run over every byte of every log of a bundle.
 * The word loop takes 16 characters at a time with WebAssembly SIMD (`words`: about 0.9 ns per byte of log text
 * against 1.8 for the one-character loop `wordsScalar`, measured with bench/scan-kernel.mjs). Both report only
 * offsets whose three characters are the exact start of some word (the slot's exact key, `slotKeys`), not every
 * hash collision of the starts table, and only those whose next two characters continue some word of the slot
 * (`slotNext2`): on the bench's logs 10 offsets per MiB for the caller to check instead of 7.2k. `kernelScan`
 * returns null whenever it cannot answer (no WebAssembly or no SIMD: the module does not compile; a text too
 * large, more hits than its arrays hold): the caller then scans in JavaScript, with the same result. No node:*,
 * no DOM.
 */

/** The little of the WebAssembly API used here (shared/ compiles without DOM or Node types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

interface KernelExports {
  memory: WasmMemory;
  words(text: number, from: number, n: number, out: number, cap: number): number;
  wordsScalar(text: number, from: number, n: number, out: number, cap: number): number;
  runs(text: number, from: number, n: number, out: number, cap: number): number;
  count(text: number, from: number, to: number, byte: number): number;
}

const FOLD_AT = 0;
const B64_AT = 256;
/** `words`' slot sets (see redact-scan-kernel.wat): 8 rounds of 16 buckets, then which buckets have any. */
const SLOT_SETS_AT = 512;
const SLOT_SET_ROUNDS = 8;
const EITHER_AT = 1024;
/** Where `words` and `wordsScalar` write whether the text they scanned holds a NUL byte (i32). */
const NUL_AT = 960;
/** The exact key of each slot (i32; see `slotKeys`). */
const KEYS_AT = 8192;
/** The next two characters of each slot's words (16 bytes per slot; see `slotNext2`). */
const NEXT2_AT = 24576;
const TEXT_AT = 90112;
/** Larger texts are scanned in JavaScript (the kernel's memory never shrinks). */
const KERNEL_TEXT_MAX = 8 * 1024 * 1024;

let kernel: KernelExports | null | undefined;
/** The starts table and exact keys last copied into the kernel's memory, and whether its slot sets fit `words`' rounds. */
let loadedEither: Uint8Array | null = null;
let loadedKeys: Int32Array | null = null;
let loadedNext2: Uint16Array | null = null;
let slotSetsFit = false;

function load(): KernelExports | null {
  if (kernel !== undefined) return kernel;
  try {
    const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    const bytes = base64Decode(REDACT_SCAN_KERNEL_WASM);
    if (!wasm || !bytes) return (kernel = null);
    const instance = new wasm.Instance(new wasm.Module(bytes), {});
    const k = instance.exports as unknown as KernelExports;
    const mem = new Uint8Array(k.memory.buffer);
    const fold = foldTable();
    for (let c = 0; c < 256; c++) mem[FOLD_AT + c] = fold[c] as number;
    for (let c = 48; c <= 57; c++) mem[B64_AT + c] = 1;
    mem[B64_AT + 43] = 1;
    mem[B64_AT + 47] = 1;
    for (let c = 65; c <= 90; c++) mem[B64_AT + c] = 2;
    for (let c = 97; c <= 122; c++) mem[B64_AT + c] = 4;
    kernel = k;
  } catch {
    kernel = null;
  }
  return kernel;
}

/** For the tests: scan in JavaScript only (`false`) or with the kernel again (`true`). */
export function setScanKernelEnabled(enabled: boolean): void {
  kernel = enabled ? undefined : null;
  loadedEither = null;
  loadedKeys = null;
  loadedNext2 = null;
}

/** A word list whose starts are in a starts table (a LiteralScanner; null: none). */
export type StartWords = { readonly words: readonly string[] } | null;

/** `slotKeys`' last answers per starts table, with the word lists they were made of. */
const SLOT_KEYS = new WeakMap<Uint8Array, { lists: readonly StartWords[]; keys: Int32Array }>();

/**
 * The exact keys of a starts table whose words are those of `lists` (as LiteralScanner builds it: a word's slot is
 * slotOf of its first three lower-case characters, 7 bits each): per slot, the one key the words of that slot start
 * with, or -1 (any key passes) when several do. Offsets whose key is not their slot's exact key cannot start a word:
 * the kernel does not report them. `lists` must hold every word of the table; when a non-zero slot of `either` is
 * the start of none of them (the table is not made of these words), every slot is -1: nothing is dropped.
 */
export function slotKeys(either: Uint8Array, lists: readonly StartWords[]): Int32Array {
  const cached = SLOT_KEYS.get(either);
  if (cached && cached.lists.length === lists.length && cached.lists.every((l, i) => l === lists[i])) return cached.keys;
  const keys = new Int32Array(4096).fill(-1);
  const seen = new Uint8Array(4096);
  for (const list of lists) {
    for (const w of list ? list.words : []) {
      const lower = w.toLowerCase();
      const key = (lower.charCodeAt(0) << 14) | (lower.charCodeAt(1) << 7) | lower.charCodeAt(2);
      const slot = slotOf(key);
      if (seen[slot] === 0) keys[slot] = key;
      else if (keys[slot] !== key) keys[slot] = -1;
      seen[slot] = 1;
    }
  }
  if (either.some((v, slot) => v !== 0 && seen[slot] === 0)) keys.fill(-1);
  SLOT_KEYS.set(either, { lists: [...lists], keys });
  return keys;
}

/** `slotNext2`' last answers per starts table, with the word lists they were made of. */
const SLOT_NEXT2 = new WeakMap<Uint8Array, { lists: readonly StartWords[]; next2: Uint16Array }>();

/** Up to this many pairs of next characters per slot (`slotNext2`). */
const NEXT2_LANES = 4;

/** No check of the next two characters: every slot's masks 0 (any). */
export const ANY_NEXT2 = new Uint16Array(4096 * 2 * NEXT2_LANES);

/**
 * The next two characters of a starts table whose words are those of `lists` (as `slotKeys`), 8 i16 per slot: the
 * lower-case fourth and fifth characters (fourth | fifth << 8) of the words starting in that slot (whatever their
 * first three), up to four (the first repeated to fill), then a mask per pair (0xffff; 0x00ff for a word of four
 * characters); all masks 0 (any) when a word of the slot has three characters or there are more than four pairs. The
 * kernel does not report an offset whose next two characters match no pair (under its mask; a character past the
 * text's end matches none): no word of its slot can start there. Log text has many near misses of the trigger
 * words' first three characters (`network`, `Subnet added`, `creation`, `ContainerStarted` for `net use`,
 * `credential`, `convertto-securestring`). Every mask 0 (nothing dropped) when a non-zero slot of `either` is the
 * start of none of the words.
 */
export function slotNext2(either: Uint8Array, lists: readonly StartWords[]): Uint16Array {
  const cached = SLOT_NEXT2.get(either);
  if (cached && cached.lists.length === lists.length && cached.lists.every((l, i) => l === lists[i])) return cached.next2;
  // Per slot: pair -> mask, or null (any).
  const sets = new Map<number, Map<number, number> | null>();
  for (const list of lists) {
    for (const w of list ? list.words : []) {
      const lower = w.toLowerCase();
      const slot = slotOf((lower.charCodeAt(0) << 14) | (lower.charCodeAt(1) << 7) | lower.charCodeAt(2));
      let set = sets.has(slot) ? (sets.get(slot) as Map<number, number> | null) : new Map<number, number>();
      if (set && lower.length === 3) set = null;
      if (set) {
        const pair = lower.length > 4 ? lower.charCodeAt(3) | (lower.charCodeAt(4) << 8) : lower.charCodeAt(3);
        set.set(pair, lower.length > 4 ? 0xffff : 0x00ff);
        if (set.size > NEXT2_LANES) set = null;
      }
      sets.set(slot, set);
    }
  }
  const next2 = new Uint16Array(4096 * 2 * NEXT2_LANES);
  if (!either.some((v, slot) => v !== 0 && !sets.has(slot))) {
    for (const [slot, set] of sets) {
      if (!set) continue;
      const pairs = [...set];
      for (let k = 0; k < NEXT2_LANES; k++) {
        const [pair, mask] = pairs[Math.min(k, pairs.length - 1)] as [number, number];
        next2[slot * 2 * NEXT2_LANES + k] = pair;
        next2[slot * 2 * NEXT2_LANES + NEXT2_LANES + k] = mask;
      }
    }
  }
  SLOT_NEXT2.set(either, { lists: [...lists], next2 });
  return next2;
}

/**
 * Writes `words`' slot sets of a starts table into the kernel's memory (layout in redact-scan-kernel.wat): per
 * bucket (a slot's top 4 bits), the low 8 bits of its non-zero slots, one per round. False (nothing written) when
 * a bucket has more non-zero slots than there are rounds: `wordsScalar` then scans (the same offsets).
 */
export function writeSlotSets(mem: Uint8Array, either: Uint8Array): boolean {
  const buckets: number[][] = Array.from({ length: 16 }, () => []);
  for (let slot = 0; slot < 4096; slot++) if (either[slot] !== 0) (buckets[slot >> 8] as number[]).push(slot & 255);
  if (buckets.some((b) => b.length > SLOT_SET_ROUNDS)) return false;
  buckets.forEach((b, bucket) => {
    for (let r = 0; r < SLOT_SET_ROUNDS; r++) mem[SLOT_SETS_AT + 16 * r + bucket] = b.length > 0 ? (b[Math.min(r, b.length - 1)] as number) : 0;
    mem[SLOT_SETS_AT + 16 * SLOT_SET_ROUNDS + bucket] = b.length > 0 ? 255 : 0;
  });
  return true;
}

export interface KernelScan {
  /** Offsets noted by the word loop (see scanText), `count` of them; a view of the kernel's memory. */
  hits: Int32Array;
  count: number;
  runs: Array<[number, number]>;
  /** text[from, n) holds a NUL byte (found by the word loop in its pass). */
  nul: boolean;
}

/** The kernel's memory grown for a text of `n` bytes and the arrays after it, `either`, `keys` and `next2` loaded: where they are. */
function prepare(
  k: KernelExports,
  n: number,
  either: Uint8Array,
  keys: Int32Array,
  next2: Uint16Array,
  hitsCap: number,
  runsCap: number,
): { mem: Uint8Array; hitsAt: number; runsAt: number } {
  const hitsAt = (TEXT_AT + n + 7) & ~7;
  const runsAt = hitsAt + hitsCap * 4;
  const need = runsAt + runsCap * 8;
  if (k.memory.buffer.byteLength < need) k.memory.grow(Math.ceil((need - k.memory.buffer.byteLength) / 65536));
  const mem = new Uint8Array(k.memory.buffer);
  if (loadedEither !== either) {
    mem.set(either, EITHER_AT);
    slotSetsFit = writeSlotSets(mem, either);
    loadedEither = either;
  }
  if (loadedKeys !== keys) {
    new Int32Array(k.memory.buffer, KEYS_AT, 4096).set(keys);
    loadedKeys = keys;
  }
  if (loadedNext2 !== next2) {
    new Uint16Array(k.memory.buffer, NEXT2_AT, next2.length).set(next2);
    loadedNext2 = next2;
  }
  return { mem, hitsAt, runsAt };
}

// Log text has a hit every ~80 characters and a kept base64 run every few hundred; more (hostile text) is scanned
// in JavaScript instead. Small arrays keep the memory (RSS) of each worker small.
const hitsCapOf = (span: number) => Math.min(span, (span >> 4) + 4096);
const runsCapOf = (span: number) => (span >> 5) + 64;

function isKernelText(k: KernelExports, b: Uint8Array): boolean {
  return b.buffer === k.memory.buffer && b.byteOffset === TEXT_AT;
}

/**
 * Where the kernel reads a text of `n` bytes: a view of its memory (the memory grown for any `kernelScan` of that
 * text, so none of them grows it), or null (no kernel, a text too large). A caller that writes its text there and
 * hands the view to `kernelScan` as its one piece saves the copy into the kernel's memory. The view is valid until
 * the next call of this module's functions with another text (one thread's kernel is shared by all its callers):
 * use it synchronously.
 */
export function kernelText(n: number): Uint8Array | null {
  if (n > KERNEL_TEXT_MAX) return null;
  const k = load();
  if (!k) return null;
  const need = ((TEXT_AT + n + 7) & ~7) + hitsCapOf(n) * 4 + runsCapOf(n) * 8;
  if (k.memory.buffer.byteLength < need) k.memory.grow(Math.ceil((need - k.memory.buffer.byteLength) / 65536));
  return new Uint8Array(k.memory.buffer, TEXT_AT, n);
}

/** How many bytes of b[from, to) are `byte`, counted by the kernel when `b` is `kernelText`'s view; else -1. */
export function kernelCount(b: Uint8Array, from: number, to: number, byte: number): number {
  const k = kernel;
  if (!k || !isKernelText(k, b) || from < 0 || to > b.length || from > to) return -1;
  return k.count(TEXT_AT, from, to, byte);
}

/**
 * The word-loop offsets (the starts table `either`, of the words of `lists`; only offsets whose three characters
 * start one of those words, see `slotKeys`, and whose next two characters may be theirs, see `slotNext2`) and base64 runs of text[from, n), where `pieces` joined are the text's
 * Latin-1 bytes (`n` of them). The result's `hits` is valid until the next call.
 */
export function kernelScan(pieces: readonly Uint8Array[], n: number, from: number, either: Uint8Array, lists: readonly StartWords[]): KernelScan | null {
  if (n > KERNEL_TEXT_MAX || either.length !== 4096) return null;
  const k = load();
  if (!k) return null;
  let total = 0;
  for (const p of pieces) total += p.length;
  if (total !== n) return null;
  const span = n - from;
  const hitsCap = hitsCapOf(span);
  const runsCap = runsCapOf(span);
  const inPlace = pieces.length === 1 && isKernelText(k, pieces[0] as Uint8Array);
  const { mem, hitsAt, runsAt } = prepare(k, n, either, slotKeys(either, lists), slotNext2(either, lists), hitsCap, runsCap);
  // A text written into kernelText's view is where the kernel reads it (prepare did not grow the memory: kernelText did).
  // Had it grown, the view would be detached (length 0) and its text lost: fail loudly rather than scan garbage.
  if (inPlace && (pieces[0] as Uint8Array).length !== n) throw new Error('kernelScan: the kernelText view was detached by a memory growth');
  let at = TEXT_AT;
  for (const p of inPlace ? [] : pieces) {
    mem.set(p, at);
    at += p.length;
  }
  const count = (slotSetsFit ? k.words : k.wordsScalar)(TEXT_AT, from, n, hitsAt, hitsCap);
  if (count < 0) return null;
  const runCount = k.runs(TEXT_AT, from, n, runsAt, runsCap);
  if (runCount < 0) return null;
  const view = new Int32Array(k.memory.buffer);
  const runs: Array<[number, number]> = [];
  for (let r = 0, o = runsAt >> 2; r < runCount; r++, o += 2) runs.push([view[o] as number, view[o + 1] as number]);
  return { hits: view.subarray(hitsAt >> 2, (hitsAt >> 2) + count), count, runs, nul: view[NUL_AT >> 2] !== 0 };
}

/**
 * For the tests: the word-loop offsets of bytes[from, n) by one of the kernel's two loops (`words`: 16 characters
 * at a time, only when the slot sets of `either` fit; `wordsScalar`: one at a time) with the exact keys `keys`
 * (see `slotKeys`) and next two characters `next2` (see `slotNext2`; default none checked), with room for `cap`
 * of them; -1 when more; null without a kernel or when `words` cannot take `either`.
 */
export function kernelWordsForTests(
  bytes: Uint8Array,
  from: number,
  either: Uint8Array,
  keys: Int32Array,
  loop: 'words' | 'wordsScalar',
  cap = bytes.length,
  next2: Uint16Array = ANY_NEXT2,
): number[] | -1 | null {
  const k = load();
  if (!k) return null;
  const { mem, hitsAt } = prepare(k, bytes.length, either, keys, next2, cap, 0);
  if (loop === 'words' && !slotSetsFit) return null;
  mem.set(bytes, TEXT_AT);
  const count = k[loop](TEXT_AT, from, bytes.length, hitsAt, cap);
  return count < 0 ? -1 : Array.from(new Int32Array(k.memory.buffer, hitsAt, count));
}

/** For the tests: whether one of the kernel's two loops reports a NUL byte in bytes[from, n) (null as kernelWordsForTests). */
export function kernelNulForTests(bytes: Uint8Array, from: number, either: Uint8Array, keys: Int32Array, loop: 'words' | 'wordsScalar'): boolean | null {
  const k = load();
  if (!k) return null;
  const { mem, hitsAt } = prepare(k, bytes.length, either, keys, ANY_NEXT2, bytes.length, 0);
  if (loop === 'words' && !slotSetsFit) return null;
  mem.set(bytes, TEXT_AT);
  // A stale flag must not pass for this answer.
  new Int32Array(k.memory.buffer)[NUL_AT >> 2] = 7;
  if (k[loop](TEXT_AT, from, bytes.length, hitsAt, bytes.length) < 0) return null;
  const flag = new Int32Array(k.memory.buffer)[NUL_AT >> 2];
  if (flag !== 0 && flag !== 1) throw new Error(`the kernel wrote no NUL flag (${flag})`);
  return flag === 1;
}
