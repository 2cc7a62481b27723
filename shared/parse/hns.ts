/**
 * Host Networking Service output: `hnsdiag list ...`, `Get-HnsNetwork` / `Get-HnsEndpoint` list format (hns.psm1),
 * raw HNS JSON (`Get-HnsNetwork | ConvertTo-Json`, collectlogs.ps1 `network.txt`/`endpoint.txt`, the /networks
 * response printed by `Invoke-HNSRequest -Verbose`, console-wrapped and cut off), and the HNS requests scripts
 * log (`VERBOSE: Invoke-HNSRequest Method[POST] Path[/networks] Data[{...}]` + `Result : {...}`).
 */
import { makeFact, type Fact, type HnsNetworkData, type ParseContext, type ParseResult } from '../logic/facts';
import { parseLooseJson, repairJson, scanJsonPairs, unwrapConsoleLines, type ScannedPair } from './json-loose';
import { parseFormatList, psHashValues, type ListRecord } from './ps-list';
import { parseTables } from './ps-table';
import { toLines } from './text';

const DEFAULT_CTX: ParseContext = { source: 'input', node: null };

function splitComma(value: string | null | undefined): string[] | null {
  if (value === null || value === undefined) return null;
  return value
    .replace(/^\{|\}$/g, '')
    .split(/[,;\s]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

// ---------------------------------------------------------------- hnsdiag list

const HNSDIAG_HEAD = /^\s*(Network|Endpoint|Namespace|LoadBalancer|Load Balancer|Policy)\s*:\s*([0-9a-fA-F-]{36})\s*$/;

/** True when the lines hold `hnsdiag list ...` blocks. */
export function looksLikeHnsdiag(lines: readonly string[]): boolean {
  let heads = 0;
  for (let i = 0; i < lines.length; i++) {
    if (HNSDIAG_HEAD.test(lines[i] ?? '') && /^\s+Name\s*:/.test(lines[i + 1] ?? '')) heads++;
  }
  return heads > 0;
}

/** Parse `hnsdiag list networks|endpoints|all`. */
export function parseHnsdiag(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  const networkNames: string[] = [];
  let sawNetworkSection = false;
  for (let i = 0; i < lines.length; i++) {
    const head = HNSDIAG_HEAD.exec(lines[i] ?? '');
    if (!head) continue;
    const what = head[1]!.toLowerCase();
    const id = head[2]!;
    const fields: Record<string, string> = {};
    let j = i + 1;
    for (; j < lines.length; j++) {
      const m = /^\s+([A-Za-z][A-Za-z ]*?)\s*:\s*(.*?)\s*$/.exec(lines[j] ?? '');
      if (!m) break;
      fields[m[1]!.toLowerCase()] = m[2]!;
    }
    const name = fields['name'] ?? '';
    if (what === 'endpoint') {
      facts.push(
        makeFact('hns-endpoint', ctx, i + 1, `Endpoint : ${id} Name : ${name} IP Address : ${fields['ip address'] ?? ''}`.trim(), {
          id,
          name,
          ipAddress: fields['ip address'] ?? fields['ipaddress'] ?? null,
          prefixLength: null,
          gatewayAddress: null,
          dnsSuffix: null,
          dnsServerList: null,
          isRemote: null,
          virtualNetworkName: fields['network'] ?? null,
          format: 'hnsdiag-list',
        }),
      );
    } else if (what === 'network') {
      sawNetworkSection = true;
      networkNames.push(name);
      facts.push(
        makeFact('hns-network', ctx, i + 1, `Network : ${id} Name : ${name} Type : ${fields['type'] ?? ''}`.trim(), {
          id,
          name,
          type: fields['type'] ?? null,
          managementIP: null,
          adapterName: null,
          subnets: [],
          policyTypes: [],
          format: 'hnsdiag-list',
        }),
      );
    }
    i = j - 1;
  }
  if (sawNetworkSection) facts.push(makeFact('hns-network-listing', ctx, null, `hnsdiag networks: ${networkNames.join(', ')}`, { names: networkNames, truncated: false, format: 'hnsdiag-list' }));
  return { facts, warnings: facts.length ? [] : ['no hnsdiag blocks found'] };
}

// ---------------------------------------------------------------- Get-HnsNetwork / Get-HnsEndpoint list format

function isNetworkRecord(r: ListRecord): boolean {
  return r.get('Name') !== null && (r.get('ManagementIP') !== null || r.get('Subnets') !== null || r.get('LayeredOn') !== null || r.get('DrMacAddress') !== null || r.get('MacPools') !== null);
}

function isEndpointRecord(r: ListRecord): boolean {
  return (
    r.get('Name') !== null &&
    r.get('Subnets') === null &&
    (r.get('IPAddress') !== null || r.get('VirtualNetwork') !== null || r.get('VirtualNetworkName') !== null) &&
    (r.get('MacAddress') !== null || r.get('PrefixLength') !== null || r.get('ActivityId') !== null || r.get('ID') !== null)
  );
}

function subnetsFromList(value: string | null): HnsNetworkData['subnets'] {
  if (!value) return [];
  const out: HnsNetworkData['subnets'] = [];
  for (const m of value.matchAll(/@\{([^}]*)\}/g)) {
    const h = psHashValues(m[1]!);
    out.push({ addressPrefix: h['AddressPrefix'] ?? null, gatewayAddress: h['GatewayAddress'] ?? null });
  }
  return out;
}

/** True when the lines hold Get-HnsNetwork / Get-HnsEndpoint list records. */
export function hnsListKinds(lines: readonly string[]): { networks: boolean; endpoints: boolean } {
  const recs = parseFormatList(lines, { minFields: 3 });
  return { networks: recs.some(isNetworkRecord), endpoints: recs.some(isEndpointRecord) };
}

/** Parse Get-HnsNetwork and Get-HnsEndpoint list format (both may be in one paste). */
export function parseHnsList(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const recs = parseFormatList(lines, { minFields: 3 });
  const facts: Fact[] = [];
  const networks = recs.filter(isNetworkRecord);
  const endpoints = recs.filter(isEndpointRecord);
  for (const r of networks) {
    const name = r.get('Name')!;
    const nameField = r.field('Name')!;
    facts.push(
      makeFact('hns-network', ctx, nameField.line, `Name : ${name}${r.get('Type') ? `; Type : ${r.get('Type')}` : ''}${r.get('ManagementIP') ? `; ManagementIP : ${r.get('ManagementIP')}` : ''}`, {
        id: r.get('ID') ?? r.get('Id'),
        name,
        type: r.get('Type'),
        managementIP: r.get('ManagementIP') || null,
        adapterName: r.get('NetworkAdapterName') || null,
        subnets: subnetsFromList(r.get('Subnets')),
        policyTypes: [...(r.get('Policies') ?? '').matchAll(/Type=([A-Za-z]+)/g)].map((m) => m[1]!),
        format: 'get-hnsnetwork-list',
      }),
    );
  }
  if (networks.length) {
    const last = networks[networks.length - 1]!;
    const truncated = last.get('Type') === null || last.get('Type') === '';
    facts.push(
      makeFact('hns-network-listing', ctx, networks[0]!.startLine, `Get-HnsNetwork: ${networks.map((n) => n.get('Name')).join(', ')}${truncated ? ' (cut off)' : ''}`, {
        names: networks.map((n) => n.get('Name')!),
        truncated,
        format: 'get-hnsnetwork-list',
      }),
    );
  }
  for (const r of endpoints) {
    const name = r.get('Name')!;
    const f = r.field('Name')!;
    const dnsSuffixField = r.field('DNSSuffix');
    facts.push(
      makeFact('hns-endpoint', ctx, dnsSuffixField?.line ?? f.line, `Name : ${name}; IPAddress : ${r.get('IPAddress') ?? ''}${dnsSuffixField ? `; DNSSuffix : ${dnsSuffixField.value}` : ''}`, {
        id: r.get('ID'),
        name,
        ipAddress: r.get('IPAddress'),
        prefixLength: r.get('PrefixLength') ? Number(r.get('PrefixLength')) : null,
        gatewayAddress: r.get('GatewayAddress'),
        dnsSuffix: dnsSuffixField ? splitComma(dnsSuffixField.value) : null,
        dnsServerList: r.field('DNSServerList') ? splitComma(r.get('DNSServerList')) : null,
        isRemote: r.get('IsRemoteEndpoint') === null ? null : /true/i.test(r.get('IsRemoteEndpoint')!),
        virtualNetworkName: r.get('VirtualNetworkName'),
        format: 'get-hnsendpoint-list',
      }),
    );
  }
  return { facts, warnings: facts.length ? [] : ['no HNS list records found'] };
}

// ---------------------------------------------------------------- HNS JSON

type Obj = Record<string, unknown>;

function str(o: Obj, ...keys: string[]): string | null {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string') return v;
    if (typeof v === 'number') return String(v);
  }
  return null;
}

function isHnsNetworkObject(o: Obj): boolean {
  return typeof o['Name'] === 'string' && ('Subnets' in o || 'ManagementIP' in o || 'LayeredOn' in o || 'MacPools' in o || 'DrMacAddress' in o || ('Type' in o && 'Extensions' in o));
}

function isHnsEndpointObject(o: Obj): boolean {
  return typeof o['Name'] === 'string' && !('Subnets' in o) && ('IPAddress' in o || 'VirtualNetwork' in o || 'DNSSuffix' in o || 'IpConfigurations' in o);
}

function policiesTypes(p: unknown): string[] {
  if (!Array.isArray(p)) return [];
  return p.map((x) => (typeof x === 'object' && x !== null ? str(x as Obj, 'Type') : null)).filter((x): x is string => x !== null);
}

function lineOf(lines: readonly string[], needle: RegExp, from = 0): number | null {
  for (let i = from; i < lines.length; i++) if (needle.test(lines[i] ?? '')) return i + 1;
  return null;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function networkFromObject(o: Obj, format: string): HnsNetworkData {
  const subnets = Array.isArray(o['Subnets'])
    ? (o['Subnets'] as unknown[]).filter((s): s is Obj => typeof s === 'object' && s !== null).map((s) => ({ addressPrefix: str(s, 'AddressPrefix', 'IpAddressPrefix'), gatewayAddress: str(s, 'GatewayAddress') }))
    : [];
  return {
    id: str(o, 'ID', 'Id'),
    name: str(o, 'Name') ?? '',
    type: str(o, 'Type'),
    managementIP: str(o, 'ManagementIP'),
    adapterName: str(o, 'NetworkAdapterName'),
    subnets,
    policyTypes: policiesTypes(o['Policies']),
    format,
  };
}

function endpointFromObject(o: Obj, format: string) {
  const suffix = str(o, 'DNSSuffix');
  const dnsServers = str(o, 'DNSServerList');
  const dns = typeof o['Dns'] === 'object' && o['Dns'] !== null ? (o['Dns'] as Obj) : null;
  const hcnSearch = dns && Array.isArray(dns['Search']) ? (dns['Search'] as unknown[]).filter((x): x is string => typeof x === 'string') : null;
  const hcnServers = dns && Array.isArray(dns['ServerList']) ? (dns['ServerList'] as unknown[]).filter((x): x is string => typeof x === 'string') : null;
  const prefix = o['PrefixLength'];
  return {
    id: str(o, 'ID', 'Id'),
    name: str(o, 'Name') ?? '',
    ipAddress: str(o, 'IPAddress'),
    prefixLength: typeof prefix === 'number' ? prefix : null,
    gatewayAddress: str(o, 'GatewayAddress'),
    dnsSuffix: suffix !== null ? splitComma(suffix) : hcnSearch,
    dnsServerList: dnsServers !== null ? splitComma(dnsServers) : hcnServers,
    isRemote: typeof o['IsRemoteEndpoint'] === 'boolean' ? (o['IsRemoteEndpoint'] as boolean) : null,
    virtualNetworkName: str(o, 'VirtualNetworkName'),
    format,
  };
}

/** Objects from `[...]`, `{...}` or the HNS API envelope `{"Output": [...], "Success": true}`. */
function hnsObjects(value: unknown): Obj[] {
  if (Array.isArray(value)) return value.filter((x): x is Obj => typeof x === 'object' && x !== null);
  if (typeof value === 'object' && value !== null) {
    const o = value as Obj;
    if ('Output' in o) return hnsObjects(o['Output']);
    if ('value' in o && Array.isArray(o['value'])) return hnsObjects(o['value']);
    return [o];
  }
  return [];
}

/** True when the text holds HNS network or endpoint JSON (parsable or not). */
export function looksLikeHnsJson(text: string): boolean {
  return /"ActivityId"\s*:/.test(text) && /"(?:LayeredOn|MacPools|ManagementIP|Subnets|DNSSuffix|VirtualNetwork|IPAddress|EncapOverhead)"\s*:/.test(text);
}

/** Group scanned pairs into objects: a new object starts at each `ActivityId` key; keys at the shallowest depth. */
function looseObjects(pairs: ScannedPair[]): { fields: Record<string, string | null>; offset: number }[] {
  const groups: ScannedPair[][] = [];
  let cur: ScannedPair[] = [];
  for (const p of pairs) {
    if (p.key === 'ActivityId' && cur.length) {
      groups.push(cur);
      cur = [];
    }
    cur.push(p);
  }
  if (cur.length) groups.push(cur);
  return groups.map((g) => {
    const min = Math.min(...g.map((p) => p.depth));
    const fields: Record<string, string | null> = {};
    for (const p of g) if (p.depth === min && !(p.key in fields)) fields[p.key] = p.value;
    return { fields, offset: g[0]!.offset };
  });
}

/** Parse HNS JSON: well-formed, repaired (elisions, trailing commas), or scanned when cut and console-wrapped. */
export function parseHnsJson(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  const warnings: string[] = [];
  const parsed = parseLooseJson(lines);
  if (parsed) {
    const objs = hnsObjects(parsed.value);
    const networks: string[] = [];
    let cursor = parsed.startLine - 1;
    for (const o of objs) {
      if (isHnsNetworkObject(o)) {
        const n = networkFromObject(o, 'hns-json');
        const line = lineOf(lines, new RegExp(`"Name"\\s*:\\s*"${escapeRe(n.name)}"`), cursor);
        if (line) cursor = line;
        networks.push(n.name);
        facts.push(makeFact('hns-network', ctx, line, `"Name": "${n.name}", "Type": "${n.type ?? ''}"${n.managementIP ? `, "ManagementIP": "${n.managementIP}"` : ''}`, n));
      } else if (isHnsEndpointObject(o)) {
        const e = endpointFromObject(o, 'hns-json');
        const line = lineOf(lines, /"DNSSuffix"\s*:/, cursor) ?? lineOf(lines, new RegExp(`"Name"\\s*:\\s*"${escapeRe(e.name)}"`), cursor);
        if (line) cursor = line;
        facts.push(makeFact('hns-endpoint', ctx, line, `"Name": "${e.name}", "IPAddress": "${e.ipAddress ?? ''}"${e.dnsSuffix ? `, "DNSSuffix": "${e.dnsSuffix.join(',')}"` : ''}`, e));
      }
    }
    if (networks.length) facts.push(makeFact('hns-network-listing', ctx, parsed.startLine, `HNS networks: ${networks.join(', ')}`, { names: networks, truncated: parsed.truncated, format: 'hns-json' }));
    if (parsed.repairs.length) warnings.push(`repaired JSON: ${parsed.repairs.join(', ')}`);
    if (facts.length) return { facts, warnings };
  }
  // Fallback: console-wrapped or cut JSON. Re-join, then scan key/value pairs.
  const nonEmpty = lines.filter((l) => l.trim() !== '');
  const joined = unwrapConsoleLines(nonEmpty) ?? repairJson(nonEmpty.join('\n')).text;
  const objs = looseObjects(scanJsonPairs(joined));
  const networks: string[] = [];
  let truncated = !parsed;
  for (const o of objs) {
    const f = o.fields;
    const name = f['Name'];
    if (!name) {
      truncated = true;
      continue;
    }
    const asObj: Obj = Object.fromEntries(Object.entries(f).map(([k, v]) => [k, v ?? {}]));
    if (isHnsNetworkObject(asObj) || ('Type' in f && !('IPAddress' in f))) {
      const n = networkFromObject(asObj, 'hns-json');
      const firstWord = name.split(/\s+/)[0] ?? name;
      const line = lineOf(lines, new RegExp(`"Name":"${escapeRe(firstWord)}`));
      networks.push(name);
      facts.push(makeFact('hns-network', ctx, line, `"Name":"${name}", "Type":"${n.type ?? ''}"`, n));
    } else if (isHnsEndpointObject(asObj)) {
      const e = endpointFromObject(asObj, 'hns-json');
      facts.push(makeFact('hns-endpoint', ctx, null, `"Name":"${name}", "IPAddress":"${e.ipAddress ?? ''}"`, e));
    }
  }
  if (networks.length) facts.push(makeFact('hns-network-listing', ctx, 1, `HNS networks (from cut-off JSON): ${networks.join(', ')}`, { names: networks, truncated, format: 'hns-json' }));
  warnings.push('HNS JSON could not be parsed whole; scanned the fields that were there');
  return { facts, warnings };
}

// ---------------------------------------------------------------- HNS request log

const REQUEST_HEAD = /Invoke-HNSRequest\s+Method\[(\w+)\]\s+Path\[([^\]]*)\]\s+Data\[(.*)$/i;
const RESULT_LINE = /(?:VERBOSE:\s*)?Result\s*:\s*(\{.*\})\s*$/i;
const PS_ERROR_HASH = /Invoke-HnsRequest\s*:\s*@\{Error=([^;]*);\s*ErrorCode=(\d+);\s*Success=(\w+)\}/i;
const HCN_RESULT = /(HcnCreateNetwork|HcnCreateEndpoint|HcnModifyNetwork)\b.*?HRESULT:\s*(\d+)\.?\s*Result:\s*(\{.*?\})/i;

/** True when the text holds HNS API requests or their results. */
export function looksLikeHnsRequestLog(lines: readonly string[]): boolean {
  return lines.some((l) => REQUEST_HEAD.test(l) || HCN_RESULT.test(l));
}

/** Parse HNS API requests (POST bodies) and their results. */
export function parseHnsRequestLog(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const head = REQUEST_HEAD.exec(line);
    if (head) {
      // Collect the Data[...] body up to the line ending with `}]`.
      const body: string[] = [head[3]!];
      let j = i;
      if (!/\}\]\s*`?\s*$/.test(line)) {
        for (j = i + 1; j < lines.length && j < i + 400; j++) {
          body.push(lines[j] ?? '');
          if (/^\s*\}\]\s*`?\s*$/.test(lines[j] ?? '')) break;
        }
      }
      const json = body.join('\n').replace(/\]\s*`?\s*$/, '');
      let data: Obj = {};
      try {
        data = JSON.parse(json) as Obj;
      } catch {
        const pairs = scanJsonPairs(json);
        for (const p of pairs) if (p.depth === 1 && !(p.key in data) && p.value !== null) data[p.key] = p.value;
      }
      // A result within the next few lines belongs to this request.
      let success: boolean | null = null;
      let error: string | null = null;
      let errorCode: number | null = null;
      let resultLine = i + 1;
      for (let k = j + 1; k < lines.length && k <= j + 4; k++) {
        const r = RESULT_LINE.exec(lines[k] ?? '');
        if (r) {
          try {
            const res = JSON.parse(r[1]!) as Obj;
            success = typeof res['Success'] === 'boolean' ? (res['Success'] as boolean) : null;
            error = typeof res['Error'] === 'string' ? (res['Error'] as string).trim() : null;
            errorCode = typeof res['ErrorCode'] === 'number' ? (res['ErrorCode'] as number) : null;
            resultLine = k + 1;
          } catch {
            /* keep nulls */
          }
          break;
        }
        if (REQUEST_HEAD.test(lines[k] ?? '')) break;
      }
      facts.push(
        makeFact('hns-request', ctx, error ? resultLine : i + 1, error ? (lines[resultLine - 1] ?? '').trim() : line.trim(), {
          method: head[1]!.toUpperCase(),
          path: head[2]!,
          name: str(data, 'Name'),
          type: str(data, 'Type'),
          adapterName: str(data, 'NetworkAdapterName'),
          success,
          error,
          errorCode,
        }),
      );
      i = j;
      continue;
    }
    const hcn = HCN_RESULT.exec(line);
    if (hcn) {
      let res: Obj = {};
      try {
        res = JSON.parse(hcn[3]!) as Obj;
      } catch {
        /* ignore */
      }
      facts.push(
        makeFact('hns-request', ctx, i + 1, line.trim(), {
          method: hcn[1]!,
          path: null,
          name: null,
          type: null,
          adapterName: null,
          success: typeof res['Success'] === 'boolean' ? (res['Success'] as boolean) : false,
          error: typeof res['Error'] === 'string' ? (res['Error'] as string).trim() : null,
          errorCode: Number(hcn[2]),
        }),
      );
      continue;
    }
    const ps = PS_ERROR_HASH.exec(line);
    if (ps && !facts.some((f) => f.type === 'hns-request' && f.line !== null && Math.abs(f.line - (i + 1)) <= 2)) {
      facts.push(
        makeFact('hns-request', ctx, i + 1, line.trim(), {
          method: null,
          path: null,
          name: null,
          type: null,
          adapterName: null,
          success: /true/i.test(ps[3]!),
          error: ps[1]!.trim(),
          errorCode: Number(ps[2]),
        }),
      );
    }
  }
  return { facts, warnings: facts.length ? [] : ['no HNS requests found'] };
}

/** `Get-HnsNetwork | Select Name, Type, Id, AddressPrefix` (collectlogs.ps1 network.txt, before its JSON). */
export function parseHnsNetworkTable(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  for (const t of parseTables(lines)) {
    if (t.headers[0] !== 'Name' || !t.headers.includes('Type') || !t.headers.includes('Id')) continue;
    const names: string[] = [];
    for (const r of t.rows) {
      const name = r.cells['Name'] ?? '';
      if (!name) continue;
      names.push(name);
      facts.push(
        makeFact('hns-network', ctx, r.line, r.raw.trim(), {
          id: r.cells['Id'] || null,
          name,
          type: r.cells['Type'] || null,
          managementIP: null,
          adapterName: null,
          subnets: r.cells['AddressPrefix'] ? [{ addressPrefix: r.cells['AddressPrefix'].replace(/[{}]/g, '') || null, gatewayAddress: null }] : [],
          policyTypes: [],
          format: 'get-hnsnetwork-table',
        }),
      );
    }
    facts.push(makeFact('hns-network-listing', ctx, t.headerLine, `Get-HnsNetwork: ${names.join(', ') || '(none)'}`, { names, truncated: false, format: 'get-hnsnetwork-table' }));
  }
  return { facts, warnings: facts.length ? [] : ['no HNS network table found'] };
}
