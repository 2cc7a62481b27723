/**
 * Drop the large arrays Windeck never reads from compact API-server JSON before `JSON.parse` (issue 10 items 1
 * and 2): `metadata.managedFields` of every object and `status.images` of nodes make up most of a real node's
 * ~13 KB, and parsing them was the watch path's main cost (~3,600 node events/s per core). Skipping an array by
 * scanning its text is 2-3x cheaper than building it.
 *
 * A key is matched only as the exact text `"key":[`. Inside a JSON string every quote is escaped, so that text
 * cannot come from string content; the array is skipped by bracket depth with strings jumped over. Text with
 * another shape (pretty-printed, unbalanced) is returned unchanged and `JSON.parse` judges it as before.
 */

const NODES = ['managedFields', 'images'] as const;
const ANY = ['managedFields'] as const;

/** The arrays to drop for a collection path (`/api/v1/nodes`, `/api/v1/namespaces/x/pods`, ...). */
export function unreadArraysFor(resourcePath: string): readonly string[] {
  return /\/nodes(?:$|[/?])/.test(resourcePath) ? NODES : ANY;
}

/** Index just past the array or object that starts at `start` (`[` or `{`), or -1 when it does not close. */
function skipValue(text: string, start: number): number {
  let depth = 0;
  let i = start;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      let j = text.indexOf('"', i + 1);
      while (j !== -1) {
        let k = j - 1;
        let backslashes = 0;
        while (text.charCodeAt(k) === 92 /* \ */) {
          backslashes++;
          k--;
        }
        if (backslashes % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      if (j === -1) return -1;
      i = j + 1;
      continue;
    }
    if (c === 91 /* [ */ || c === 123 /* { */) depth++;
    else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/** `text` with every `"key":[...]` of `keys` replaced by `"key":[]`. */
export function dropUnreadArrays(text: string, keys: readonly string[]): string {
  const patterns = keys.map((k) => `"${k}":[`);
  const next = patterns.map((p) => text.indexOf(p));
  if (next.every((at) => at === -1)) return text;
  const parts: string[] = [];
  let from = 0;
  for (;;) {
    let which = -1;
    for (let p = 0; p < patterns.length; p++) {
      const at = next[p]!;
      if (at !== -1 && (which === -1 || at < next[which]!)) which = p;
    }
    if (which === -1) break;
    const open = next[which]! + patterns[which]!.length - 1;
    const end = skipValue(text, open);
    if (end === -1) return text;
    parts.push(text.slice(from, open), '[]');
    from = end;
    for (let p = 0; p < patterns.length; p++) if (next[p] !== -1 && next[p]! < from) next[p] = text.indexOf(patterns[p]!, from);
  }
  parts.push(text.slice(from));
  return parts.join('');
}
