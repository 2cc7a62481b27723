/**
 * CNI configuration (flannel delegating to win-bridge/win-overlay/l2bridge, win-bridge/win-overlay directly,
 * `.conflist` with `plugins`, Azure CNI, Calico, nsx...) and flannel's `net-conf.json`. Accepts PowerShell 5.1
 * ConvertTo-Json layout, a UTF-8 BOM, CRLF, a `cat` echo line before it, and KubeCluster.ps1's
 * `Generated CNI Config [{...}]` / `Generated net-conf Config [{...}]` wrappers (both may be in one file).
 */
import { makeFact, type CniConfigData, type CniRoute, type Fact, type FlannelNetConfData, type ParseContext, type ParseResult } from '../logic/facts';
import { parseLooseJson } from './json-loose';
import { toLines } from './text';

const DEFAULT_CTX: ParseContext = { source: 'input', node: null };

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : null;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Every JSON value in the text (a file may hold a CNI config and a net-conf one after the other). */
export function jsonValues(lines: readonly string[]): { value: unknown; startLine: number; endLine: number }[] {
  const out: { value: unknown; startLine: number; endLine: number }[] = [];
  let offset = 0;
  for (let guard = 0; guard < 20 && offset < lines.length; guard++) {
    const rest = lines.slice(offset).map((l) => l.replace(/^\s*Generated [\w-]+(?: [\w-]+)? Config \[/, '[').replace(/^[^{[\n]*?>\s*cat\s.*$/, ''));
    const parsed = parseLooseJson(rest, offset + 1);
    if (!parsed) break;
    out.push({ value: parsed.value, startLine: parsed.startLine, endLine: parsed.endLine });
    offset = parsed.endLine;
  }
  return out;
}

function unwrapArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [v];
}

/** True for an object that is a CNI network config or conflist. */
export function isCniConfig(o: Obj): boolean {
  return (typeof o['cniVersion'] === 'string' && (typeof o['type'] === 'string' || Array.isArray(o['plugins']))) || (typeof o['name'] === 'string' && typeof o['type'] === 'string' && ('delegate' in o || 'ipam' in o || 'dns' in o || 'AdditionalArgs' in o || 'Policies' in o || 'capabilities' in o));
}

/** True for flannel's net-conf.json. */
export function isFlannelNetConf(o: Obj): boolean {
  return typeof o['Network'] === 'string' && obj(o['Backend']) !== null;
}

function policiesOf(plugin: Obj): Obj[] {
  const out: Obj[] = [];
  for (const key of ['AdditionalArgs', 'Policies', 'policies', 'additionalArgs']) {
    const arr = plugin[key];
    if (!Array.isArray(arr)) continue;
    for (const p of arr) {
      const po = obj(p);
      if (!po) continue;
      const value = obj(po['Value']) ?? obj(po['value']) ?? po;
      out.push(value);
    }
  }
  return out;
}

function policyType(p: Obj): string {
  const t = p['Type'] ?? p['type'];
  return typeof t === 'string' ? t : '';
}

function settingsOf(p: Obj): Obj {
  return obj(p['Settings']) ?? obj(p['settings']) ?? p;
}

/** Extract what the rules need from one CNI config object. */
export function cniConfigData(o: Obj): CniConfigData {
  const plugins: Obj[] = [o];
  const delegate = obj(o['delegate']);
  if (delegate) plugins.push(delegate);
  if (Array.isArray(o['plugins'])) {
    for (const p of o['plugins']) {
      const po = obj(p);
      if (!po) continue;
      plugins.push(po);
      const d = obj(po['delegate']);
      if (d) plugins.push(d);
    }
  }
  let dnsNameservers: string[] = [];
  let dnsSearch: string[] | null = null;
  const outboundNat: { exceptionList: string[] | null }[] = [];
  const routes: CniRoute[] = [];
  for (const p of plugins) {
    const dns = obj(p['dns']) ?? obj(p['DNS']);
    if (dns) {
      const ns = strings(dns['Nameservers'] ?? dns['nameservers']);
      if (ns.length) dnsNameservers = ns;
      const search = dns['Search'] ?? dns['search'];
      if (Array.isArray(search)) dnsSearch = strings(search);
    }
    for (const pol of policiesOf(p)) {
      const t = policyType(pol).toLowerCase();
      const s = settingsOf(pol);
      if (t === 'outboundnat') {
        const ex = s['ExceptionList'] ?? s['exceptionList'] ?? s['Exceptions'] ?? s['exceptions'];
        outboundNat.push({ exceptionList: Array.isArray(ex) ? strings(ex) : null });
      } else if (t === 'route' || t === 'sdnroute') {
        const dest = s['DestinationPrefix'] ?? s['destinationPrefix'];
        if (typeof dest === 'string') routes.push({ destinationPrefix: dest, needEncap: s['NeedEncap'] === true || s['needEncap'] === true });
      }
    }
  }
  return {
    name: typeof o['name'] === 'string' ? o['name'] : null,
    type: typeof o['type'] === 'string' ? o['type'] : Array.isArray(o['plugins']) ? 'conflist' : null,
    delegateType: delegate && typeof delegate['type'] === 'string' ? delegate['type'] : null,
    dnsNameservers,
    dnsSearch,
    outboundNat,
    routes,
    searchLine: null,
    exceptionListLine: null,
  };
}

function lineOfKey(lines: readonly string[], from: number, to: number, re: RegExp): number | null {
  for (let i = from - 1; i < to && i < lines.length; i++) if (re.test(lines[i] ?? '')) return i + 1;
  return null;
}

/** Parse CNI configs and flannel net-conf objects found in the text. */
export function parseCniConfigs(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  for (const v of jsonValues(lines)) {
    for (const item of unwrapArray(v.value)) {
      const o = obj(item);
      if (!o) continue;
      if (isCniConfig(o)) {
        const d = cniConfigData(o);
        d.searchLine = lineOfKey(lines, v.startLine, v.endLine, /"Search"\s*:/i);
        d.exceptionListLine = lineOfKey(lines, v.startLine, v.endLine, /"ExceptionList"\s*:/i);
        const nameLine = lineOfKey(lines, v.startLine, v.endLine, /"name"\s*:/) ?? v.startLine;
        facts.push(makeFact('cni-config', ctx, nameLine, `"name": "${d.name ?? ''}", "type": "${d.type ?? ''}"${d.delegateType ? ` (delegate ${d.delegateType})` : ''}`, d));
      } else if (isFlannelNetConf(o)) {
        const b = obj(o['Backend'])!;
        const d: FlannelNetConfData = {
          network: o['Network'] as string,
          backendName: typeof b['name'] === 'string' ? b['name'] : typeof b['Name'] === 'string' ? (b['Name'] as string) : null,
          backendType: typeof b['type'] === 'string' ? b['type'] : typeof b['Type'] === 'string' ? (b['Type'] as string) : null,
          vni: typeof b['VNI'] === 'number' ? (b['VNI'] as number) : null,
          port: typeof b['Port'] === 'number' ? (b['Port'] as number) : null,
        };
        const line = lineOfKey(lines, v.startLine, v.endLine, /"Network"\s*:/) ?? v.startLine;
        facts.push(makeFact('flannel-net-conf', ctx, line, `"Network": "${d.network}", Backend "${d.backendName ?? ''}" (${d.backendType ?? ''})`, d));
      }
    }
  }
  return { facts, warnings: facts.length ? [] : ['no CNI config or net-conf found'] };
}
