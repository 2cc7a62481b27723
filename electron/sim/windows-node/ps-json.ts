/**
 * Windows PowerShell 5.1 `ConvertTo-Json` output, byte for byte in layout: CRLF line ends, 4 spaces per level
 * relative to the opening bracket's column, two spaces after the colon, empty arrays/objects as a bracket pair
 * with an empty line between, strings escaped the way .NET's JavaScriptSerializer does (`<`, `>`, `&`, `'` as
 * `\u00XX`), dates as `"\/Date(ms)\/"`. This is how the simulator "answers like Windows"; it is deliberately not
 * shared with the product's parsers.
 *
 * Values: plain JS data; `bigint` prints exactly (HNS uses int64 FILETIME values); `PsDate` prints as a 5.1 date.
 */

export class PsDate {
  constructor(readonly epochMs: number) {}
}

/** PowerShell 5.1 JSON of `value` (without the trailing newline `Out-Default` adds). */
export function toPs51Json(value: unknown): string {
  return render(value, 0);
}

const CRLF = '\r\n';

function pad(n: number): string {
  return ' '.repeat(n);
}

function escapeString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    switch (ch) {
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '<':
      case '>':
      case '&':
      case "'":
        out += '\\u' + code.toString(16).padStart(4, '0');
        break;
      default:
        out += code < 0x20 ? '\\u' + code.toString(16).padStart(4, '0') : ch;
    }
  }
  return out + '"';
}

function scalar(value: unknown): string | null {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return escapeString(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (value instanceof PsDate) return `"\\/Date(${Math.trunc(value.epochMs)})\\/"`;
  return null;
}

/** `column` is the column where this value's first character sits. */
function render(value: unknown, column: number): string {
  const s = scalar(value);
  if (s !== null) return s;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[' + CRLF + CRLF + pad(column) + ']';
    const inner = column + 4;
    const items = value.map((item) => pad(inner) + render(item, inner));
    return '[' + CRLF + items.join(',' + CRLF) + CRLF + pad(column) + ']';
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{' + CRLF + CRLF + pad(column) + '}';
    const inner = column + 4;
    const lines = entries.map(([k, v]) => {
      const head = escapeString(k) + ':  ';
      return pad(inner) + head + render(v, inner + head.length);
    });
    return '{' + CRLF + lines.join(',' + CRLF) + CRLF + pad(column) + '}';
  }
  return escapeString(String(value));
}

/**
 * What `... | ConvertTo-Json` prints for a pipeline of `items`: nothing for none, the bare object for one, an
 * array for more (PowerShell unrolls single-item pipelines). Ends with CRLF as the console host writes it.
 */
export function pipelineJson(items: readonly unknown[]): string {
  if (items.length === 0) return '';
  return toPs51Json(items.length === 1 ? items[0] : items) + CRLF;
}

/** What `ConvertTo-Json -InputObject $x` prints (no unrolling). Ends with CRLF. */
export function inputObjectJson(value: unknown): string {
  return toPs51Json(value) + CRLF;
}
