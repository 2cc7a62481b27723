/**
 * A case-insensitive search for many short ASCII words at once (the redactor's trigger words, the final scan's
 * secretlint anchors). Case folding is that of `toLowerCase` (U+0130 counts as `i`, as it is folded by hand
 * first); words are ASCII and at least three characters long. No node:*, no DOM.
 *
 * `findAll` is one pass over the text's character codes with a rolling three-character key: a table says which
 * words start with those three (folded) characters, and only there are the words compared. It returns exactly
 * what one regular-expression alternation over a lower-cased copy returns (the first implementation, kept as the
 * reference of the equivalence tests in `test/unit/shared/logic/reference-scanners.ts`), several times faster on
 * log text: it runs over every byte of every log in a bundle.
 */

/** ASCII folding of every UTF-16 code unit: the lower-case ASCII code it matches, else 0 (matches no word). */
let FOLD: Uint8Array | null = null;
export function foldTable(): Uint8Array {
  if (FOLD) return FOLD;
  const t = new Uint8Array(65536);
  for (let c = 0; c < 65536; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const lower = String.fromCharCode(c).toLowerCase();
    if (lower.length === 1 && lower.charCodeAt(0) < 128) t[c] = lower.charCodeAt(0);
  }
  // The reference folds U+0130 to `i` by hand before lower-casing (its lower case is two characters).
  t[0x130] = 0x69;
  FOLD = t;
  return t;
}

const SLOTS = 4096;

/** The `starts` slot of a rolling three-character key. */
export function slotOf(key: number): number {
  return Math.imul(key, 0x9e3779b1) >>> 20;
}

export class LiteralScanner {
  private readonly index = new Map<string, number>();
  /** Distinct lower-case words in alternation order, their codes, and the word index each reports. */
  private readonly keys: string[];
  private readonly codes: Uint8Array[];
  private readonly reports: number[];
  /**
   * Hash of a three-character key (7 bits each, folded; see `slotOf`) -> bucket number + 1 (0: no word starts
   * so). Small enough to stay in the CPU's first-level cache; words whose starts share a slot share a bucket, and
   * `matchAt` compares whole words.
   */
  readonly starts = new Uint8Array(SLOTS);
  /** Per bucket: the key numbers starting with those three characters, in alternation order. */
  private readonly buckets: number[][] = [];

  /** Some word holds a line break (matches may then span lines). */
  readonly hasLineBreak: boolean;

  constructor(readonly words: readonly string[]) {
    this.hasLineBreak = words.some((w) => w.includes('\n'));
    words.forEach((w, i) => {
      const lower = w.toLowerCase();
      if (lower.length < 3 || lower.length > 255) throw new Error(`LiteralScanner: word "${w}" is not 3 to 255 characters long`);
      // eslint-disable-next-line no-control-regex
      if (/[^\x01-\x7f]/.test(lower)) throw new Error(`LiteralScanner: word "${w}" is not ASCII`);
      if (!this.index.has(lower)) this.index.set(lower, i);
    });
    this.keys = [...this.index.keys()];
    this.codes = this.keys.map((k) => Uint8Array.from(k, (ch) => ch.charCodeAt(0)));
    this.reports = this.keys.map((k) => this.index.get(k) as number);
    this.keys.forEach((_k, n) => {
      const c = this.codes[n] as Uint8Array;
      const key = slotOf(((c[0] as number) << 14) | ((c[1] as number) << 7) | (c[2] as number));
      let b = this.starts[key] as number;
      if (b === 0) {
        if (this.buckets.length >= 255) throw new Error('LiteralScanner: too many distinct word starts');
        this.buckets.push([]);
        b = this.buckets.length;
        this.starts[key] = b;
      }
      (this.buckets[b - 1] as number[]).push(n);
    });
  }

  /**
   * The first word of `bucket` (a non-zero `starts` entry for the three characters at `at`) that occurs at `at`,
   * as `wordIndex * 256 + length`, or -1. For scans fused with other per-character work (redact.ts).
   */
  matchAt(text: string, at: number, bucket: number): number {
    const fold = foldTable();
    for (const k of this.buckets[bucket - 1] as number[]) {
      const code = this.codes[k] as Uint8Array;
      const len = code.length;
      if (at + len > text.length) continue;
      let j = 0;
      while (j < len && fold[text.charCodeAt(at + j)] === code[j]) j++;
      if (j === len) return (this.reports[k] as number) * 256 + len;
    }
    return -1;
  }

  /** `matchAt` over Latin-1 bytes (one per character; `n` of them are the text). */
  matchAtBytes(bytes: Uint8Array, n: number, at: number, bucket: number): number {
    const fold = foldTable();
    for (const k of this.buckets[bucket - 1] as number[]) {
      const code = this.codes[k] as Uint8Array;
      const len = code.length;
      if (at + len > n) continue;
      let j = 0;
      while (j < len && fold[bytes[at + j] as number] === code[j]) j++;
      if (j === len) return (this.reports[k] as number) * 256 + len;
    }
    return -1;
  }

  /** `findAll` over Latin-1 bytes [from, to) (offsets relative to `from`). */
  findAllBytes(bytes: Uint8Array, from: number, to: number): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    const fold = foldTable();
    const starts = this.starts;
    let key = 0;
    let free = 0;
    for (let i = 0; i < to - from; i++) {
      key = ((key << 7) | (fold[bytes[from + i] as number] as number)) & 0x1fffff;
      const b = starts[slotOf(key)] as number;
      if (b === 0 || i < 2) continue;
      const at = i - 2;
      if (at < free) continue;
      const hit = this.matchAtBytes(bytes, to, from + at, b);
      if (hit >= 0) {
        out.push([at, hit >> 8]);
        free = at + (hit & 255);
      }
    }
    return out;
  }

  /** Every non-overlapping match, leftmost first (at one offset, the word listed first): `[offset, wordIndex]`. */
  findAll(text: string): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    const fold = foldTable();
    const starts = this.starts;
    const n = text.length;
    let key = 0;
    // The next offset a match may start at (matches do not overlap).
    let free = 0;
    for (let i = 0; i < n; i++) {
      key = ((key << 7) | (fold[text.charCodeAt(i)] as number)) & 0x1fffff;
      const b = starts[slotOf(key)] as number;
      if (b === 0 || i < 2) continue;
      const at = i - 2;
      if (at < free) continue;
      const hit = this.matchAt(text, at, b);
      if (hit >= 0) {
        out.push([at, hit >> 8]);
        free = at + (hit & 255);
      }
    }
    return out;
  }

  /** True when any word occurs in text. */
  test(text: string): boolean {
    return this.findAll(text).length > 0;
  }
}
