/**
 * JSON the way it arrives from Windows nodes and pastes: PowerShell 5.1 `ConvertTo-Json` (deep indentation,
 * two spaces after the colon), a command echo line before it, stderr after it, author elisions (`...`),
 * trailing commas, console hard-wrapping at a fixed width, and pastes cut off in the middle.
 */

export interface LooseJson {
  value: unknown;
  /** The JSON was cut off and completed by closing what was open. */
  truncated: boolean;
  /** Repairs applied (elisions removed, trailing commas, unwrapped lines). */
  repairs: string[];
  /** 1-based line where the JSON text starts in the input lines. */
  startLine: number;
  /** 1-based last line that belonged to the JSON. */
  endLine: number;
}

function tryParse(text: string): unknown | undefined {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Remove author elision lines (`...`, `. . .`) and trailing commas before `}`/`]`. */
export function repairJson(text: string): { text: string; repairs: string[] } {
  const repairs: string[] = [];
  let t = text;
  const noElisions = t.replace(/^\s*(?:\.\s?){3,}\s*$/gm, '');
  if (noElisions !== t) {
    repairs.push('removed elision lines');
    t = noElisions;
  }
  const noTrailing = t.replace(/,(\s*[}\]])/g, '$1');
  if (noTrailing !== t) {
    repairs.push('removed trailing commas');
    t = noTrailing;
  }
  return { text: t, repairs };
}

/**
 * Close whatever is open in a cut-off JSON text (strings, arrays, objects), dropping a dangling key or comma.
 * Returns null when the text does not start like JSON.
 */
export function completeTruncatedJson(text: string): string | null {
  const t = text.trimEnd();
  if (!/^[[{]/.test(t.trimStart())) return null;
  const stack: string[] = [];
  let inString = false;
  let escape = false;
  for (let i = 0; i < t.length; i++) {
    const c = t[i]!;
    if (inString) {
      if (escape) escape = false;
      else if (c === '\\') escape = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') stack.push('}');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ']') stack.pop();
  }
  let out = t;
  if (inString) out += '"';
  // Drop an incomplete tail: `"key"`, `"key":`, `,`, a cut literal.
  for (let guard = 0; guard < 4; guard++) {
    const before = out;
    out = out.replace(/,\s*$/, '');
    out = out.replace(/,?\s*"[^"\\]*(?:\\.[^"\\]*)*"\s*:\s*$/, '');
    out = out.replace(/:\s*(?:t|tr|tru|f|fa|fal|fals|n|nu|nul|-)$/, ': null');
    if (stack[stack.length - 1] === '}') out = out.replace(/([{,]\s*)"[^"\\]*(?:\\.[^"\\]*)*"\s*$/, '$1').replace(/,\s*$/, '');
    if (out === before) break;
  }
  return out + stack.reverse().join('');
}

/**
 * Re-join console-wrapped JSON: lines of the wrap width were cut mid-token (join without separator); shorter
 * lines were wrapped at a space (join with a space). Only applies when most lines share one maximal width.
 */
export function unwrapConsoleLines(lines: readonly string[]): string | null {
  if (lines.length < 3) return null;
  const lengths = lines.map((l) => l.length);
  const width = Math.max(...lengths);
  if (width < 60) return null;
  const atWidth = lengths.filter((n) => n === width).length;
  if (atWidth < lines.length * 0.4) return null;
  let out = '';
  lines.forEach((l, i) => {
    out += l;
    if (i < lines.length - 1 && l.length < width) out += ' ';
  });
  return out;
}

/**
 * Find and parse the first JSON value in `lines` (from the first line that starts with `{` or `[`). Trailing
 * non-JSON lines (stderr) are cut off. Returns null when there is no JSON.
 */
export function parseLooseJson(lines: readonly string[], firstLine = 1): LooseJson | null {
  let start = -1;
  for (let i = 0; i < lines.length; i++) {
    const t = (lines[i] ?? '').trim();
    if (/^[[{]/.test(t)) {
      start = i;
      break;
    }
  }
  if (start < 0) return null;
  // Find the end: the line where brackets balance again.
  let depth = 0;
  let inString = false;
  let escape = false;
  let end = lines.length - 1;
  let balanced = false;
  outer: for (let i = start; i < lines.length; i++) {
    const line = lines[i] ?? '';
    for (let k = 0; k < line.length; k++) {
      const c = line[k]!;
      if (inString) {
        if (escape) escape = false;
        else if (c === '\\') escape = true;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) {
          end = i;
          balanced = true;
          lines = [...lines.slice(0, i), line.slice(0, k + 1)];
          break outer;
        }
      }
    }
    // PowerShell 5.1 strings never span lines; an open string at line end means console wrapping or a cut.
    inString = false;
  }
  const body = lines.slice(start, end + 1).join('\n');
  const direct = tryParse(body);
  if (direct !== undefined) return { value: direct, truncated: false, repairs: [], startLine: firstLine + start, endLine: firstLine + end };
  const repaired = repairJson(body);
  const second = tryParse(repaired.text);
  if (second !== undefined) return { value: second, truncated: false, repairs: repaired.repairs, startLine: firstLine + start, endLine: firstLine + end };
  if (!balanced) {
    const completed = completeTruncatedJson(repaired.text);
    if (completed !== null) {
      const third = tryParse(completed);
      if (third !== undefined) return { value: third, truncated: true, repairs: [...repaired.repairs, 'closed a cut-off JSON text'], startLine: firstLine + start, endLine: firstLine + end };
    }
  }
  return null;
}

/** A key/value pair found by scanning JSON-ish text that cannot be parsed. */
export interface ScannedPair {
  key: string;
  /** Scalar value as text (string content unescaped lightly), or null for objects/arrays. */
  value: string | null;
  /** Nesting depth relative to the start of the scanned text (may be negative when the text starts mid-object). */
  depth: number;
  offset: number;
}

/** Scan `"key": value` pairs with their nesting depth, tolerating any start or end. */
export function scanJsonPairs(text: string): ScannedPair[] {
  const pairs: ScannedPair[] = [];
  let depth = 0;
  let i = 0;
  // If the text starts inside a string (cut mid-token), skip to the first quote that closes it.
  const firstQuote = text.indexOf('"');
  const firstBrace = text.search(/[{}[\],:]/);
  if (firstQuote >= 0 && firstBrace >= 0 && firstQuote < firstBrace) {
    const before = text.slice(0, firstQuote);
    if (!/^\s*$/.test(before)) i = firstQuote + 1;
  }
  while (i < text.length) {
    const c = text[i]!;
    if (c === '{' || c === '[') {
      depth++;
      i++;
      continue;
    }
    if (c === '}' || c === ']') {
      depth--;
      i++;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let s = '';
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\' && j + 1 < text.length) {
          s += text[j + 1];
          j += 2;
          continue;
        }
        s += text[j];
        j++;
      }
      const after = text.slice(j + 1).match(/^\s*:\s*/);
      if (after) {
        const vStart = j + 1 + after[0].length;
        const rest = text.slice(vStart);
        let value: string | null = null;
        let consumed = 0;
        const str = /^"((?:[^"\\]|\\.)*)"/.exec(rest);
        const lit = /^(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(rest);
        if (str) {
          value = str[1]!.replace(/\\(.)/g, '$1');
          consumed = str[0].length;
        } else if (lit) {
          value = lit[1]!;
          consumed = lit[0].length;
        }
        pairs.push({ key: s, value, depth, offset: i });
        i = vStart + consumed;
        continue;
      }
      i = j + 1;
      continue;
    }
    i++;
  }
  return pairs;
}
