/**
 * Small, forgiving readers of what Windeck's own scripts print (PowerShell 5.1 or 7 JSON). They never throw:
 * odd input gives an empty/partial value and a warning. The general parsers of pasted outputs live in
 * shared/parse/ (another module); the `services` normalizer here will switch to shared/parse when it exists.
 */

export interface Normalized<T> {
  value: T;
  warnings: string[];
}

/** ServiceControllerStatus numbers (Windows PowerShell 5.1 JSON) and names (PS 7 -EnumsAsStrings). */
export const SERVICE_STATUS_NAMES: Record<number, string> = {
  1: 'Stopped',
  2: 'StartPending',
  3: 'StopPending',
  4: 'Running',
  5: 'ContinuePending',
  6: 'PausePending',
  7: 'Paused',
};
/** ServiceStartMode numbers. */
export const START_TYPE_NAMES: Record<number, string> = { 0: 'Boot', 1: 'System', 2: 'Automatic', 3: 'Manual', 4: 'Disabled' };
/** Win32_Service.StartMode strings -> ServiceStartMode names. */
const WMI_START_MODE: Record<string, string> = { auto: 'Automatic', automatic: 'Automatic', manual: 'Manual', disabled: 'Disabled', boot: 'Boot', system: 'System' };
/** Win32_Service.State strings ("Start Pending") -> names. */
const WMI_STATE: Record<string, string> = {
  stopped: 'Stopped',
  'start pending': 'StartPending',
  'stop pending': 'StopPending',
  running: 'Running',
  'continue pending': 'ContinuePending',
  'pause pending': 'PausePending',
  paused: 'Paused',
  unknown: 'Unknown',
};

/** Strip a BOM and decode UTF-16LE if it looks like it; JSON text as a string. */
export function textOf(raw: string | Buffer): string {
  if (typeof raw === 'string') return raw.replace(/^\uFEFF/, '');
  if (raw.length >= 2 && raw[0] === 0xff && raw[1] === 0xfe) return raw.subarray(2).toString('utf16le');
  if (raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) return raw.subarray(3).toString('utf8');
  return raw.toString('utf8');
}

/** Parse JSON output; empty output is `empty` (PowerShell prints nothing for an empty pipeline). */
export function readJson(raw: string | Buffer, empty: unknown = []): Normalized<unknown> {
  const text = textOf(raw).trim();
  if (text === '') return { value: empty, warnings: [] };
  try {
    return { value: JSON.parse(text) as unknown, warnings: [] };
  } catch (error) {
    // Something printed before the JSON (a profile banner, non-UTF-8 bytes): try from the first bracket.
    const start = text.search(/[[{]/);
    if (start > 0) {
      try {
        return { value: JSON.parse(text.slice(start)) as unknown, warnings: [`ignored ${start} characters before the JSON output`] };
      } catch {
        // fall through
      }
    }
    return { value: empty, warnings: [`output is not valid JSON: ${(error as Error).message.slice(0, 120)}`] };
  }
}

/** PowerShell unrolls one-item pipelines: accept an object or an array. */
export function asArray(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value === null || value === undefined) return [];
  return [value];
}

function rec(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
}

/** `"\/Date(1712345678901)\/"` (5.1) or an ISO string (7) -> ISO, else null. */
export function psDate(v: unknown): string | null {
  if (typeof v === 'string') {
    const m = /^\/Date\((-?\d+)(?:[+-]\d{4})?\)\/$/.exec(v);
    if (m) return new Date(Number(m[1])).toISOString();
    const t = Date.parse(v);
    return Number.isNaN(t) ? null : new Date(t).toISOString();
  }
  if (typeof v === 'object' && v !== null && 'value' in v) return psDate((v as { value: unknown }).value);
  return null;
}

export function serviceStatusName(v: unknown): string {
  if (typeof v === 'number') return SERVICE_STATUS_NAMES[v] ?? `Unknown(${v})`;
  if (typeof v === 'string') {
    const byName = Object.values(SERVICE_STATUS_NAMES).find((n) => n.toLowerCase() === v.toLowerCase());
    return byName ?? WMI_STATE[v.toLowerCase()] ?? v;
  }
  return 'Unknown';
}

export function startTypeName(v: unknown): string {
  if (typeof v === 'number') return START_TYPE_NAMES[v] ?? `Unknown(${v})`;
  if (typeof v === 'string') return Object.values(START_TYPE_NAMES).find((n) => n.toLowerCase() === v.toLowerCase()) ?? WMI_START_MODE[v.toLowerCase()] ?? v;
  return 'Unknown';
}

export interface ServiceState {
  name: string;
  displayName: string;
  status: string;
  startType: string;
}

/** `services` probe: Get-Service JSON (5.1 numbers or 7 names; object or array; empty) -> named states. */
export function normalizeServices(raw: string | Buffer, requested: readonly string[] = []): Normalized<{ services: ServiceState[]; missing: string[] }> {
  const { value, warnings } = readJson(raw);
  const services: ServiceState[] = [];
  for (const item of asArray(value)) {
    const r = rec(item);
    const name = str(r.Name);
    if (!name) {
      warnings.push('a service entry without a Name was skipped');
      continue;
    }
    services.push({ name, displayName: str(r.DisplayName) ?? name, status: serviceStatusName(r.Status), startType: startTypeName(r.StartType) });
  }
  const have = new Set(services.map((s) => s.name.toLowerCase()));
  const missing = requested.filter((n) => !have.has(n.toLowerCase()));
  return { value: { services, missing }, warnings };
}

export interface ServiceConfig {
  name: string;
  displayName: string;
  state: string;
  startType: string;
  pathName: string;
  startName: string | null;
  processId: number;
  dependOnService: string[];
  nssm: { application: string; appParameters: string; appDirectory: string; appEnvironmentExtra: string[] } | null;
  /** The effective command line: nssm Application + AppParameters, else PathName. */
  commandLine: string;
}

export function normalizeServiceConfig(raw: string | Buffer): Normalized<ServiceConfig[]> {
  const { value, warnings } = readJson(raw);
  const out: ServiceConfig[] = [];
  for (const item of asArray(value)) {
    const r = rec(item);
    const name = str(r.Name);
    if (!name) continue;
    const n = r.Nssm ? rec(r.Nssm) : null;
    const nssm = n
      ? { application: str(n.Application) ?? '', appParameters: str(n.AppParameters) ?? '', appDirectory: str(n.AppDirectory) ?? '', appEnvironmentExtra: asArray(n.AppEnvironmentExtra).map(String) }
      : null;
    const pathName = str(r.PathName) ?? '';
    out.push({
      name,
      displayName: str(r.DisplayName) ?? name,
      state: serviceStatusName(r.State),
      startType: startTypeName(r.StartMode),
      pathName,
      startName: str(r.StartName),
      processId: typeof r.ProcessId === 'number' ? r.ProcessId : 0,
      dependOnService: asArray(r.DependOnService).map(String),
      nssm,
      commandLine: nssm && nssm.application ? `${nssm.application} ${nssm.appParameters}`.trim() : pathName,
    });
  }
  return { value: out, warnings };
}

export function normalizeProcesses(raw: string | Buffer): Normalized<Array<{ pid: number; parentPid: number; name: string; commandLine: string | null; startedAt: string | null }>> {
  const { value, warnings } = readJson(raw);
  return {
    value: asArray(value).map((item) => {
      const r = rec(item);
      return { pid: Number(r.ProcessId ?? 0), parentPid: Number(r.ParentProcessId ?? 0), name: str(r.Name) ?? '', commandLine: str(r.CommandLine), startedAt: psDate(r.CreationDate) };
    }),
    warnings,
  };
}

/** HNS objects pass through as HNS printed them (arrays always). */
export function normalizeHns(raw: string | Buffer): Normalized<Array<Record<string, unknown>>> {
  const { value, warnings } = readJson(raw);
  return { value: asArray(value).map(rec), warnings };
}

export function normalizeNetAdapters(raw: string | Buffer): Normalized<{ adapters: Array<Record<string, unknown>>; ipAddresses: Array<Record<string, unknown>> }> {
  const { value, warnings } = readJson(raw, {});
  const r = rec(value);
  return {
    value: {
      adapters: asArray(r.Adapters).map((a) => {
        const x = rec(a);
        return { name: str(x.Name), interfaceDescription: str(x.InterfaceDescription), ifIndex: x.ifIndex ?? null, status: str(x.Status), macAddress: str(x.MacAddress), linkSpeed: str(x.LinkSpeed), mtu: x.MtuSize ?? null };
      }),
      ipAddresses: asArray(r.IPAddresses).map((a) => {
        const x = rec(a);
        return { interfaceAlias: str(x.InterfaceAlias), interfaceIndex: x.InterfaceIndex ?? null, ipAddress: str(x.IPAddress), prefixLength: x.PrefixLength ?? null };
      }),
    },
    warnings,
  };
}

export function normalizeDns(raw: string | Buffer): Normalized<{ suffixSearchList: string[]; results: Array<{ query: string; succeeded: boolean; addresses: string[]; answerName: string | null; error: string | null }> }> {
  const { value, warnings } = readJson(raw, {});
  const r = rec(value);
  return {
    value: {
      suffixSearchList: asArray(r.SuffixSearchList).map(String),
      results: asArray(r.Results).map((item) => {
        const x = rec(item);
        const answers = asArray(x.Answers).map(rec);
        return {
          query: str(x.Query) ?? '',
          succeeded: x.Succeeded === true,
          addresses: answers.map((a) => str(a.IPAddress)).filter((a): a is string => a !== null),
          answerName: answers.length > 0 ? str(answers[0]!.Name) : null,
          error: str(x.Error),
        };
      }),
    },
    warnings,
  };
}

export function normalizeOs(raw: string | Buffer): Normalized<Record<string, unknown>> {
  const { value, warnings } = readJson(raw, {});
  const r = rec(value);
  return {
    value: {
      caption: str(r.Caption),
      version: str(r.Version),
      buildNumber: str(r.BuildNumber),
      ubr: typeof r.UBR === 'number' ? r.UBR : null,
      osArchitecture: str(r.OSArchitecture),
      computerName: str(r.CSName),
      displayVersion: str(r.DisplayVersion),
      installDate: psDate(r.InstallDate),
      lastBootUpTime: psDate(r.LastBootUpTime),
      hotfixes: asArray(r.HotFixes).map((h) => {
        const x = rec(h);
        return { id: str(x.HotFixID), description: str(x.Description), installedOn: psDate(x.InstalledOn) };
      }),
    },
    warnings,
  };
}

export interface FileContent {
  path: string;
  exists: boolean;
  length: number;
  lastWriteTime: string | null;
  /** Where the returned bytes start (a tail when the file is larger than the cap). */
  offset: number;
  truncated: boolean;
  encoding: 'utf8' | 'utf8-bom' | 'utf16le' | 'binary' | null;
  text: string | null;
}

function decodeBytes(bytes: Buffer): { encoding: FileContent['encoding']; text: string } {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf16le', text: bytes.subarray(2).toString('utf16le') };
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf8-bom', text: bytes.subarray(3).toString('utf8') };
  // UTF-16LE without BOM: many NULs at odd positions.
  const sample = bytes.subarray(0, 512);
  let oddNuls = 0;
  for (let i = 1; i < sample.length; i += 2) if (sample[i] === 0) oddNuls += 1;
  if (sample.length >= 8 && oddNuls > sample.length / 4) return { encoding: 'utf16le', text: bytes.toString('utf16le') };
  return { encoding: 'utf8', text: bytes.toString('utf8') };
}

/** `files` and `logs` probes: base64 contents decoded (BOM / UTF-16 aware). */
export function normalizeFiles(raw: string | Buffer): Normalized<FileContent[]> {
  const { value, warnings } = readJson(raw);
  const out: FileContent[] = [];
  for (const item of asArray(value)) {
    const r = rec(item);
    const path = str(r.Path) ?? '';
    const exists = r.Exists === true;
    const length = Number(r.Length ?? 0);
    const offset = Number(r.Offset ?? 0);
    let encoding: FileContent['encoding'] = null;
    let text: string | null = null;
    if (exists && typeof r.ContentBase64 === 'string') {
      const bytes = Buffer.from(r.ContentBase64, 'base64');
      const d = decodeBytes(bytes);
      encoding = d.encoding;
      text = d.text;
    }
    out.push({ path, exists, length, lastWriteTime: psDate(r.LastWriteTime), offset, truncated: offset > 0, encoding, text });
  }
  return { value: out, warnings };
}

export function normalizeRuntime(raw: string | Buffer): Normalized<Record<string, unknown>> {
  const { value, warnings } = readJson(raw, {});
  const r = rec(value);
  const c = r.Containerd ? rec(r.Containerd) : null;
  const versionOutput = c ? str(c.VersionOutput) : null;
  const m = versionOutput ? /\bv?(\d+\.\d+\.\d+(?:[-+][\w.]+)?)\b/.exec(versionOutput) : null;
  const d = r.Docker ? rec(r.Docker) : null;
  return {
    value: {
      containerd: c ? { path: str(c.Path), version: m ? m[1] : null, versionOutput, configPath: str(c.ConfigPath) } : null,
      docker: d ? { version: str(d.Version), apiVersion: str(d.ApiVersion) } : null,
      sandboxImage: str(r.SandboxImage),
      images: asArray(r.Images).map((i) => {
        const x = rec(i);
        return { ref: str(x.Ref), id: str(x.Id), sizeBytes: typeof x.SizeBytes === 'number' ? x.SizeBytes : null, osVersion: str(x.OsVersion) };
      }),
    },
    warnings,
  };
}

export function normalizeRestart(raw: string | Buffer): Normalized<Record<string, unknown>> {
  const { value, warnings } = readJson(raw, {});
  const r = rec(value);
  const state = (v: unknown) => {
    const x = rec(v);
    return { status: serviceStatusName(x.Status), startType: startTypeName(x.StartType) };
  };
  return {
    value: {
      name: str(r.Name),
      before: state(r.Before),
      after: state(r.After),
      dependents: asArray(r.Dependents).map(String),
      dependentsAfter: asArray(r.DependentsAfter).map((d) => ({ name: str(rec(d).Name), status: serviceStatusName(rec(d).Status) })),
      succeeded: r.Succeeded === true,
      error: str(r.Error),
      durationMs: typeof r.DurationMs === 'number' ? r.DurationMs : null,
    },
    warnings,
  };
}
