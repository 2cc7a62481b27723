/**
 * Helpers the catalogue rules share: grouping facts per node, version and CIDR arithmetic, the cluster's
 * Kubernetes version as far as the evidence says.
 */
import type { Fact, FactType } from '../logic/facts';
import { factsOf } from '../logic/facts';

/** Group facts by node (null = the input did not say). */
export function byNode<T extends Fact>(facts: readonly T[]): Map<string | null, T[]> {
  const m = new Map<string | null, T[]>();
  for (const f of facts) {
    const list = m.get(f.node) ?? [];
    list.push(f);
    m.set(f.node, list);
  }
  return m;
}

/**
 * Facts of `type` that may describe the same node as `node`: the same node, or — when either side does not
 * name its node — facts without a node. Offline, a folder of loose files from one machine names no node.
 */
export function sameNode<K extends FactType>(facts: readonly Fact[], type: K, node: string | null): Fact<K>[] {
  return factsOf(facts, type).filter((f) => f.node === node || f.node === null || node === null);
}

export interface Version {
  major: number;
  minor: number;
  patch: number;
}

/** Parse `v1.26.2`, `1.4.4+unknown`, `17.10.0-ee-preview-3`, `docker://19.3.14`, `9+` minor. */
export function parseVersion(text: string | null | undefined): Version | null {
  if (!text) return null;
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.replace(/^[a-z]+:\/\//i, ''));
  if (!m) return null;
  return { major: Number(m[1]), minor: Number(m[2]), patch: m[3] === undefined ? 0 : Number(m[3]) };
}

/** -1, 0, 1 comparing major.minor only. */
export function compareMinor(a: Version, b: { major: number; minor: number }): number {
  if (a.major !== b.major) return a.major < b.major ? -1 : 1;
  if (a.minor !== b.minor) return a.minor < b.minor ? -1 : 1;
  return 0;
}

/** Docker writes 19.03 as `19.3` in node info; both compare as minor 3. */
export function versionLabel(v: Version): string {
  return `${v.major}.${v.minor}.${v.patch}`;
}

// ---------------------------------------------------------------- IPv4 CIDR

export interface Cidr {
  base: number;
  prefix: number;
  text: string;
}

function ipToInt(ip: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip.trim());
  if (!m) return null;
  const parts = m.slice(1, 5).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

/** Parse `10.244.0.0/16` (or a bare address as /32). Null for IPv6 or garbage. */
export function parseCidr(text: string | null | undefined): Cidr | null {
  if (!text) return null;
  const [ip, p] = text.trim().split('/');
  const n = ipToInt(ip ?? '');
  if (n === null) return null;
  const prefix = p === undefined ? 32 : Number(p);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 32) return null;
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { base: (n & mask) >>> 0, prefix, text: text.trim() };
}

/** True when `outer` contains all of `inner`. */
export function cidrContains(outer: Cidr, inner: Cidr): boolean {
  if (outer.prefix > inner.prefix) return false;
  const mask = outer.prefix === 0 ? 0 : (0xffffffff << (32 - outer.prefix)) >>> 0;
  return ((inner.base & mask) >>> 0) === outer.base;
}

/** True when the address (or CIDR) lies in `cidr`. */
export function inCidr(address: string, cidr: string): boolean {
  const a = parseCidr(address.split('/')[0]);
  const c = parseCidr(cidr);
  return a !== null && c !== null && cidrContains(c, a);
}

// ---------------------------------------------------------------- cluster version

/** The API server version the evidence states (kubectl version server / cluster/version.json), or null. */
export function serverVersionOf(facts: readonly Fact[]): string | null {
  for (const f of factsOf(facts, 'kube-version')) if (f.data.serverVersion) return f.data.serverVersion;
  return null;
}

/** The Windows node names in the evidence. */
export function windowsNodeInfos(facts: readonly Fact[]): Fact<'node-info'>[] {
  return factsOf(facts, 'node-info').filter((f) => f.data.os === 'windows');
}

/**
 * Addresses the node is known by: its Kubernetes InternalIP when the evidence has the Node (that is the address
 * the network must be managed on), else the host's IPv4 addresses (host-side ipconfig, the net-adapters probe).
 */
export function nodeAddresses(facts: readonly Fact[], node: string | null): { addresses: Set<string>; evidence: Fact[] } {
  const addresses = new Set<string>();
  const evidence: Fact[] = [];
  const infos = factsOf(facts, 'node-info').filter((f) => f.data.internalIP && (node !== null ? f.data.name === node : true));
  const windows = infos.filter((f) => f.data.os === 'windows');
  const pick = node !== null ? infos : windows.length === 1 ? windows : [];
  for (const f of pick) {
    addresses.add(f.data.internalIP!);
    evidence.push(f);
  }
  if (addresses.size > 0) return { addresses, evidence };
  for (const f of sameNode(facts, 'net-adapter', node)) {
    if (f.data.ipv4.length === 0) continue;
    for (const ip of f.data.ipv4) addresses.add(ip);
    evidence.push(f);
  }
  for (const f of sameNode(facts, 'ipconfig', node)) {
    if (f.data.view !== 'host') continue;
    let used = false;
    for (const a of f.data.adapters) for (const ip of a.ipv4) {
      addresses.add(ip);
      used = true;
    }
    if (used) evidence.push(f);
  }
  return { addresses, evidence };
}

/** Lowercase, trimmed. */
export function norm(s: string | null | undefined): string {
  return (s ?? '').trim().toLowerCase();
}

/** Log signals of one signature id. */
export function signalsOf(facts: readonly Fact[], signal: string): Fact<'log-signal'>[] {
  return factsOf(facts, 'log-signal').filter((f) => f.data.signal === signal);
}

/** One hit per node for a set of evidence facts; `title` gets that node's facts. */
export function hitsPerNode(evidence: readonly Fact[], title: (facts: Fact[], node: string | null) => string): { title: string; evidence: Fact[]; node: string | null }[] {
  const out: { title: string; evidence: Fact[]; node: string | null }[] = [];
  for (const [node, list] of byNode(evidence)) if (list.length) out.push({ title: title(list, node), evidence: list, node });
  return out;
}

/** `N times` suffix for repeated log lines. */
export function times(facts: readonly Fact[]): string {
  const n = facts.reduce((s, f) => s + (f.type === 'log-signal' ? f.data.count : 1), 0);
  return n > 1 ? ` (${n} times)` : '';
}
