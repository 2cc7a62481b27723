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

/**
 * Index just past the array that starts at `open` when a native search proves where it ends, else -1. The API
 * server writes `managedFields` last in `metadata`, as an array of objects without arrays inside, so its text
 * ends in `]},"spec"`. Such a `]},"<letter>` is structural: a closing quote cannot be followed by a letter, so that
 * quote opens a key, and the `,` `}` `]` before it are outside any string. When it is the first `]` after `open`
 * and no `[` comes before it, nothing else can close there: it closes this array. The characters in between are
 * never looked at one by one (a byte-by-byte scan of ~10 KB of managedFields was most of the watch path's cost).
 */
function provenArrayEnd(text: string, open: number): number {
  const close = text.indexOf(']', open + 1);
  if (close === -1) return -1;
  if (text.charCodeAt(close + 1) !== 125 /* } */ || text.charCodeAt(close + 2) !== 44 /* , */ || text.charCodeAt(close + 3) !== 34 /* " */) return -1;
  const k = text.charCodeAt(close + 4) | 32;
  if (k < 97 /* a */ || k > 122 /* z */) return -1;
  const nested = text.indexOf('[', open + 1);
  if (nested !== -1 && nested < close) return -1;
  return close + 1;
}

/** `text` with every `"key":[...]` of `keys` replaced by `"key":[]`. */
export function dropUnreadArrays(text: string, keys: readonly string[]): string {
  const patterns = keys.map((k) => `"${k}":[`);
  // Where each pattern next occurs at or after `from`: -1 nowhere, -2 not searched yet. A pattern is searched only
  // as far as the nearest one found so far, so a node's `"images":[` search does not run through the ~10 KB of
  // managedFields before it (the drop then skips them without reading them).
  const next = patterns.map(() => -2);
  let parts: string[] | null = null;
  let from = 0;
  for (;;) {
    let which = -1;
    let at = -1;
    for (let p = 0; p < patterns.length; p++) {
      let pos = next[p]!;
      if (pos === -2 || (pos !== -1 && pos < from)) {
        const pattern = patterns[p]!;
        if (at !== -1) {
          // Only an occurrence that starts before `at` matters now.
          const before = text.slice(from, at + pattern.length - 1).indexOf(pattern);
          if (before === -1) {
            next[p] = -2;
            continue;
          }
          pos = from + before;
        } else pos = text.indexOf(pattern, from);
        next[p] = pos;
      }
      if (pos !== -1 && (at === -1 || pos < at)) {
        at = pos;
        which = p;
      }
    }
    if (which === -1) break;
    const open = at + patterns[which]!.length - 1;
    const fast = provenArrayEnd(text, open);
    const end = fast !== -1 ? fast : skipValue(text, open);
    if (end === -1) return text;
    (parts ??= []).push(text.slice(from, open), '[]');
    from = end;
  }
  if (parts === null) return text;
  parts.push(text.slice(from));
  return parts.join('');
}
