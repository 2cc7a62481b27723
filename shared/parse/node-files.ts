/**
 * Files a Windows node keeps for its network and kubelet: flannel's `subnet.env`, the `SourceVip.json`
 * (an IPAM result written by host-local for kube-proxy's source VIP, or an IPAM error), and
 * KubeletConfiguration files.
 */
import yaml from 'js-yaml';
import { makeFact, type Fact, type ParseContext, type ParseResult } from '../logic/facts';
import { parseLooseJson } from './json-loose';
import { toLines } from './text';

const DEFAULT_CTX: ParseContext = { source: 'input', node: null };

/** True when the lines are a flannel subnet.env. */
export function looksLikeSubnetEnv(lines: readonly string[]): boolean {
  return lines.filter((l) => /^\s*FLANNEL_(NETWORK|SUBNET|MTU|IPMASQ)=/.test(l)).length >= 2;
}

/** Parse `subnet.env`. */
export function parseSubnetEnv(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const kv: Record<string, { v: string; line: number }> = {};
  lines.forEach((l, i) => {
    const m = /^\s*(FLANNEL_\w+)=(.*?)\s*$/.exec(l);
    if (m) kv[m[1]!] = { v: m[2]!, line: i + 1 };
  });
  if (!kv['FLANNEL_SUBNET'] && !kv['FLANNEL_NETWORK']) return { facts: [], warnings: ['no FLANNEL_ variables'] };
  const line = kv['FLANNEL_SUBNET']?.line ?? kv['FLANNEL_NETWORK']!.line;
  return {
    facts: [
      makeFact('subnet-env', ctx, line, (lines[line - 1] ?? '').trim(), {
        network: kv['FLANNEL_NETWORK']?.v ?? null,
        subnet: kv['FLANNEL_SUBNET']?.v ?? null,
        mtu: kv['FLANNEL_MTU'] ? Number(kv['FLANNEL_MTU'].v) : null,
        ipmasq: kv['FLANNEL_IPMASQ'] ? kv['FLANNEL_IPMASQ'].v === 'true' : null,
      }),
    ],
    warnings: [],
  };
}

/** What an IPAM result / error JSON is: `result` (ip4 / ips), `error` (code + msg), or null. */
export function ipamJsonKind(value: unknown): 'result' | 'error' | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  if ('ip4' in o || ('ips' in o && Array.isArray(o['ips']))) return 'result';
  if ('code' in o && 'msg' in o) return 'error';
  return null;
}

/**
 * Parse a SourceVip.json: an IPAM result (valid, with the address) or an IPAM error / unreadable content
 * (invalid). Emits a `source-vip` fact only when the source is the node's SourceVip file (path says so), since
 * an IPAM result alone does not say what it was for.
 */
export function parseSourceVip(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  if (!/sourcevip(?!request)/i.test(ctx.source.replace(/[^a-z]/gi, ''))) return { facts: [], warnings: ['not a SourceVip file'] };
  const lines = toLines(text);
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') return { facts: [makeFact('source-vip', ctx, 1, '(empty file)', { ip: null, error: 'the file is empty', valid: false })], warnings: [] };
  const json = parseLooseJson(lines);
  if (!json) return { facts: [makeFact('source-vip', ctx, 1, (lines[0] ?? '').trim(), { ip: null, error: 'not JSON', valid: false })], warnings: [] };
  const o = json.value as Record<string, unknown>;
  const kind = ipamJsonKind(o);
  if (kind === 'error') {
    const msg = typeof o['msg'] === 'string' ? o['msg'] : 'IPAM error';
    return { facts: [makeFact('source-vip', ctx, json.startLine, trimmed.split(/\r?\n/)[0] ?? '', { ip: null, error: `IPAM error ${String(o['code'])}: ${msg}`, valid: false })], warnings: [] };
  }
  let ip: string | null = null;
  const ip4 = o['ip4'];
  if (typeof ip4 === 'object' && ip4 !== null && typeof (ip4 as Record<string, unknown>)['ip'] === 'string') ip = (ip4 as Record<string, string>)['ip']!;
  const ips = o['ips'];
  if (!ip && Array.isArray(ips) && ips[0] && typeof (ips[0] as Record<string, unknown>)['address'] === 'string') ip = (ips[0] as Record<string, string>)['address']!;
  const line = lines.findIndex((l) => /"(ip|address)"\s*:/.test(l)) + 1 || json.startLine;
  if (!ip) return { facts: [makeFact('source-vip', ctx, line, (lines[line - 1] ?? '').trim(), { ip: null, error: 'no IP address in the file', valid: false })], warnings: [] };
  return { facts: [makeFact('source-vip', ctx, line, (lines[line - 1] ?? '').trim(), { ip, error: null, valid: true })], warnings: [] };
}

/** True when the text is a KubeletConfiguration. */
export function looksLikeKubeletConfig(text: string): boolean {
  return /\bkind"?\s*:\s*"?KubeletConfiguration\b/.test(text);
}

/** Parse a KubeletConfiguration (YAML or JSON): the reservations the rules look at. */
export function parseKubeletConfig(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  let v: unknown;
  try {
    v = yaml.load(lines.join('\n'));
  } catch {
    v = parseLooseJson(lines)?.value;
  }
  if (typeof v !== 'object' || v === null) return { facts: [], warnings: ['not a KubeletConfiguration'] };
  const o = v as Record<string, unknown>;
  const rec = (x: unknown) => (typeof x === 'object' && x !== null && Object.keys(x).length > 0 ? Object.fromEntries(Object.entries(x as Record<string, unknown>).map(([k, val]) => [k, String(val)])) : null);
  const line = lines.findIndex((l) => /systemReserved|kubeReserved/.test(l)) + 1 || 1;
  const facts: Fact[] = [makeFact('kubelet-config', ctx, line, (lines[line - 1] ?? '').trim(), { systemReserved: rec(o['systemReserved']), kubeReserved: rec(o['kubeReserved']) })];
  return { facts, warnings: [] };
}
