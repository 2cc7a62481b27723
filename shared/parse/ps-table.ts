/**
 * PowerShell default table output (`Format-Table`), also kubectl-like tables when given a header pattern:
 *
 *     Status   Name               DisplayName
 *     ------   ----               -----------
 *     Running  kubelet            kubelet service
 *
 * Column boundaries come from the dash line. Rows run until a blank line or a line that cannot be a row.
 */

export interface TableRow {
  cells: Record<string, string>;
  /** 1-based line. */
  line: number;
  raw: string;
}

export interface Table {
  headers: string[];
  rows: TableRow[];
  headerLine: number;
  /** Text before the table on the lines just above (e.g. `PS C:\> Get-Service -Name kubelet`). */
  command: string | null;
}

const DASHES = /^\s*-{2,}(?:\s+-{2,})*\s*$/;

function columnStarts(dashLine: string): { start: number; end: number }[] {
  const cols: { start: number; end: number }[] = [];
  for (const m of dashLine.matchAll(/-+/g)) cols.push({ start: m.index!, end: m.index! + m[0].length });
  return cols;
}

/**
 * Find every header+dash table in `lines`. `firstLine` is the 1-based number of `lines[0]`. With `strictGaps`
 * (default) a line whose text runs across a column start ends the table, so prose after a table is not a row.
 * Never throws.
 */
export function parseTables(lines: readonly string[], firstLine = 1, options: { strictGaps?: boolean } = {}): Table[] {
  const strictGaps = options.strictGaps ?? true;
  const tables: Table[] = [];
  for (let i = 1; i < lines.length; i++) {
    const dash = lines[i] ?? '';
    if (!DASHES.test(dash)) continue;
    const header = lines[i - 1] ?? '';
    if (header.trim() === '') continue;
    const cols = columnStarts(dash);
    const headers = cols.map((c, idx) => header.slice(c.start, idx + 1 < cols.length ? cols[idx + 1]!.start : undefined).trim());
    if (headers.some((h) => h === '')) continue;
    let command: string | null = null;
    for (let k = i - 2; k >= 0 && k >= i - 4; k--) {
      const t = (lines[k] ?? '').trim();
      if (t === '') continue;
      command = t;
      break;
    }
    const rows: TableRow[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const raw = (lines[j] ?? '').replace(/\s+$/, '');
      if (raw.trim() === '') break;
      if (DASHES.test(raw)) break;
      // A row keeps the gaps before each column (a space or the end of the line); prose does not.
      // (Right-aligned numeric tables, such as Get-Process, pass strictGaps: false.)
      if (strictGaps && cols.some((c, idx) => idx > 0 && c.start < raw.length && raw[c.start - 1] !== ' ')) break;
      const cells: Record<string, string> = {};
      cols.forEach((c, idx) => {
        const next = idx + 1 < cols.length ? cols[idx + 1]!.start : undefined;
        cells[headers[idx]!] = raw.slice(c.start, next).trim();
      });
      rows.push({ cells, line: firstLine + j, raw });
    }
    tables.push({ headers, rows, headerLine: firstLine + i - 1, command });
    i = j;
  }
  return tables;
}

/**
 * Parse whitespace-aligned tables without a dash line (kubectl's `NAME STATUS ...`): the header must match
 * `headerTest`; column starts come from the header words and cells are cut at those positions (kubectl
 * left-aligns). A line whose text crosses a column start ends the table.
 */
export function parseAlignedTable(lines: readonly string[], headerTest: (line: string) => boolean, firstLine = 1): Table[] {
  const tables: Table[] = [];
  for (let i = 0; i < lines.length; i++) {
    const header = (lines[i] ?? '').replace(/\s+$/, '');
    if (!headerTest(header)) continue;
    const starts: { name: string; start: number }[] = [];
    for (const m of header.matchAll(/\S+(?: \S+)*/g)) starts.push({ name: m[0], start: m.index! });
    const rows: TableRow[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const raw = (lines[j] ?? '').replace(/\s+$/, '');
      if (raw.trim() === '' || headerTest(raw)) break;
      // Columns are left-aligned: every column start follows a space (or lies past the end of the row).
      if (starts.some((c, idx) => idx > 0 && c.start < raw.length && raw[c.start - 1] !== ' ')) break;
      const cells: Record<string, string> = {};
      starts.forEach((c, idx) => {
        const to = idx + 1 < starts.length ? starts[idx + 1]!.start : raw.length;
        cells[c.name] = raw.slice(c.start, to).trim();
      });
      rows.push({ cells, line: firstLine + j, raw });
    }
    tables.push({ headers: starts.map((s) => s.name), rows, headerLine: firstLine + i, command: null });
    i = j - 1;
  }
  return tables;
}
