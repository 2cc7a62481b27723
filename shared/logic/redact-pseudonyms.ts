import { HOSTNAME_STOPWORDS, PUBLIC_DOMAINS } from './redact-patterns';

/**
 * Consistent pseudonyms for strict redaction: one table per bundle, so the same address or host name gets the
 * same stand-in in every file. The table (the mapping) lives in memory only and never goes into the bundle.
 *
 * - IPv4/IPv6: prefix-preserving (as Crypto-PAn): two addresses that share their first k bits still do after
 *   mapping, so subnets, CIDRs, gateways and "is this IP in that range" stay diagnosable. Each new prefix bit gets
 *   a random flip from the injected random source; without the table the mapping cannot be undone. The bits of
 *   a well-known range stay (10/8, 172.16/12, 192.168/16, 100.64/10, 127/8, 169.254/16, fe80::/10, fc00::/7,
 *   ff00::/8): a private address stays private, a link-local one link-local.
 *   Kept readable on purpose: 0.0.0.0, 127.0.0.1, 255.255.255.255, netmasks (255.x with contiguous ones), `::`,
 *   `::1`. Every other 127.x address IS mapped, because the simulators (and some tools) use 127.x as node IPs.
 * - MAC: the vendor part (OUI, first three bytes, e.g. 00-15-5D = Hyper-V) stays, the rest is mapped.
 * - Host names: names the caller or the text teaches (node names, Windows computer names, DNS suffixes) become
 *   `host-N` / `domain-N.example`; public domains and a list of common words are never learnt.
 */
export class PseudonymTable {
  private readonly flips = new Map<string, number>();
  private readonly v4 = new Map<string, string>();
  private readonly v6 = new Map<string, string>();
  private readonly macs = new Map<string, string>();
  private readonly hosts = new Map<string, string>();
  private readonly domains = new Map<string, string>();
  private hostRe: RegExp | null = null;
  private hostReDirty = true;

  /** `random32` yields uniformly random unsigned 32-bit integers (crypto in production, seeded in tests). */
  constructor(private readonly random32: () => number) {}

  private flip(key: string): number {
    let f = this.flips.get(key);
    if (f === undefined) {
      f = this.random32() & 1;
      this.flips.set(key, f);
    }
    return f;
  }

  /**
   * Map bits (most significant first) prefix-preservingly in the namespace `ns`; the first `keep` bits stay as
   * they are (the well-known range an address belongs to: private stays private, link-local stays link-local).
   */
  private mapBits(ns: string, bits: number[], keep = 0): number[] {
    const out: number[] = [];
    let prefix = ns;
    for (const [i, b] of bits.entries()) {
      out.push(i < keep ? b : b ^ this.flip(prefix));
      prefix += b;
    }
    return out;
  }

  /** Pseudonym of a dotted IPv4 address; with `prefixLength` (a CIDR) the host bits of the result are zeroed. */
  ipv4(address: string, prefixLength?: number): string {
    const parts = address.split('.').map(Number);
    if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return address;
    if (keepIpv4(parts)) return address;
    const cacheKey = prefixLength === undefined ? address : `${address}/${prefixLength}`;
    const cached = this.v4.get(cacheKey);
    if (cached) return cached;
    const bits: number[] = [];
    for (const p of parts) for (let i = 7; i >= 0; i--) bits.push((p >> i) & 1);
    const mapped = this.mapBits('4:', bits, ipv4KeepBits(parts));
    if (prefixLength !== undefined) for (let i = Math.max(0, prefixLength); i < 32; i++) mapped[i] = 0;
    const octets: number[] = [];
    for (let o = 0; o < 4; o++) {
      let v = 0;
      for (let i = 0; i < 8; i++) v = (v << 1) | (mapped[o * 8 + i] as number);
      octets.push(v);
    }
    let result = octets.join('.');
    if (prefixLength === undefined && keepIpv4(octets)) result = octets.slice(0, 3).join('.') + '.' + (((octets[3] as number) ^ 1) & 0xff);
    this.v4.set(cacheKey, result);
    return result;
  }

  /** Pseudonym of an IPv6 address (any textual form, optional %zone kept); null when not an IPv6 address. */
  ipv6(address: string, prefixLength?: number): string | null {
    const zoneAt = address.indexOf('%');
    const zone = zoneAt >= 0 ? address.slice(zoneAt) : '';
    const groups = parseIpv6(zoneAt >= 0 ? address.slice(0, zoneAt) : address);
    if (!groups) return null;
    if (groups.every((g) => g === 0) || (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1)) return address;
    const canonical = groups.join(':') + (prefixLength === undefined ? '' : `/${prefixLength}`);
    const cached = this.v6.get(canonical);
    if (cached) return cached + zone;
    const bits: number[] = [];
    for (const g of groups) for (let i = 15; i >= 0; i--) bits.push((g >> i) & 1);
    const mapped = this.mapBits('6:', bits, ipv6KeepBits(groups));
    if (prefixLength !== undefined) for (let i = Math.max(0, prefixLength); i < 128; i++) mapped[i] = 0;
    const out: number[] = [];
    for (let g = 0; g < 8; g++) {
      let v = 0;
      for (let i = 0; i < 16; i++) v = (v << 1) | (mapped[g * 16 + i] as number);
      out.push(v);
    }
    const result = formatIpv6(out);
    this.v6.set(canonical, result);
    return result + zone;
  }

  /** Pseudonym of a MAC address written with `-` or `:`; keeps the OUI, separator and letter case. */
  mac(address: string): string {
    const sep = address.includes('-') ? '-' : ':';
    const bytes = address.split(/[-:]/).map((h) => parseInt(h, 16));
    if (bytes.length !== 6 || bytes.some((b) => !Number.isInteger(b))) return address;
    if (bytes.every((b) => b === 0) || bytes.every((b) => b === 255)) return address;
    const key = bytes.join(',');
    let tail = this.macs.get(key);
    if (!tail) {
      const r = this.random32() >>> 0;
      tail = [(r >> 16) & 0xff, (r >> 8) & 0xff, r & 0xff].map((b) => b.toString(16).padStart(2, '0')).join(',');
      this.macs.set(key, tail);
    }
    const head = address.split(/[-:]/).slice(0, 3).join(sep);
    const upper = /[A-F]/.test(address) || !/[a-f]/.test(address);
    const t = tail.split(',').join(sep);
    return `${head}${sep}${upper ? t.toUpperCase() : t.toLowerCase()}`;
  }

  /** Teach a host name (node name, computer name, FQDN). Short names, stop words and public domains are ignored. */
  learnHost(name: string): void {
    const n = name.trim().toLowerCase().replace(/\.$/, '');
    if (!isLearnableHost(n)) return;
    if (this.hosts.has(n)) return;
    const dot = n.indexOf('.');
    if (dot > 0) {
      const label = n.slice(0, dot);
      const domain = n.slice(dot + 1);
      this.learnDomain(domain);
      if (isLearnableHost(label)) this.learnHost(label);
      const labelPseudo = this.hosts.get(label) ?? this.nextHost();
      const domainPseudo = this.domains.get(domain) ?? domain;
      this.hosts.set(n, `${labelPseudo}.${domainPseudo}`);
    } else {
      this.hosts.set(n, this.nextHost());
    }
    this.hostReDirty = true;
  }

  /** Teach a DNS domain (a suffix such as `corp.contoso.com`); public and cluster-internal domains are ignored. */
  learnDomain(domain: string): void {
    const d = domain.trim().toLowerCase().replace(/^\.+|\.$/g, '');
    if (!d.includes('.') || !isLearnableDomain(d)) return;
    if (this.domains.has(d)) return;
    this.domains.set(d, `domain-${this.domains.size + 1}.example`);
    this.hostReDirty = true;
  }

  private nextHost(): string {
    const used = new Set(this.hosts.values());
    let i = used.size + 1;
    while (used.has(`host-${i}`)) i++;
    return `host-${i}`;
  }

  /** Pseudonym of a learnt name (case-insensitive); the result is upper case when the input was. */
  host(name: string): string | null {
    const lower = name.toLowerCase();
    const mapped = this.hosts.get(lower) ?? this.domains.get(lower) ?? null;
    if (!mapped) return null;
    return name === name.toUpperCase() && name !== lower ? mapped.toUpperCase() : mapped;
  }

  /** One regex over every learnt name (longest first), or null when none is known. */
  hostPattern(): RegExp | null {
    if (this.hostReDirty) {
      const names = [...this.hosts.keys(), ...this.domains.keys()].sort((a, b) => b.length - a.length).map(escapeRegex);
      this.hostRe = names.length ? new RegExp(`(?<![A-Za-z0-9_-])(?:${names.join('|')})(?![A-Za-z0-9_-])`, 'gi') : null;
      this.hostReDirty = false;
    }
    return this.hostRe;
  }

  get hostCount(): number {
    return this.hosts.size + this.domains.size;
  }

  /** The mapping, for the user's eyes on this machine only (never written into a bundle). */
  entries(): Array<{ kind: 'ipv4' | 'ipv6' | 'mac' | 'hostname'; original: string; pseudonym: string }> {
    return [
      ...[...this.v4].map(([original, pseudonym]) => ({ kind: 'ipv4' as const, original, pseudonym })),
      ...[...this.v6].map(([original, pseudonym]) => ({ kind: 'ipv6' as const, original, pseudonym })),
      ...[...this.hosts, ...this.domains].map(([original, pseudonym]) => ({ kind: 'hostname' as const, original, pseudonym })),
    ];
  }
}

/** Bits of the well-known range an IPv4 address is in (RFC 1918, CGNAT, loopback, link-local), kept as they are. */
function ipv4KeepBits(p: number[]): number {
  const [a, b] = p as [number, number];
  if (a === 10 || a === 127) return 8;
  if (a === 172 && b >= 16 && b <= 31) return 12;
  if (a === 192 && b === 168) return 16;
  if (a === 169 && b === 254) return 16;
  if (a === 100 && b >= 64 && b <= 127) return 10;
  return 0;
}

/** Same for IPv6: link-local fe80::/10, unique local fc00::/7, multicast ff00::/8. */
function ipv6KeepBits(g: number[]): number {
  const first = g[0] as number;
  if ((first & 0xffc0) === 0xfe80) return 10;
  if ((first & 0xfe00) === 0xfc00) return 7;
  if ((first & 0xff00) === 0xff00) return 8;
  return 0;
}

function keepIpv4(p: number[]): boolean {
  const [a, b, c, d] = p as [number, number, number, number];
  if (a === 0 && b === 0 && c === 0 && d === 0) return true;
  if (a === 127 && b === 0 && c === 0 && d === 1) return true;
  if (a === 255) {
    // 255.255.255.255 and netmasks (contiguous ones): 255.255.240.0, 255.0.0.0, ...
    const n = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
    const inv = ~n >>> 0;
    return (inv & (inv + 1)) === 0;
  }
  return false;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isLearnableHost(n: string): boolean {
  if (n.length < 4 || n.length > 253) return false;
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(n)) return false;
  if (/^\d+(\.\d+)*$/.test(n)) return false;
  if (HOSTNAME_STOPWORDS.has(n)) return false;
  return isLearnableDomain(n);
}

function isLearnableDomain(d: string): boolean {
  return !PUBLIC_DOMAINS.some((p) => d === p || d.endsWith('.' + p));
}

/** Parse an IPv6 address into 8 groups, or null. Accepts `::` compression and an embedded IPv4 tail. */
export function parseIpv6(text: string): number[] | null {
  if (!text.includes(':') || text.length < 2 || text.length > 45) return null;
  let s = text;
  let tail: number[] = [];
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (v4) {
    const o = v4.slice(1).map(Number);
    if (o.some((x) => x > 255)) return null;
    tail = [((o[0] as number) << 8) | (o[1] as number), ((o[2] as number) << 8) | (o[3] as number)];
    s = s.slice(0, v4.index);
    if (s.endsWith(':') && !s.endsWith('::')) s = s.slice(0, -1);
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const parse = (h: string): number[] | null => {
    if (h === '') return [];
    const gs = h.split(':');
    const out: number[] = [];
    for (const g of gs) {
      if (!/^[0-9A-Fa-f]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0] as string);
  const rest = halves.length === 2 ? parse(halves[1] as string) : [];
  if (!head || !rest) return null;
  const total = head.length + rest.length + tail.length;
  if (halves.length === 1) return total === 8 ? [...head, ...tail] : null;
  if (total > 7) return null;
  return [...head, ...new Array<number>(8 - total).fill(0), ...rest, ...tail];
}

/** RFC 5952 text form: lower case, longest zero run compressed. */
export function formatIpv6(groups: number[]): string {
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] === 0) {
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLen && j - i >= 2) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    } else i++;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}
