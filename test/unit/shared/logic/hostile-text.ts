/**
 * Hostile random texts for the redaction scan tests (redact-scan.test.ts: any string; redact-scan-kernel.test.ts:
 * Latin-1, one byte per character): word fragments, whole and doubled words (`keykey`, `-----begin-----begin`),
 * base64 runs with and without padding, odd characters, mixed case.
 */

export function pick(rand: () => number, items: readonly string[]): string {
  return items[Math.floor(rand() * items.length)] as string;
}

/** Random case of each ASCII letter. */
export function mixCase(rand: () => number, s: string): string {
  let out = '';
  for (const ch of s) out += rand() < 0.5 ? ch.toUpperCase() : ch.toLowerCase();
  return out;
}

/** Separators both lists share (in this order: the tests' random texts depend on it). */
const SEPARATORS = ['=', '==', '===', '-', '_', '\r\n', '\n', ' ', '\t'];
/** Characters that fold, split or end words and runs in any string (U+0130 / U+212A fold, surrogates, NUL). */
export const ODD_ANY = ['\u0130', '\u212a', '\u0000', '\u00e9', '\u00ff', '\ud83d\ude00', '\ud800', ...SEPARATORS, '%41', '%3A', '"', "'", ':', '/'];
/** The same for Latin-1 texts (every character below U+0100). */
export const ODD_LATIN1 = ['\u0000', '\u00e9', '\u00ff', '\u0080', '\u00a0', '\u00c4', ...SEPARATORS, ':', '/', '"', '%41'];
export const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * `pieces` random pieces from `words`, base64 runs, `odd` characters and short log words. With `anyByte`, one
 * piece in ten is a random character U+0000-U+00FF (Latin-1 texts: every byte value).
 */
export function hostileText(rand: () => number, words: readonly string[], pieces: number, options: { odd: readonly string[]; anyByte?: boolean }): string {
  const parts: string[] = [];
  for (let i = 0; i < pieces; i++) {
    const r = rand();
    if (r < 0.25) {
      const w = pick(rand, words);
      // Whole, or cut short, or doubled with overlap.
      parts.push(mixCase(rand, rand() < 0.7 ? w : rand() < 0.5 ? w.slice(0, Math.max(1, Math.floor(rand() * w.length))) : w + w.slice(1)));
    } else if (r < 0.45) {
      let run = '';
      const len = 10 + Math.floor(rand() * 30);
      for (let k = 0; k < len; k++) run += B64[Math.floor(rand() * (rand() < 0.3 ? 26 : 64))];
      parts.push(run + (rand() < 0.4 ? '='.repeat(Math.floor(rand() * 4)) : ''));
    } else if (r < (options.anyByte ? 0.6 : 0.7)) parts.push(pick(rand, options.odd));
    else if (r < 0.7) parts.push(String.fromCharCode(Math.floor(rand() * 256)));
    else parts.push(mixCase(rand, pick(rand, ['log', 'I0612', 'kubelet', 'pod=', 'x', 'ab', 'AbC', '0x8', 'sk', 'AK', 'e', 'y', 'J'])));
  }
  return parts.join('');
}
