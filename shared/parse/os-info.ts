/**
 * Windows version evidence: `systeminfo` (English and a few localized labels, CI timestamp prefixes stripped),
 * `Get-ComputerInfo` (list or JSON; never trust WindowsCurrentVersion, which says 6.3 on Windows 10), and
 * Win32_OperatingSystem (`Get-CimInstance`, JSON or list; also `wmic os get Caption,Version,BuildNumber`).
 * The build number decides, not the product name (Windows 11 calls itself Windows 10 in places).
 */
import { makeFact, type Fact, type OsInfoData, type ParseContext, type ParseResult } from '../logic/facts';
import { parseLooseJson } from './json-loose';
import { parseFormatList, splitPsList } from './ps-list';
import { toLines } from './text';

const DEFAULT_CTX: ParseContext = { source: 'input', node: null };

/** Windows 10/Server release ids (WindowsVersion / ReleaseId) to build numbers. */
const RELEASE_TO_BUILD: Record<string, number> = {
  '1507': 10240,
  '1511': 10586,
  '1607': 14393,
  '1703': 15063,
  '1709': 16299,
  '1803': 17134,
  '1809': 17763,
  '1903': 18362,
  '1909': 18363,
  '2004': 19041,
};

/** True for a client edition name (Windows 10/11 without "Server"). */
export function isClientProductName(name: string | null): boolean | null {
  if (!name) return null;
  if (/server/i.test(name)) return false;
  if (/\bWindows (?:10|11)\b/i.test(name)) return true;
  return null;
}

// ---------------------------------------------------------------- systeminfo

const SI_VERSION = /^\s*[^:]{2,60}:\s+10\.0\.(\d{4,5})\b.*?(?:Build|build|Compilación|compilación|version|Version)\s*(\d{4,5})\s*$/;
const SI_NAME = /^\s*(?:OS Name|Betriebssystemname|Nom du système d.exploitation|Nombre del sistema operativo|Nome SO)\s*:\s+(.*?)\s*$/i;
const SI_HOST = /^\s*(?:Host Name|Hostname|Nom de l.hôte|Nombre de host|Nome host)\s*:\s+(\S+)\s*$/i;
const SI_CONFIG = /^\s*(?:OS Configuration|Betriebssystemkonfiguration|Configuration du système d.exploitation|Configuración del sistema operativo)\s*:\s+(.*?)\s*$/i;

/** True when the lines are systeminfo output. */
export function looksLikeSysteminfo(lines: readonly string[]): boolean {
  return lines.some((l) => SI_VERSION.test(l)) && lines.some((l) => SI_NAME.test(l) || SI_HOST.test(l));
}

/** Parse `systeminfo.exe`. */
export function parseSysteminfo(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  let build: number | null = null;
  let versionLine: number | null = null;
  let name: string | null = null;
  let config: string | null = null;
  lines.forEach((l, i) => {
    const v = SI_VERSION.exec(l);
    if (v && build === null) {
      build = Number(v[1]);
      versionLine = i + 1;
    }
    const n = SI_NAME.exec(l);
    if (n && name === null) name = n[1]!;
    const c = SI_CONFIG.exec(l);
    if (c && config === null) config = c[1]!;
  });
  if (build === null) return { facts: [], warnings: ['no OS Version line found'] };
  const installationType = config ? (/server/i.test(config) ? 'Server' : /workstation|arbeitsstation|station de travail|estación de trabajo/i.test(config) ? 'Client' : null) : null;
  const data: OsInfoData = {
    build,
    ubr: null,
    productName: name,
    installationType,
    isClient: installationType === 'Client' ? true : isClientProductName(name),
    origin: 'systeminfo',
  };
  return { facts: [makeFact('os-info', ctx, versionLine, (lines[(versionLine ?? 1) - 1] ?? '').trim(), data)], warnings: ['systeminfo does not show the UBR (patch level)'] };
}

// ---------------------------------------------------------------- Get-ComputerInfo

const CI_KEYS = /^(WindowsProductName|WindowsBuildLabEx|WindowsInstallationType|WindowsVersion|WindowsUBR|WindowsCurrentVersion|WindowsEditionId|OsName|OsBuildNumber|OsVersion|OsOperatingSystemSKU|OsHotFixes|CsName|OsType)\s*:/;

/** True when the lines are Get-ComputerInfo list output. */
export function looksLikeComputerInfo(lines: readonly string[]): boolean {
  return lines.filter((l) => CI_KEYS.test(l)).length >= 2;
}

function computerInfoData(get: (k: string) => string | null): { data: OsInfoData; key: string | null } {
  const product = get('OsName') ?? get('WindowsProductName');
  let build: number | null = null;
  let key: string | null = null;
  const osBuild = get('OsBuildNumber');
  const osVersion = get('OsVersion');
  const lab = get('WindowsBuildLabEx');
  const current = get('WindowsCurrentBuild') ?? get('CurrentBuild');
  const release = get('WindowsVersion');
  if (osBuild && /^\d{4,5}$/.test(osBuild)) {
    build = Number(osBuild);
    key = 'OsBuildNumber';
  } else if (osVersion && /^10\.0\.\d{4,5}/.test(osVersion)) {
    build = Number(osVersion.split('.')[2]);
    key = 'OsVersion';
  } else if (lab && /^\d{4,5}\./.test(lab)) {
    build = Number(lab.split('.')[0]);
    key = 'WindowsBuildLabEx';
  } else if (current && /^\d{4,5}$/.test(current)) {
    build = Number(current);
    key = 'WindowsCurrentBuild';
  } else if (release && RELEASE_TO_BUILD[release] !== undefined) {
    build = RELEASE_TO_BUILD[release]!;
    key = 'WindowsVersion';
  }
  const ubrText = get('WindowsUBR');
  const installationType = get('WindowsInstallationType');
  const client = installationType ? /^client$/i.test(installationType) : isClientProductName(product);
  return {
    data: {
      build,
      ubr: ubrText && /^\d+$/.test(ubrText) ? Number(ubrText) : null,
      productName: product,
      installationType,
      isClient: installationType ? /^client$/i.test(installationType) : client,
      origin: 'get-computerinfo',
    },
    key: key ?? (installationType ? 'WindowsInstallationType' : null),
  };
}

/** Parse Get-ComputerInfo (list format or ConvertTo-Json). */
export function parseComputerInfo(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const recs = parseFormatList(lines, { minFields: 1 });
  const facts: Fact[] = [];
  const rec = recs.find((r) => r.fields.some((f) => CI_KEYS.test(`${f.key} :`)));
  if (rec) {
    const { data, key } = computerInfoData((k) => rec.get(k));
    const field = (key && rec.field(key)) || rec.fields[0]!;
    const typeField = rec.field('WindowsInstallationType');
    const excerptParts = [`${field.key} : ${field.value}`];
    if (typeField && typeField !== field) excerptParts.push(`WindowsInstallationType : ${typeField.value}`);
    const product = rec.field('WindowsProductName') ?? rec.field('OsName');
    if (product) excerptParts.push(`${product.key} : ${product.value}`);
    facts.push(makeFact('os-info', ctx, field.line, excerptParts.join('; '), data));
    const hot = rec.get('OsHotFixes');
    void splitPsList(hot);
    return { facts, warnings: [] };
  }
  const json = parseLooseJson(lines);
  if (json && typeof json.value === 'object' && json.value !== null && !Array.isArray(json.value)) {
    const o = json.value as Record<string, unknown>;
    const get = (k: string) => (typeof o[k] === 'string' || typeof o[k] === 'number' ? String(o[k]) : null);
    const { data } = computerInfoData(get);
    if (data.build !== null || data.productName !== null) facts.push(makeFact('os-info', ctx, json.startLine, `OsName: ${data.productName ?? ''}; build ${data.build ?? '?'}`, data));
  }
  return { facts, warnings: facts.length ? [] : ['no Get-ComputerInfo fields found'] };
}

// ---------------------------------------------------------------- Win32_OperatingSystem / [Environment]::OSVersion

/** Parse Win32_OperatingSystem (Caption, Version, BuildNumber, ProductType) as JSON, list or wmic table. */
export function parseWin32Os(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  let caption: string | null = null;
  let build: number | null = null;
  let ubr: number | null = null;
  let productType: number | null = null;
  let line: number | null = null;
  const json = parseLooseJson(lines);
  if (json && typeof json.value === 'object' && json.value !== null) {
    const o = (Array.isArray(json.value) ? json.value[0] : json.value) as Record<string, unknown> | undefined;
    if (o) {
      caption = typeof o['Caption'] === 'string' ? o['Caption'] : null;
      const b = o['BuildNumber'] ?? o['CurrentBuild'] ?? o['OsBuildNumber'];
      if (b !== undefined && /^\d{4,5}$/.test(String(b))) build = Number(b);
      const u = o['UBR'] ?? o['WindowsUBR'];
      if (u !== undefined && /^\d+$/.test(String(u))) ubr = Number(u);
      if (typeof o['ProductType'] === 'number') productType = o['ProductType'];
      line = json.startLine;
    }
  } else {
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i] ?? '';
      const env = /^\s*Win32NT\s+\S*\s*10\.0\.(\d{4,5})\.(\d+)/.exec(l);
      if (env) {
        build = Number(env[1]);
        line = i + 1;
      }
      const c = /^\s*Caption\s*:\s*(.+?)\s*$/.exec(l);
      if (c) caption = c[1]!;
      const b = /^\s*BuildNumber\s*:\s*(\d{4,5})\s*$/.exec(l);
      if (b) {
        build = Number(b[1]);
        line = i + 1;
      }
      const wm = /^\s*(\d{4,5})\s+(Microsoft Windows.*?)\s{2,}/.exec(l);
      if (wm && /BuildNumber/i.test(lines[i - 1] ?? '')) {
        build = Number(wm[1]);
        caption = wm[2]!;
        line = i + 1;
      }
    }
  }
  if (build === null) return { facts: [], warnings: ['no build number found'] };
  const data: OsInfoData = {
    build,
    ubr,
    productName: caption,
    installationType: productType === 1 ? 'Client' : productType === 2 || productType === 3 ? 'Server' : null,
    isClient: productType === 1 ? true : productType === 2 || productType === 3 ? false : isClientProductName(caption),
    origin: 'probe',
  };
  return { facts: [makeFact('os-info', ctx, line, `${caption ?? 'Windows'} build ${build}${ubr !== null ? `.${ubr}` : ''}`, data)], warnings: [] };
}

// ---------------------------------------------------------------- WER report

/** Parse a Windows Error Reporting `Report.wer` (key=value). Parse-only evidence. */
export function parseWerReport(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const kv = new Map<string, { value: string; line: number }>();
  const sigNames = new Map<string, string>();
  lines.forEach((l, i) => {
    const m = /^([\w.[\]]+)=(.*)$/.exec(l.trim());
    if (!m) return;
    kv.set(m[1]!, { value: m[2]!, line: i + 1 });
    const sn = /^((?:Dynamic)?Sig\[\d+\])\.Name$/.exec(m[1]!);
    if (sn) sigNames.set(m[2]!.trim(), sn[1]!);
  });
  const sig = (name: string) => {
    const k = sigNames.get(name);
    return k ? (kv.get(`${k}.Value`)?.value ?? null) : null;
  };
  const appName = kv.get('NsAppName')?.value ?? kv.get('AppName')?.value ?? sig('Application Name');
  const facts: Fact[] = [
    makeFact('wer-report', ctx, kv.get('EventType')?.line ?? 1, `EventType=${kv.get('EventType')?.value ?? ''} ${appName ?? ''} exception ${sig('Exception Code') ?? ''}`, {
      appName,
      eventType: kv.get('EventType')?.value ?? null,
      exceptionCode: sig('Exception Code'),
      isFatal: kv.has('IsFatal') ? kv.get('IsFatal')!.value === '1' : null,
      osVersion: sig('OS Version'),
    }),
  ];
  return { facts, warnings: [] };
}

/** `[Environment]::OSVersion.ToString()` (collectlogs.ps1 winver.txt): `Microsoft Windows NT 10.0.17763.0`. */
export function parseWinver(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*Microsoft Windows NT 10\.0\.(\d{4,5})\.\d+\s*$/.exec(lines[i] ?? '');
    if (m) return { facts: [makeFact('os-info', ctx, i + 1, (lines[i] ?? '').trim(), { build: Number(m[1]), ubr: null, productName: null, installationType: null, isClient: null, origin: 'other' })], warnings: [] };
  }
  return { facts: [], warnings: ['no OS version string'] };
}
