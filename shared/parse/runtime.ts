/**
 * Container runtime output: `docker version` (old two-section format and the newer `Engine:` layout),
 * `docker info` (indented key/value tree; on Windows it also carries the kernel build), `containerd --version`
 * and `ctr version`.
 */
import { makeFact, type Fact, type OsInfoData, type ParseContext, type ParseResult } from '../logic/facts';
import { isClientProductName } from './os-info';
import { toLines } from './text';

const DEFAULT_CTX: ParseContext = { source: 'input', node: null };

/** True when the lines hold `docker version` output. */
export function looksLikeDockerVersion(lines: readonly string[]): boolean {
  return lines.some((l) => /^Client(?::|: .*)\s*$/.test(l.trim())) && lines.some((l) => /^\s+API version:\s+\d/.test(l));
}

/** True when the lines hold `docker info` output. */
export function looksLikeDockerInfo(lines: readonly string[]): boolean {
  return lines.some((l) => /^\s*Server Version:\s+\S/.test(l)) && lines.some((l) => /^\s*(Storage Driver|Containers|Default Isolation|Logging Driver|OSType):/.test(l));
}

/** Parse `docker version`. */
export function parseDockerVersion(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  let section: 'client' | 'server' | null = null;
  let sub: string | null = null;
  let serverOs: string | null = null;
  let clientOs: string | null = null;
  let server: { v: string; line: number } | null = null;
  let client: { v: string; line: number } | null = null;
  let containerd: { v: string; line: number } | null = null;
  lines.forEach((l, i) => {
    if (/^Client\b.*:?\s*$/.test(l) && /^Client(:|\s)/.test(l)) {
      section = 'client';
      sub = null;
      return;
    }
    if (/^Server\b.*:?\s*$/.test(l) && /^Server(:|\s)/.test(l)) {
      section = 'server';
      sub = null;
      return;
    }
    if (/^\S/.test(l) && !/^(Client|Server)/.test(l)) {
      section = null;
      return;
    }
    const subHead = /^ (\w[\w ]*):\s*$/.exec(l);
    if (subHead) {
      sub = subHead[1]!.toLowerCase();
      return;
    }
    const ver = /^\s+Version:\s+(\S+)/.exec(l);
    const os = /^\s+OS\/Arch:\s+(\S+)/.exec(l);
    if (section === 'server') {
      if (ver && (sub === null || sub === 'engine') && !server) server = { v: ver[1]!, line: i + 1 };
      if (ver && sub === 'containerd' && !containerd) containerd = { v: ver[1]!, line: i + 1 };
      if (os && (sub === null || sub === 'engine')) serverOs = os[1]!;
    } else if (section === 'client') {
      if (ver && !client) client = { v: ver[1]!, line: i + 1 };
      if (os) clientOs = os[1]!;
    }
  });
  const s = server as { v: string; line: number } | null;
  const c = client as { v: string; line: number } | null;
  const cd = containerd as { v: string; line: number } | null;
  if (s) facts.push(makeFact('runtime-version', ctx, s.line, `Server: Version: ${s.v}${serverOs ? ` (${serverOs})` : ''}`, { runtime: 'docker', version: s.v, role: 'server', os: serverOs }));
  if (c) facts.push(makeFact('runtime-version', ctx, c.line, `Client: Version: ${c.v}`, { runtime: 'docker', version: c.v, role: 'client', os: clientOs }));
  if (cd) facts.push(makeFact('runtime-version', ctx, cd.line, `containerd: Version: ${cd.v}`, { runtime: 'containerd', version: cd.v.replace(/^v/, ''), role: 'server', os: serverOs }));
  return { facts, warnings: s ? [] : ['no Server section (daemon not reachable?)'] };
}

/** Parse `docker info`: the engine version and, on Windows, the host kernel build and OS name. */
export function parseDockerInfo(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  let serverVersion: { v: string; line: number } | null = null;
  let kernel: { build: number; line: number; raw: string } | null = null;
  let osName: { value: string; line: number; build: number | null; ubr: number | null } | null = null;
  let osType: string | null = null;
  lines.forEach((l, i) => {
    const sv = /^\s*Server Version:\s+(\S+)/.exec(l);
    if (sv && !serverVersion) serverVersion = { v: sv[1]!, line: i + 1 };
    const kv = /^\s*Kernel Version:\s+10\.0 (\d{4,5})\b/.exec(l);
    if (kv && !kernel) kernel = { build: Number(kv[1]), line: i + 1, raw: l.trim() };
    const os = /^\s*Operating System:\s+(.*?)\s*$/.exec(l);
    if (os && !osName) {
      const b = /\(OS Build (\d{4,5})\.(\d+)\)/.exec(os[1]!);
      osName = { value: os[1]!, line: i + 1, build: b ? Number(b[1]) : null, ubr: b ? Number(b[2]) : null };
    }
    const t = /^\s*OSType:\s+(\S+)/.exec(l);
    if (t) osType = t[1]!;
  });
  const sv = serverVersion as { v: string; line: number } | null;
  const k = kernel as { build: number; line: number; raw: string } | null;
  const on = osName as { value: string; line: number; build: number | null; ubr: number | null } | null;
  if (sv) facts.push(makeFact('runtime-version', ctx, sv.line, `Server Version: ${sv.v}`, { runtime: 'docker', version: sv.v, role: 'server', os: osType }));
  const build = k?.build ?? on?.build ?? null;
  if (build !== null && (osType === null || osType === 'windows')) {
    const data: OsInfoData = { build, ubr: on?.ubr ?? null, productName: on?.value ?? null, installationType: null, isClient: isClientProductName(on?.value ?? null), origin: 'docker-info' };
    const excerpt = [k?.raw, on ? `Operating System: ${on.value}` : null].filter(Boolean).join('; ');
    facts.push(makeFact('os-info', ctx, k?.line ?? on?.line ?? null, excerpt, data));
  }
  return { facts, warnings: sv ? [] : ['no Server Version'] };
}

/** True when the text is `containerd --version` / `ctr version` output. */
export function looksLikeContainerdVersion(lines: readonly string[]): boolean {
  return lines.some((l) => /^containerd(?:\.exe)? (?:github\.com\/containerd\/containerd )?v?\d+\.\d+/.test(l.trim()));
}

/** Parse `containerd --version`. */
export function parseContainerdVersion(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  for (let i = 0; i < lines.length; i++) {
    const m = /^containerd(?:\.exe)? (?:github\.com\/containerd\/containerd )?v?(\d+\.\d+\.\d+\S*)/.exec((lines[i] ?? '').trim());
    if (m) return { facts: [makeFact('runtime-version', ctx, i + 1, (lines[i] ?? '').trim(), { runtime: 'containerd', version: m[1]!, role: 'server', os: null })], warnings: [] };
  }
  return { facts: [], warnings: ['no containerd version found'] };
}

/** The runtime probe: `{"Containerd": {"VersionOutput"}, "Docker": {"Version", "ApiVersion"}, "SandboxImage", "Images"}`. */
export function parseRuntimeProbeJson(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  let value: unknown;
  try {
    value = JSON.parse(lines.join('\n'));
  } catch {
    return { facts: [], warnings: ['runtime probe output is not JSON'] };
  }
  if (typeof value !== 'object' || value === null) return { facts: [], warnings: ['no object'] };
  const o = value as Record<string, unknown>;
  const facts: Fact[] = [];
  const cd = o['Containerd'] as Record<string, unknown> | null | undefined;
  if (cd && typeof cd['VersionOutput'] === 'string') {
    const m = /v?(\d+\.\d+\.\d+\S*)/.exec(cd['VersionOutput'] as string);
    if (m) facts.push(makeFact('runtime-version', ctx, null, String(cd['VersionOutput']).trim(), { runtime: 'containerd', version: m[1]!, role: 'server', os: 'windows' }));
  }
  const dk = o['Docker'] as Record<string, unknown> | null | undefined;
  if (dk && typeof dk['Version'] === 'string') facts.push(makeFact('runtime-version', ctx, null, `docker Server Version ${dk['Version'] as string}`, { runtime: 'docker', version: dk['Version'] as string, role: 'server', os: 'windows' }));
  return { facts, warnings: [] };
}
