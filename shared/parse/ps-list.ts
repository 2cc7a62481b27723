/**
 * PowerShell `Format-List` output (the default for Get-HnsNetwork, Get-HnsEndpoint, Get-ComputerInfo...):
 *
 *     ActivityId             : 19C8DEBE-...
 *     Extensions             : {@{Id=...; IsEnabled=True;
 *                              Name=Microsoft Azure VFP Switch Extension}, ...}
 *
 * Records are separated by blank lines; the label column has one width per record; long values wrap onto
 * continuation lines, indented to the value column or (in some pastes) not indented at all.
 */

export interface ListField {
  key: string;
  value: string;
  /** 1-based line of the key. */
  line: number;
}

export interface ListRecord {
  fields: ListField[];
  startLine: number;
  endLine: number;
  /** Case-insensitive lookup; null when absent. */
  get(key: string): string | null;
  field(key: string): ListField | null;
}

const KEY_LINE = /^([A-Za-z][A-Za-z0-9_ .()/-]*?)\s*:(?: (.*)|$)/;

function makeRecord(fields: ListField[], startLine: number, endLine: number): ListRecord {
  const index = new Map<string, ListField>();
  for (const f of fields) if (!index.has(f.key.toLowerCase())) index.set(f.key.toLowerCase(), f);
  return {
    fields,
    startLine,
    endLine,
    get: (key) => index.get(key.toLowerCase())?.value ?? null,
    field: (key) => index.get(key.toLowerCase()) ?? null,
  };
}

export interface ListParseOptions {
  /** 1-based line number of `lines[0]`. */
  firstLine?: number;
  /** Minimum number of fields for a block to count as a record. */
  minFields?: number;
  /** Keep blank lines inside a record (pastes with a blank line after every line). */
  blankLinesInsideRecords?: boolean;
}

/**
 * Parse every `Key : Value` record in `lines`. Lines that are not part of a record (prompts, prose) end the
 * current record. Never throws.
 */
export function parseFormatList(lines: readonly string[], options: ListParseOptions = {}): ListRecord[] {
  const firstLine = options.firstLine ?? 1;
  const minFields = options.minFields ?? 2;
  const records: ListRecord[] = [];
  let fields: ListField[] = [];
  let colonCol = -1;
  let start = -1;
  let last = -1;
  let current: ListField | null = null;

  const flush = () => {
    if (fields.length >= minFields) records.push(makeRecord(fields, start, last));
    fields = [];
    colonCol = -1;
    current = null;
    start = -1;
  };

  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] ?? '').replace(/\s+$/, '');
    const lineNo = firstLine + i;
    // Author elisions (`. . .`, `...`) separate fields like a blank line would.
    if (/^\s*(?:\.\s?){3,}$/.test(raw)) {
      current = null;
      continue;
    }
    if (raw.trim() === '') {
      if (!options.blankLinesInsideRecords) flush();
      continue;
    }
    const m = KEY_LINE.exec(raw);
    const col = raw.indexOf(':');
    const isKey = m !== null && !/^\s/.test(raw) && (colonCol < 0 || col === colonCol || (options.blankLinesInsideRecords === true && Math.abs(col - colonCol) <= 12));
    if (isKey && m) {
      if (colonCol < 0) {
        colonCol = col;
        start = lineNo;
      }
      current = { key: m[1]!.trim(), value: (m[2] ?? '').trim(), line: lineNo };
      fields.push(current);
      last = lineNo;
      continue;
    }
    if (current !== null) {
      // Continuation of the previous value (indented to the value column, or pasted without indent).
      const cur: ListField = current;
      const piece = raw.trim();
      cur.value = cur.value === '' ? piece : `${cur.value} ${piece}`;
      last = lineNo;
      continue;
    }
    flush();
  }
  flush();
  return records;
}

/** `{a, b, c}` or `a,b` → items; `{}` → []. */
export function splitPsList(value: string | null): string[] {
  if (value === null) return [];
  let v = value.trim();
  if (v.startsWith('{') && v.endsWith('}')) v = v.slice(1, -1);
  return v
    .split(/,\s*/)
    .map((s) => s.trim())
    .filter((s) => s !== '' && s !== '...');
}

/** Values of `@{Key=value; ...}` hashtable-ish text: every `Key=value` pair found (first wins). */
export function psHashValues(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of value.matchAll(/([A-Za-z][A-Za-z0-9]*)=([^;{}]*)/g)) {
    const k = m[1]!;
    if (!(k in out)) out[k] = (m[2] ?? '').trim();
  }
  return out;
}
