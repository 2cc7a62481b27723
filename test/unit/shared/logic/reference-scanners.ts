import type { TextScan, TextScanner } from '../../../../shared/logic/redact';
import { TRIGGER_WORDS } from '../../../../shared/logic/redact-patterns';
import type { LiteralScanner } from '../../../../shared/logic/redact-scan';

/**
 * The first, separate scans the redactor's fast path replaced, kept here (test code only) as the reference of the
 * equivalence tests in `redact-scan.test.ts`: a regular-expression alternation over a lower-cased copy for the
 * words (`LiteralScanner.findAll`'s reference), one plain loop for the base64 runs (`scanText`'s runs). Given to
 * the redactor as `RedactOptions.scanner` (`REFERENCE_SCANNER`), they make it redact with these scans only.
 */

const alternations = new Map<readonly string[], { regex: RegExp; index: Map<string, number> }>();

/** Every non-overlapping match of `words` (case-insensitive), leftmost first: `[offset, wordIndex]`. */
export function referenceFindAll(words: readonly string[], text: string): Array<[number, number]> {
  let compiled = alternations.get(words);
  if (!compiled) {
    const index = new Map<string, number>();
    words.forEach((w, i) => {
      const lower = w.toLowerCase();
      if (!index.has(lower)) index.set(lower, i);
    });
    const regex = new RegExp([...index.keys()].map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'g');
    compiled = { regex, index };
    alternations.set(words, compiled);
  }
  const out: Array<[number, number]> = [];
  // toLowerCase keeps offsets for everything but U+0130 (two characters); fold that one by hand first.
  const source = text.includes('\u0130') ? text.replace(/\u0130/g, 'i') : text;
  const lower = source.toLowerCase();
  if (lower.length !== text.length) return [[0, 0]];
  const re = new RegExp(compiled.regex.source, 'g');
  for (let m = re.exec(lower); m; m = re.exec(lower)) out.push([m.index, compiled.index.get(m[0]) as number]);
  return out;
}

/** Bit 1 = base64 alphabet (digits, `+`, `/`), 2 = upper-case letter, 4 = lower-case letter. */
function b64Bits(c: number): number {
  if ((c >= 48 && c <= 57) || c === 43 || c === 47) return 1;
  if (c >= 65 && c <= 90) return 2;
  if (c >= 97 && c <= 122) return 4;
  return 0;
}

const MAX_ENCODED_RUN_CHARS = 4 * 1024 * 1024;

/** Base64 runs (20+ characters counting up to two `=`, both letter cases, not part of a base64url/identifier word). */
export function referenceBase64Runs(text: string): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  const n = text.length;
  let start = -1;
  let bits = 0;
  for (let i = 0; i < n; i++) {
    const k = b64Bits(text.charCodeAt(i));
    if (k !== 0) {
      if (start < 0) {
        start = i;
        bits = 0;
      }
      bits |= k;
      continue;
    }
    if (start < 0) continue;
    let end = i;
    while (end < n && end - i < 2 && text.charCodeAt(end) === 61) end++;
    if (end - start >= 20 && (bits & 6) === 6 && end - start <= MAX_ENCODED_RUN_CHARS) {
      const before = start > 0 ? text.charCodeAt(start - 1) : 32;
      const after = end < n ? text.charCodeAt(end) : 32;
      if (before !== 45 && before !== 95 && after !== 45 && after !== 95) runs.push([start, end]);
    }
    start = -1;
    // The `=` padding taken is not part of the next run (the next character starts it at the earliest).
    if (end > i) i = end - 1;
  }
  if (start >= 0 && n - start >= 20 && (bits & 6) === 6 && n - start <= MAX_ENCODED_RUN_CHARS) {
    const before = start > 0 ? text.charCodeAt(start - 1) : 32;
    if (before !== 45 && before !== 95) runs.push([start, n]);
  }
  return runs;
}

/** The trigger words and base64 runs of a text by the reference scans (compare `scanForRedaction`). */
export function referenceScan(text: string): { triggers: Array<[number, number]>; runs: Array<[number, number]> } {
  return { triggers: referenceFindAll(TRIGGER_WORDS, text), runs: referenceBase64Runs(text) };
}

/** The redactor's scans replaced by the reference ones (`RedactOptions.scanner`). */
export const REFERENCE_SCANNER: TextScanner = {
  scan(text: string, companion: LiteralScanner | null): TextScan {
    return { ...referenceScan(text), extra: companion ? referenceFindAll(companion.words, text) : [] };
  },
  find: (scanner: LiteralScanner, text: string) => referenceFindAll(scanner.words, text),
};
