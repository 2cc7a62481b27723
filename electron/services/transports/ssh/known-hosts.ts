import crypto from 'node:crypto';
import { KNOWN_HOSTS_COMPILED_PATTERNS_MAX } from '../../../../shared/domain/limits';

/**
 * OpenSSH known_hosts, read-only: plain and hashed (`|1|salt|hmac`) host fields, comma lists, `*`/`?` wildcards,
 * `!negation`, `[host]:port` for non-22 ports, `@revoked` and `@cert-authority` markers (sshd(8)
 * "SSH_KNOWN_HOSTS FILE FORMAT"). Matching follows ssh-keygen -F: the lookup name is `host` for port 22 and
 * `[host]:port` otherwise.
 */

export interface KnownHostEntry {
  marker: 'revoked' | 'cert-authority' | null;
  /** The host field as written (comma list, or a hashed `|1|...` field). */
  hosts: string;
  keyType: string;
  keyBase64: string;
  comment: string;
  /** 1-based line in its file. */
  line: number;
  source: string;
}

/** `SHA256:<base64 without padding>` of the key blob, the string `ssh-keygen -lf` prints. */
export function sha256Fingerprint(keyBlob: Buffer): string {
  return 'SHA256:' + crypto.createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '');
}

/** The key type named inside an SSH public key blob (`ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`...). */
export function keyTypeOfBlob(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return 'unknown';
  const len = keyBlob.readUInt32BE(0);
  if (len <= 0 || len > 64 || 4 + len > keyBlob.length) return 'unknown';
  return keyBlob.subarray(4, 4 + len).toString('latin1');
}

/** The name known_hosts uses for host:port. */
export function knownHostsName(host: string, port: number): string {
  const h = host.toLowerCase();
  return port === 22 ? h : `[${h}]:${port}`;
}

export function parseKnownHosts(text: string, source = 'known_hosts'): KnownHostEntry[] {
  const out: KnownHostEntry[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const fields = line.split(/\s+/);
    let marker: KnownHostEntry['marker'] = null;
    if (fields[0] === '@revoked' || fields[0] === '@cert-authority') {
      marker = fields[0] === '@revoked' ? 'revoked' : 'cert-authority';
      fields.shift();
    } else if (fields[0]?.startsWith('@')) {
      return;
    }
    const [hosts, keyType, keyBase64, ...rest] = fields;
    if (!hosts || !keyType || !keyBase64) return;
    out.push({ marker, hosts, keyType, keyBase64, comment: rest.join(' '), line: i + 1, source });
  });
  return out;
}

/**
 * Compiled host patterns, by pattern text. Every connection looks its host up in every known_hosts entry (twice:
 * key types to offer, then the decision), so a fan-out to 200 nodes with a 200-line file compiled 80,000 regular
 * expressions; a known_hosts file has a bounded number of patterns, the cache is cleared if it ever grows past that.
 */
const compiledPatterns = new Map<string, RegExp>();

function wildcardToRegExp(pattern: string): RegExp {
  let re = compiledPatterns.get(pattern);
  if (re === undefined) {
    const body = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.');
    re = new RegExp(`^${body}$`, 'i');
    if (compiledPatterns.size >= KNOWN_HOSTS_COMPILED_PATTERNS_MAX) compiledPatterns.clear();
    compiledPatterns.set(pattern, re);
  }
  return re;
}

/** HMAC-SHA1 hashed host field `|1|salt|hash`. */
export function hashedHostMatches(field: string, name: string): boolean {
  const parts = field.split('|');
  if (parts.length !== 4 || parts[1] !== '1') return false;
  const salt = Buffer.from(parts[2] ?? '', 'base64');
  const want = Buffer.from(parts[3] ?? '', 'base64');
  const got = crypto.createHmac('sha1', salt).update(name).digest();
  return want.length === got.length && crypto.timingSafeEqual(want, got);
}

/** Hash a name the way `ssh-keygen -H` does (for tests and for writing hashed entries). */
export function hashHostName(name: string, salt: Buffer = crypto.randomBytes(20)): string {
  return `|1|${salt.toString('base64')}|${crypto.createHmac('sha1', salt).update(name).digest('base64')}`;
}

/** Whether an entry's host field matches `name` (already in known_hosts form). */
export function hostFieldMatches(field: string, name: string): boolean {
  if (field.startsWith('|')) return hashedHostMatches(field, name);
  let matched = false;
  for (const pattern of field.split(',')) {
    if (pattern === '') continue;
    const negated = pattern.startsWith('!');
    const p = negated ? pattern.slice(1) : pattern;
    if (wildcardToRegExp(p).test(name)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/** Entries for `host:port` (what `ssh-keygen -F` would list), markers included. */
export function findHostEntries(entries: readonly KnownHostEntry[], host: string, port: number): KnownHostEntry[] {
  const name = knownHostsName(host, port);
  return entries.filter((e) => hostFieldMatches(e.hosts, name));
}

export type HostKeyDecision =
  | { kind: 'trusted'; entry: KnownHostEntry }
  | { kind: 'revoked'; entry: KnownHostEntry }
  | { kind: 'changed'; expected: KnownHostEntry[] }
  | { kind: 'unknown'; otherTypes: string[] };

/**
 * Decide about a presented key: revoked beats everything; a matching entry trusts it; an entry of the same key
 * type with another key means the key changed; otherwise unknown (other key types may be known, as OpenSSH
 * reports "keys of different type are already known for this host").
 */
export function decideHostKey(entries: readonly KnownHostEntry[], host: string, port: number, keyBlob: Buffer): HostKeyDecision {
  const keyType = keyTypeOfBlob(keyBlob);
  const b64 = keyBlob.toString('base64');
  const found = findHostEntries(entries, host, port);
  const revoked = entries.find((e) => e.marker === 'revoked' && e.keyBase64 === b64);
  if (revoked) return { kind: 'revoked', entry: revoked };
  const plain = found.filter((e) => e.marker === null);
  const match = plain.find((e) => e.keyType === keyType && e.keyBase64 === b64);
  if (match) return { kind: 'trusted', entry: match };
  const sameType = plain.filter((e) => e.keyType === keyType);
  if (sameType.length > 0) return { kind: 'changed', expected: sameType };
  return { kind: 'unknown', otherTypes: [...new Set(plain.map((e) => e.keyType))] };
}
