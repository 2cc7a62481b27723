/**
 * `Get-Service` output: the default table (Status/Name/DisplayName), Format-List, and `ConvertTo-Json` from
 * Windows PowerShell 5.1 (enums as numbers, a single object not wrapped in an array) and PowerShell 7
 * (numbers, or names with `-EnumsAsStrings`).
 */
import { makeFact, type Fact, type ParseContext, type ParseResult } from '../logic/facts';
import { normalizeServiceStatus, normalizeStartType } from './components';
import { parseLooseJson } from './json-loose';
import { parseFormatList } from './ps-list';
import { parseTables } from './ps-table';
import { toLines } from './text';

const DEFAULT_CTX: ParseContext = { source: 'input', node: null };

/** Parse the Get-Service default table(s) anywhere in the text. */
/** A pasted table never proves a service is absent (`Get-Service -Name x` shows only what was asked). */
export function parseGetServiceTable(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  const warnings: string[] = [];
  const names: string[] = [];
  for (const table of parseTables(lines)) {
    const hasCols = ['Status', 'Name'].every((h) => table.headers.includes(h));
    if (!hasCols) continue;
    for (const row of table.rows) {
      const name = row.cells['Name'] ?? '';
      const statusWord = row.cells['Status'] ?? '';
      if (name === '' || !/^(Running|Stopped|StartPending|StopPending|ContinuePending|PausePending|Paused)$/i.test(statusWord)) continue;
      names.push(name);
      facts.push(
        makeFact('service', ctx, row.line, row.raw.trim(), {
          name,
          displayName: row.cells['DisplayName'] || null,
          status: normalizeServiceStatus(row.cells['Status']),
          startType: normalizeStartType(row.cells['StartType'] ?? null),
          delayedAutoStart: null,
          format: 'get-service-table',
        }),
      );
    }
  }
  if (names.length === 0) warnings.push('no Get-Service table rows found');
  else facts.push(makeFact('service-listing', ctx, null, `${names.length} services`, { names, complete: false, format: 'get-service-table' }));
  return { facts, warnings };
}

/** Parse Get-Service Format-List records (`Name : kubelet`, `Status : Running`). */
export function parseGetServiceList(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  for (const rec of parseFormatList(lines)) {
    const name = rec.get('Name') ?? rec.get('ServiceName');
    const status = rec.get('Status');
    if (!name || status === null) continue;
    const f = rec.field('Name') ?? rec.field('ServiceName');
    facts.push(
      makeFact('service', ctx, f?.line ?? rec.startLine, `Name: ${name}; Status: ${status}${rec.get('StartType') ? `; StartType: ${rec.get('StartType')}` : ''}`, {
        name,
        displayName: rec.get('DisplayName'),
        status: normalizeServiceStatus(status),
        startType: normalizeStartType(rec.get('StartType')),
        delayedAutoStart: null,
        format: 'get-service-list',
      }),
    );
  }
  return { facts, warnings: facts.length ? [] : ['no Get-Service list records found'] };
}

interface ServiceJsonRow {
  Name?: unknown;
  ServiceName?: unknown;
  DisplayName?: unknown;
  Status?: unknown;
  State?: unknown;
  StartType?: unknown;
  StartMode?: unknown;
  DelayedAutoStart?: unknown;
}

/** Find the line of `"Name": "<name>"` for evidence. */
function lineOfName(lines: readonly string[], name: string, from: number): number | null {
  const needle = new RegExp(`"(?:Name|ServiceName)"\\s*:\\s*"${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`, 'i');
  for (let i = Math.max(0, from - 1); i < lines.length; i++) if (needle.test(lines[i] ?? '')) return i + 1;
  return null;
}

/**
 * Parse Get-Service (or Win32_Service) JSON. `complete` says whether the listing covers every component the
 * producer asked for (true for Windeck's own probe, false for a pasted file).
 */
export function parseGetServiceJson(text: string, ctx: ParseContext = DEFAULT_CTX, complete = false): ParseResult {
  const lines = toLines(text);
  const json = parseLooseJson(lines);
  if (!json) return { facts: [], warnings: ['no JSON found'] };
  const rows: ServiceJsonRow[] = (Array.isArray(json.value) ? json.value : [json.value]).filter((r): r is ServiceJsonRow => typeof r === 'object' && r !== null);
  const facts: Fact[] = [];
  const names: string[] = [];
  let cursor = json.startLine;
  for (const r of rows) {
    const name = typeof r.Name === 'string' ? r.Name : typeof r.ServiceName === 'string' ? r.ServiceName : null;
    if (!name) continue;
    names.push(name);
    const line = lineOfName(lines, name, cursor);
    if (line !== null) cursor = line;
    const statusRaw = r.Status ?? r.State;
    const startRaw = r.StartType ?? r.StartMode;
    const status = normalizeServiceStatus(statusRaw);
    const startType = normalizeStartType(startRaw);
    facts.push(
      makeFact('service', ctx, line, `"Name": "${name}", "Status": ${JSON.stringify(statusRaw ?? null)}${startRaw !== undefined ? `, "StartType": ${JSON.stringify(startRaw)}` : ''}${status && String(statusRaw) !== status ? ` (${status})` : ''}${startType && String(startRaw) !== startType ? ` (${startType})` : ''}`, {
        name,
        displayName: typeof r.DisplayName === 'string' ? r.DisplayName : null,
        status,
        startType,
        delayedAutoStart: typeof r.DelayedAutoStart === 'boolean' ? r.DelayedAutoStart : null,
        format: 'get-service-json',
      }),
    );
  }
  const warnings = json.truncated ? ['JSON was cut off; parsed what was there'] : [];
  if (names.length) facts.push(makeFact('service-listing', ctx, null, `${names.length} services`, { names, complete, format: 'get-service-json' }));
  else warnings.push('JSON holds no service objects');
  return { facts, warnings };
}
