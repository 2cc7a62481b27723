/**
 * DNS lookups: `nslookup` (answers, timeouts, NXDOMAIN; English and a few localized messages),
 * `Resolve-DnsName` (table output and its error records), and the `dns` probe's JSON
 * (`[{"query", "ok", "error", "addresses", "server"}]`), plus `Get-DnsClientGlobalSetting` (parse only).
 */
import { makeFact, type DnsLookupData, type Fact, type ParseContext, type ParseResult } from '../logic/facts';
import { parseLooseJson } from './json-loose';
import { parseTables } from './ps-table';
import { toLines } from './text';

const DEFAULT_CTX: ParseContext = { source: 'input', node: null };

const NS_TIMEOUT = /DNS request timed out|Request to \S+ timed-out|DNS-Anforderung.*(?:Timeout|Zeitlimit|Zeitüberschreitung)|La (?:demande|requête) DNS a expiré|Se agotó el tiempo de espera/i;
const NS_NXDOMAIN = /can't find (\S+?):? Non-existent domain|kann (\S+?) nicht finden: Non-existent domain|ne peut pas trouver (\S+?) ?: Non-existent domain/i;
const NS_SERVFAIL = /can't find (\S+?):? Server failed/i;
const NS_REFUSED = /can't find (\S+?):? Query refused/i;
const NS_NOSERVER = /Default servers are not available|No response from server/i;
const NS_SERVER = /^\s*(?:Server|Serveur|Servidor):\s+(\S.*?)\s*$/;
const NS_ADDRESS = /^\s*(?:Address|Adresse|Dirección|Addresses):\s+(\S+)/;
const NS_NAME = /^\s*(?:Name|Nom|Nombre):\s+(\S+)/;
const NS_COMMAND = /\bnslookup(?:\.exe)?\s+(?:-\S+\s+)*([^\s-][^\s]*)/i;

/** True when the lines hold nslookup output. */
export function looksLikeNslookup(lines: readonly string[]): boolean {
  return lines.some((l) => NS_TIMEOUT.test(l) || NS_NXDOMAIN.test(l) || NS_NOSERVER.test(l)) || (lines.some((l) => NS_SERVER.test(l)) && lines.some((l) => NS_ADDRESS.test(l)) && lines.some((l) => /nslookup|Non-authoritative answer|Nicht autorisierende Antwort/i.test(l)));
}

/** Parse nslookup output: one lookup per `nslookup NAME` command (or one for the whole paste). */
export function parseNslookup(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  // Segment at command echoes.
  const segs: { start: number; query: string | null }[] = [];
  lines.forEach((l, i) => {
    const m = NS_COMMAND.exec(l);
    if (m && !/^\s*(Server|Address|Name)/i.test(l)) segs.push({ start: i, query: m[1]! });
  });
  if (segs.length === 0 || segs[0]!.start > 0) segs.unshift({ start: 0, query: null });
  segs.forEach((seg, k) => {
    const end = segs[k + 1]?.start ?? lines.length;
    let server: string | null = null;
    let serverAddress: string | null = null;
    let outcome: DnsLookupData['outcome'] | null = null;
    let outcomeLine: number | null = null;
    let name: string | null = null;
    const addresses: string[] = [];
    let afterName = false;
    for (let i = seg.start; i < end; i++) {
      const l = lines[i] ?? '';
      const s = NS_SERVER.exec(l);
      if (s && server === null) server = s[1]!;
      const a = NS_ADDRESS.exec(l);
      if (a) {
        if (!afterName && serverAddress === null) serverAddress = a[1]!.replace(/#\d+$/, '');
        else if (afterName) addresses.push(a[1]!);
      }
      const n = NS_NAME.exec(l);
      if (n) {
        name = n[1]!;
        afterName = true;
      }
      if (afterName && /^\s{5,}\d{1,3}(?:\.\d{1,3}){3}\s*$/.test(l)) addresses.push(l.trim());
      const mark = (o: DnsLookupData['outcome']) => {
        if (outcome === null || outcome === 'ok') {
          outcome = o;
          outcomeLine = i + 1;
        }
      };
      if (NS_TIMEOUT.test(l)) mark('timeout');
      const nx = NS_NXDOMAIN.exec(l);
      if (nx) {
        mark('nxdomain');
        name = name ?? nx[1] ?? nx[2] ?? nx[3] ?? null;
      }
      if (NS_SERVFAIL.test(l)) mark('servfail');
      if (NS_REFUSED.test(l)) mark('refused');
      if (NS_NOSERVER.test(l)) mark('no-server');
    }
    const finalOutcome: DnsLookupData['outcome'] | null = outcome ?? (addresses.length ? 'ok' : null);
    if (finalOutcome === null) return;
    const line = outcomeLine ?? seg.start + 1;
    const query = seg.query ?? name ?? '(not shown)';
    const excerpt = (lines[line - 1] ?? '').trim() + (server ? ` (Server: ${server})` : '');
    facts.push(makeFact('dns-lookup', ctx, line, excerpt, { query, server, serverAddress, outcome: finalOutcome, addresses, tool: 'nslookup' }));
  });
  return { facts, warnings: facts.length ? [] : ['no nslookup result found'] };
}

const RDN_ERROR = /^\s*Resolve-DnsName\s*:\s*(\S+)\s*:\s*(.*?)\s*$/i;

/** True when the lines hold Resolve-DnsName output. */
export function looksLikeResolveDnsName(lines: readonly string[]): boolean {
  return lines.some((l) => RDN_ERROR.test(l)) || lines.some((l) => /^\s*Name\s+Type\s+TTL\s+Section\s+(IPAddress|NameHost|PrimaryServer)/.test(l));
}

function outcomeOfMessage(msg: string): DnsLookupData['outcome'] {
  if (/does not exist|existiert nicht|n.existe pas|no existe/i.test(msg)) return 'nxdomain';
  if (/timeout|timed out|Zeitlimit|expir/i.test(msg)) return 'timeout';
  if (/server failure|Serverfehler/i.test(msg)) return 'servfail';
  if (/refused/i.test(msg)) return 'refused';
  return 'error';
}

/** Parse Resolve-DnsName output: answer tables and error records. */
export function parseResolveDnsName(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  lines.forEach((l, i) => {
    const m = RDN_ERROR.exec(l);
    if (m) facts.push(makeFact('dns-lookup', ctx, i + 1, l.trim(), { query: m[1]!, server: null, serverAddress: null, outcome: outcomeOfMessage(m[2]!), addresses: [], tool: 'resolve-dnsname' }));
  });
  for (const t of parseTables(lines)) {
    if (!t.headers.includes('Name') || !t.headers.includes('Type')) continue;
    const byName = new Map<string, { addresses: string[]; line: number; raw: string }>();
    for (const r of t.rows) {
      const name = r.cells['Name'] ?? '';
      if (!name) continue;
      const e = byName.get(name) ?? { addresses: [], line: r.line, raw: r.raw.trim() };
      const ip = r.cells['IPAddress'];
      if (ip) e.addresses.push(ip);
      byName.set(name, e);
    }
    for (const [name, e] of byName) facts.push(makeFact('dns-lookup', ctx, e.line, e.raw, { query: name, server: null, serverAddress: null, outcome: 'ok', addresses: e.addresses, tool: 'resolve-dnsname' }));
  }
  return { facts, warnings: facts.length ? [] : ['no Resolve-DnsName result found'] };
}

/** Parse the `dns` probe's JSON results. */
export function parseDnsProbeJson(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const json = parseLooseJson(toLines(text));
  if (!json) return { facts: [], warnings: ['no JSON found'] };
  // The dns probe wraps results: {"SuffixSearchList": [...], "Results": [...]}.
  const env = typeof json.value === 'object' && json.value !== null && !Array.isArray(json.value) && Array.isArray((json.value as Record<string, unknown>)['Results']) ? ((json.value as Record<string, unknown>)['Results'] as unknown[]) : null;
  const items = env ?? (Array.isArray(json.value) ? json.value : [json.value]);
  const facts: Fact[] = [];
  for (const it of items) {
    if (typeof it !== 'object' || it === null) continue;
    const o = it as Record<string, unknown>;
    const query = typeof o['query'] === 'string' ? o['query'] : typeof o['Query'] === 'string' ? o['Query'] : typeof o['Name'] === 'string' ? o['Name'] : null;
    if (!query) continue;
    const ok = o['ok'] === true || o['Success'] === true || o['Succeeded'] === true;
    const err = typeof o['error'] === 'string' ? o['error'] : typeof o['Error'] === 'string' ? o['Error'] : null;
    // A single answer comes as an object, not an array (ConvertTo-Json).
    const rawAnswers = o['Answers'];
    const answers: unknown[] = Array.isArray(rawAnswers) ? rawAnswers : rawAnswers !== undefined && rawAnswers !== null ? [rawAnswers] : [];
    const fromAnswers = answers.map((a) => (typeof a === 'object' && a !== null ? (a as Record<string, unknown>)['IPAddress'] : null)).filter((x): x is string => typeof x === 'string');
    const addrs = Array.isArray(o['addresses']) ? (o['addresses'] as unknown[]).filter((x): x is string => typeof x === 'string') : Array.isArray(o['IPAddress']) ? (o['IPAddress'] as unknown[]).filter((x): x is string => typeof x === 'string') : fromAnswers;
    const server = typeof o['server'] === 'string' ? o['server'] : null;
    facts.push(
      makeFact('dns-lookup', ctx, null, `${query}: ${ok ? `ok ${addrs.join(', ')}` : (err ?? 'failed')}`, {
        query,
        server,
        serverAddress: server,
        outcome: ok ? 'ok' : outcomeOfMessage(err ?? ''),
        addresses: addrs,
        tool: 'probe',
      }),
    );
  }
  return { facts, warnings: [] };
}
