/**
 * Smaller Windows outputs: event logs (Get-EventLog / Get-WinEvent tables, event XML), Get-ChildItem listings,
 * Get-NetAdapter, processes (Get-Process table, Win32_Process JSON), the service-config probe (nssm
 * AppParameters), BitLocker volumes, Test-NetConnection and the connectivity probe, Get-DnsClientGlobalSetting.
 */
import { makeFact, type Fact, type ParseContext, type ParseResult } from '../logic/facts';
import { executableName, splitCommandLine } from './command-line';
import { componentOf, normalizeServiceStatus, normalizeStartType } from './components';
import { parseLooseJson } from './json-loose';
import { parseFormatList } from './ps-list';
import { parseTables } from './ps-table';
import { toLines } from './text';

const DEFAULT_CTX: ParseContext = { source: 'input', node: null };

type Obj = Record<string, unknown>;

function jsonRows(text: string): { rows: Obj[]; startLine: number } | null {
  const json = parseLooseJson(toLines(text));
  if (!json) return null;
  const arr = Array.isArray(json.value) ? json.value : [json.value];
  return { rows: arr.filter((x): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x)), startLine: json.startLine };
}

function s(o: Obj, ...keys: string[]): string | null {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string') return v;
    if (typeof v === 'number') return String(v);
  }
  return null;
}

// ---------------------------------------------------------------- event logs

const GET_EVENTLOG_ROW = /^\s*(\d+)\s+([A-Z][a-z]{2} \d{2} \d{2}:\d{2})\s+(Information|Warning|Error|FailureAudit|SuccessAudit)\s+(\S+)\s+(\d+)\s+(.*)$/;
const GET_WINEVENT_ROW = /^\s*(\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4} \d{1,2}:\d{2}:\d{2}(?: [AP]M)?)\s+(\d+)\s+(Information|Warning|Error|Critical|Verbose)\s+(.*)$/;

/** True when the lines hold Get-EventLog / Get-WinEvent rows. */
export function looksLikeEventLog(lines: readonly string[]): boolean {
  return lines.some((l) => GET_EVENTLOG_ROW.test(l) || GET_WINEVENT_ROW.test(l)) || lines.some((l) => /^\s*Index\s+Time\s+EntryType\s+Source\s+InstanceID\s+Message/.test(l) || /^\s*TimeCreated\s+Id\s+LevelDisplayName\s+Message/.test(l));
}

/** Parse event log table rows (message continuation lines joined). */
export function parseEventLog(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] ?? '';
    const a = GET_EVENTLOG_ROW.exec(l);
    const b = a ? null : GET_WINEVENT_ROW.exec(l);
    if (!a && !b) continue;
    let message = a ? a[6]! : b![4]!;
    for (let j = i + 1; j < lines.length && /^\s{20,}\S/.test(lines[j] ?? '') && !GET_EVENTLOG_ROW.test(lines[j] ?? ''); j++) {
      message += ' ' + (lines[j] ?? '').trim();
      i = j;
    }
    facts.push(
      makeFact('windows-event', ctx, i + 1, l.trim(), {
        provider: a ? a[4]! : null,
        eventId: a ? Number(a[5]) : Number(b![2]),
        level: a ? a[3]! : b![3]!,
        message: message.trim(),
      }),
    );
  }
  return { facts, warnings: facts.length ? [] : ['no event rows found'] };
}

/** Parse Event XML (`Get-WinEvent ... | % ToXml()`, Event Viewer "Copy details as XML"). */
export function parseEventXml(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const joined = lines.join('\n');
  const facts: Fact[] = [];
  for (const m of joined.matchAll(/<Event\s[^>]*>([\s\S]*?)(?:<\/Event>|$)/g)) {
    const body = m[1]!;
    const provider = /<Provider\s+Name="([^"]+)"/.exec(body)?.[1] ?? null;
    const id = /<EventID[^>]*>(\d+)<\/EventID>/.exec(body)?.[1];
    const level = /<Level>(\d+)<\/Level>/.exec(body)?.[1] ?? null;
    const levelName = level === null ? null : ({ '1': 'Critical', '2': 'Error', '3': 'Warning', '4': 'Information', '5': 'Verbose', '0': 'Information' } as Record<string, string>)[level] ?? level;
    const line = lines.findIndex((l) => /<EventID/.test(l)) + 1 || null;
    facts.push(makeFact('windows-event', ctx, line, `${provider ?? ''} EventID ${id ?? '?'} Level ${level ?? '?'}`, { provider, eventId: id ? Number(id) : null, level: levelName, message: '' }));
  }
  return { facts, warnings: facts.length ? [] : ['no <Event> found'] };
}

// ---------------------------------------------------------------- Get-ChildItem

/** True when the lines hold a Get-ChildItem listing. */
export function looksLikeChildItem(lines: readonly string[]): boolean {
  return lines.some((l) => /^\s*Directory:\s+\S/.test(l)) && lines.some((l) => /^\s*Mode\s+LastWriteTime\s+Length\s+Name/.test(l));
}

/** Parse Get-ChildItem listings (mode flags kept: `-a---l` is a symlink, whose Length 0 is not an empty file). */
export function parseChildItem(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  const dirs: { path: string; line: number }[] = [];
  lines.forEach((l, i) => {
    const d = /^\s*Directory:\s+(.*?)\s*$/.exec(l);
    if (d) dirs.push({ path: d[1]!, line: i + 1 });
  });
  // Dates and lengths are right-aligned across the column starts: no strict gaps.
  for (const t of parseTables(lines, 1, { strictGaps: false })) {
    if (t.headers[0] !== 'Mode') continue;
    const dir = [...dirs].reverse().find((d) => d.line < t.headerLine);
    if (!dir) continue;
    const entries = t.rows.map((r) => {
      const m = /^(\S{6})\s+(\d{1,2}\/\d{1,2}\/\d{4}\s+\d{1,2}:\d{2}(?:\s*[AP]M)?)\s+(\d+)?\s*(.*)$/.exec(r.raw.trim());
      return m ? { mode: m[1]!, lengthBytes: m[3] ? Number(m[3]) : null, name: m[4]! } : { mode: r.cells['Mode'] ?? '', lengthBytes: r.cells['Length'] ? Number(r.cells['Length']) : null, name: r.cells['Name'] ?? '' };
    });
    facts.push(makeFact('directory-listing', ctx, dir.line, `Directory: ${dir.path} (${entries.length} entries)`, { directory: dir.path, entries }));
  }
  return { facts, warnings: facts.length ? [] : ['no directory listing found'] };
}

// ---------------------------------------------------------------- Get-NetAdapter

/** True when the lines hold a Get-NetAdapter table. */
export function looksLikeNetAdapter(lines: readonly string[]): boolean {
  return lines.some((l) => /^\s*Name\s+InterfaceDescription\s+ifIndex\s+Status/.test(l));
}

/** Parse Get-NetAdapter (table or JSON). */
export function parseNetAdapter(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  const names: string[] = [];
  let format = 'get-netadapter';
  for (const t of parseTables(lines)) {
    if (!t.headers.includes('InterfaceDescription')) continue;
    for (const r of t.rows) {
      const name = r.cells['Name'] ?? '';
      if (!name) continue;
      names.push(name);
      facts.push(
        makeFact('net-adapter', ctx, r.line, r.raw.trim(), {
          name,
          description: r.cells['InterfaceDescription'] || null,
          status: r.cells['Status'] || null,
          macAddress: r.cells['MacAddress'] || null,
          ifIndex: r.cells['ifIndex'] ? Number(r.cells['ifIndex']) : null,
          ipv4: [],
        }),
      );
    }
  }
  if (names.length === 0) {
    const j = jsonRows(text);
    if (j) {
      format = 'get-netadapter-json';
      // The net-adapters probe: {"Adapters": [...], "IPAddresses": [{"InterfaceAlias", "InterfaceIndex", "IPAddress"}]}.
      const env = j.rows.length === 1 && Array.isArray(j.rows[0]!['Adapters']) ? j.rows[0]! : null;
      const rows = env ? (env['Adapters'] as unknown[]).filter((x): x is Obj => typeof x === 'object' && x !== null) : j.rows;
      const addrs = env && Array.isArray(env['IPAddresses']) ? (env['IPAddresses'] as unknown[]).filter((x): x is Obj => typeof x === 'object' && x !== null) : [];
      for (const o of rows) {
        const name = s(o, 'Name', 'name');
        if (!name) continue;
        names.push(name);
        facts.push(
          makeFact('net-adapter', ctx, null, `${name}: ${s(o, 'InterfaceDescription') ?? ''} ${s(o, 'Status') ?? ''}`.trim(), {
            name,
            description: s(o, 'InterfaceDescription'),
            status: s(o, 'Status'),
            macAddress: s(o, 'MacAddress'),
            ifIndex: typeof o['ifIndex'] === 'number' ? (o['ifIndex'] as number) : typeof o['InterfaceIndex'] === 'number' ? (o['InterfaceIndex'] as number) : null,
            ipv4: addrs.filter((a) => s(a, 'InterfaceAlias') === name || (typeof o['ifIndex'] === 'number' && a['InterfaceIndex'] === o['ifIndex'])).map((a) => s(a, 'IPAddress')).filter((x): x is string => x !== null),
          }),
        );
      }
    }
  }
  if (names.length) facts.push(makeFact('net-adapter-listing', ctx, null, `adapters: ${names.join(', ')}`, { names, format }));
  return { facts, warnings: names.length ? [] : ['no adapters found'] };
}

// ---------------------------------------------------------------- processes

/** Parse processes: Win32_Process / Get-Process JSON (Name, Id/ProcessId, CommandLine) or the Get-Process table. */
export function parseProcesses(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const facts: Fact[] = [];
  const names: string[] = [];
  let format = 'process-json';
  const j = jsonRows(text);
  if (j) {
    const byPid = new Map<number, string>();
    for (const o of j.rows) {
      const pid = o['ProcessId'] ?? o['Id'];
      const name = s(o, 'Name', 'ProcessName');
      if (typeof pid === 'number' && name) byPid.set(pid, name);
    }
    for (const o of j.rows) {
      const name = s(o, 'Name', 'ProcessName');
      if (!name) continue;
      names.push(name);
      const cmd = s(o, 'CommandLine');
      const pid = o['ProcessId'] ?? o['Id'];
      const ppid = o['ParentProcessId'];
      const parentName = s(o, 'ParentName', 'ParentProcessName') ?? (typeof ppid === 'number' ? (byPid.get(ppid) ?? null) : null);
      facts.push(makeFact('process', ctx, null, `${name}${typeof pid === 'number' ? ` (pid ${pid})` : ''}${cmd ? `: ${cmd}` : ''}`, { name, pid: typeof pid === 'number' ? pid : null, commandLine: cmd, parentName }));
      const comp = componentOf(name.replace(/\.exe$/i, ''));
      if (cmd && (comp === 'kubelet' || comp === 'kube-proxy')) {
        facts.push(makeFact('component-args', ctx, null, `${name}: ${cmd}`, { component: comp, args: splitCommandLine(cmd), origin: 'process-command-line' }));
      }
    }
  } else {
    format = 'get-process-table';
    for (const t of parseTables(toLines(text), 1, { strictGaps: false })) {
      if (!t.headers.includes('ProcessName')) continue;
      for (const r of t.rows) {
        // Numbers are right-aligned: read the row by its words (the name is last, the id before SI).
        const words = r.raw.trim().split(/\s+/);
        const name = words[words.length - 1];
        if (!name) continue;
        const id = words.length >= 3 ? Number(words[words.length - 3]) : NaN;
        names.push(name);
        facts.push(makeFact('process', ctx, r.line, r.raw.trim(), { name, pid: Number.isFinite(id) ? id : null, commandLine: null, parentName: null }));
      }
    }
  }
  if (names.length) facts.push(makeFact('process-listing', ctx, null, `${names.length} processes`, { names, format }));
  return { facts, warnings: names.length ? [] : ['no processes found'] };
}

/** True when the lines hold a Get-Process table. */
export function looksLikeProcessTable(lines: readonly string[]): boolean {
  return lines.some((l) => /^\s*Handles\s+NPM\(K\)\s+PM\(K\)\s+WS\(K\).*ProcessName/.test(l));
}

// ---------------------------------------------------------------- service-config probe (nssm AppParameters)

/**
 * The service-config probe (Win32_Service + nssm's registry values):
 * `[{"Name", "State", "StartMode", "PathName", "DependOnService", "Nssm": {"Application", "AppParameters"}}]`.
 * Also accepts flat `AppParameters`/`Application` keys. The component's real arguments are AppParameters when the
 * service binary is nssm.exe.
 */
export function parseServiceConfigJson(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const j = jsonRows(text);
  if (!j) return { facts: [], warnings: ['no JSON found'] };
  const facts: Fact[] = [];
  for (const o of j.rows) {
    const name = s(o, 'Name', 'ServiceName');
    if (!name) continue;
    const comp = componentOf(name);
    const state = s(o, 'State', 'Status');
    const mode = s(o, 'StartMode', 'StartType');
    if (comp && (state !== null || mode !== null)) {
      facts.push(
        makeFact('service', ctx, null, `${name}: State ${state ?? '?'}, StartMode ${mode ?? '?'}`, {
          name,
          displayName: s(o, 'DisplayName'),
          status: normalizeServiceStatus(state),
          startType: normalizeStartType(mode),
          delayedAutoStart: null,
          format: 'service-config-json',
        }),
      );
    }
    if (comp !== 'kubelet' && comp !== 'kube-proxy') continue;
    const path = s(o, 'PathName', 'BinaryPathName', 'ImagePath') ?? '';
    const pathArgs = splitCommandLine(path);
    const exe = executableName(pathArgs) ?? '';
    const nssm = typeof o['Nssm'] === 'object' && o['Nssm'] !== null ? (o['Nssm'] as Obj) : null;
    const app = (nssm ? s(nssm, 'AppParameters') : null) ?? s(o, 'AppParameters');
    const application = (nssm ? s(nssm, 'Application') : null) ?? s(o, 'Application') ?? exe;
    if (/^nssm(\.exe)?$/i.test(exe) || nssm !== null || (app !== null && app !== '')) {
      if (app !== null) facts.push(makeFact('component-args', ctx, null, `${name} AppParameters: ${app}`, { component: comp, args: [application, ...splitCommandLine(app)], origin: 'nssm-app-parameters' }));
    } else if (path) {
      facts.push(makeFact('component-args', ctx, null, `${name} PathName: ${path}`, { component: comp, args: pathArgs, origin: 'service-binary-path' }));
    }
  }
  return { facts, warnings: [] };
}

// ---------------------------------------------------------------- BitLocker

/** Parse Get-BitLockerVolume (table, list or JSON). */
export function parseBitLocker(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  const j = jsonRows(text);
  const rows: { mount: string; prot: string | null; vol: string | null; line: number | null; raw: string }[] = [];
  if (j) {
    const prot = (v: unknown) => (v === 0 ? 'Off' : v === 1 ? 'On' : v === 2 ? 'Unknown' : typeof v === 'string' ? v : null);
    const vol = (v: unknown) => (v === 0 ? 'FullyDecrypted' : v === 1 ? 'FullyEncrypted' : typeof v === 'string' ? v : v === undefined ? null : String(v));
    for (const o of j.rows) {
      const mount = s(o, 'MountPoint');
      if (mount) rows.push({ mount, prot: prot(o['ProtectionStatus']), vol: vol(o['VolumeStatus']), line: null, raw: `${mount} ProtectionStatus ${String(o['ProtectionStatus'])}` });
    }
  } else {
    for (const t of parseTables(lines)) {
      if (!t.headers.includes('MountPoint')) continue;
      for (const r of t.rows) rows.push({ mount: r.cells['MountPoint'] ?? '', prot: r.cells['ProtectionStatus'] || null, vol: r.cells['VolumeStatus'] || null, line: r.line, raw: r.raw.trim() });
    }
    for (const rec of parseFormatList(lines)) {
      const mount = rec.get('MountPoint');
      if (mount) rows.push({ mount, prot: rec.get('ProtectionStatus'), vol: rec.get('VolumeStatus'), line: rec.field('ProtectionStatus')?.line ?? rec.startLine, raw: `MountPoint : ${mount}; ProtectionStatus : ${rec.get('ProtectionStatus') ?? ''}` });
    }
  }
  for (const r of rows) if (r.mount) facts.push(makeFact('bitlocker', ctx, r.line, r.raw, { mountPoint: r.mount, protectionStatus: r.prot, volumeStatus: r.vol }));
  return { facts, warnings: facts.length ? [] : ['no BitLocker volumes found'] };
}

/** True when the lines hold Get-BitLockerVolume output. */
export function looksLikeBitLocker(lines: readonly string[]): boolean {
  return lines.some((l) => /\bMountPoint\b/.test(l)) && lines.some((l) => /\bProtectionStatus\b|\bVolumeStatus\b/.test(l));
}

// ---------------------------------------------------------------- connectivity

/** True when the lines hold Test-NetConnection output. */
export function looksLikeTestNetConnection(lines: readonly string[]): boolean {
  return lines.some((l) => /^\s*ComputerName\s*:/.test(l)) && lines.some((l) => /^\s*(TcpTestSucceeded|PingSucceeded)\s*:/.test(l));
}

const PRIVATE = /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|127\.|169\.254\.)/;

/** Parse Test-NetConnection list output; scope is external unless the target is a private address. */
export function parseTestNetConnection(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const facts: Fact[] = [];
  for (const rec of parseFormatList(toLines(text), { minFields: 2 })) {
    const target = rec.get('ComputerName');
    if (!target) continue;
    const addr = rec.get('RemoteAddress') ?? target;
    const scope = PRIVATE.test(addr) || /\.svc\b|\.cluster\.local$/i.test(target) ? 'cluster' : 'external';
    const tcp = rec.get('TcpTestSucceeded');
    const ping = rec.get('PingSucceeded');
    if (tcp !== null) facts.push(makeFact('connectivity', ctx, rec.field('TcpTestSucceeded')!.line, `${target}:${rec.get('RemotePort') ?? ''} TcpTestSucceeded : ${tcp}`, { target, scope, protocol: 'tcp', port: rec.get('RemotePort') ? Number(rec.get('RemotePort')) : null, ok: /true/i.test(tcp) }));
    if (ping !== null) facts.push(makeFact('connectivity', ctx, rec.field('PingSucceeded')!.line, `${target} PingSucceeded : ${ping}`, { target, scope, protocol: 'icmp', port: null, ok: /true/i.test(ping) }));
  }
  return { facts, warnings: facts.length ? [] : ['no Test-NetConnection results'] };
}

/** The connectivity probe's JSON: `[{"target", "scope", "protocol", "port", "ok"}]`. */
export function parseConnectivityJson(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const j = jsonRows(text);
  if (!j) return { facts: [], warnings: ['no JSON found'] };
  const facts: Fact[] = [];
  for (const o of j.rows) {
    const target = s(o, 'target');
    const scope = s(o, 'scope');
    const protocol = s(o, 'protocol');
    if (!target || !scope || !protocol || !['external', 'cluster', 'nodeport-local', 'nodeport-remote'].includes(scope) || !['icmp', 'tcp', 'http'].includes(protocol)) continue;
    facts.push(
      makeFact('connectivity', ctx, null, `${protocol} ${target}${o['port'] ? `:${String(o['port'])}` : ''} (${scope}): ${o['ok'] === true ? 'ok' : 'failed'}`, {
        target,
        scope: scope as 'external',
        protocol: protocol as 'tcp',
        port: typeof o['port'] === 'number' ? (o['port'] as number) : null,
        ok: o['ok'] === true,
      }),
    );
  }
  return { facts, warnings: [] };
}
