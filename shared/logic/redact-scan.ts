/**
 * A case-insensitive search for many short ASCII words at once (the redactor's trigger words, the final scan's
 * secretlint anchors): one regular expression alternation over a lower-cased copy (V8's native regex code beats a
 * hand-written JavaScript scan over string characters several times). Case folding is `toLowerCase`; a text in
 * which it would change the length (U+0130) is folded by hand first. Words are at least two characters long.
 * No node:*, no DOM.
 */

export class LiteralScanner {
  private readonly regex: RegExp;
  private readonly index = new Map<string, number>();

  constructor(readonly words: readonly string[]) {
    words.forEach((w, i) => {
      const lower = w.toLowerCase();
      if (lower.length < 2) throw new Error(`LiteralScanner: word "${w}" is shorter than two characters`);
      // eslint-disable-next-line no-control-regex
      if (/[^\x00-\x7f]/.test(lower)) throw new Error(`LiteralScanner: word "${w}" is not ASCII`);
      if (!this.index.has(lower)) this.index.set(lower, i);
    });
    this.regex = new RegExp([...this.index.keys()].map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'g');
  }

  /** Every non-overlapping match, leftmost first (at one offset, the word listed first): `[offset, wordIndex]`. */
  findAll(text: string): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    // toLowerCase keeps offsets for everything but U+0130 (two characters); fold that one by hand first.
    const source = text.includes('\u0130') ? text.replace(/\u0130/g, 'i') : text;
    const lower = source.toLowerCase();
    if (lower.length !== text.length) return [[0, 0]];
    const re = new RegExp(this.regex.source, 'g');
    for (let m = re.exec(lower); m; m = re.exec(lower)) out.push([m.index, this.index.get(m[0]) as number]);
    return out;
  }

  /** True when any word occurs in text. */
  test(text: string): boolean {
    const lower = text.toLowerCase();
    this.regex.lastIndex = 0;
    const hit = this.regex.test(lower);
    this.regex.lastIndex = 0;
    return hit || lower.length !== text.length;
  }
}
