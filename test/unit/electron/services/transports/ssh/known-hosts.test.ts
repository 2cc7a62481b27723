import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decideHostKey,
  findHostEntries,
  hashHostName,
  hostFieldMatches,
  keyTypeOfBlob,
  knownHostsName,
  parseKnownHosts,
  sha256Fingerprint,
} from '../../../../../../electron/services/transports/ssh/known-hosts';
import { PinningVerifier } from '../../../../../../electron/services/transports/ssh/host-keys';

function blob(type: string, seed: string): Buffer {
  const t = Buffer.from(type);
  const body = crypto.createHash('sha256').update(seed).digest();
  const len = Buffer.alloc(4);
  len.writeUInt32BE(t.length);
  const blen = Buffer.alloc(4);
  blen.writeUInt32BE(body.length);
  return Buffer.concat([len, t, blen, body]);
}

const A = blob('ssh-ed25519', 'a');
const B = blob('ssh-ed25519', 'b');
const R = blob('ssh-rsa', 'r');
const line = (hosts: string, k: Buffer, marker = '') => `${marker ? marker + ' ' : ''}${hosts} ${keyTypeOfBlob(k)} ${k.toString('base64')} c`;

describe('known_hosts', () => {
  it('names hosts like OpenSSH: bare for port 22, [host]:port otherwise, lower case', () => {
    expect(knownHostsName('Node1.Example', 22)).toBe('node1.example');
    expect(knownHostsName('127.0.0.1', 2222)).toBe('[127.0.0.1]:2222');
  });

  it('matches comma lists, wildcards, negation and hashed fields', () => {
    expect(hostFieldMatches('a.example,b.example', 'b.example')).toBe(true);
    expect(hostFieldMatches('*.example,!bad.example', 'ok.example')).toBe(true);
    expect(hostFieldMatches('*.example,!bad.example', 'bad.example')).toBe(false);
    expect(hostFieldMatches('node?', 'node7')).toBe(true);
    expect(hostFieldMatches('[10.0.0.?]:2222', '[10.0.0.5]:2222')).toBe(true);
    expect(hostFieldMatches('10.0.0.5', '[10.0.0.5]:2222')).toBe(false);
    const hashed = hashHostName('[10.1.2.3]:22022');
    expect(hostFieldMatches(hashed, '[10.1.2.3]:22022')).toBe(true);
    expect(hostFieldMatches(hashed, '10.1.2.3')).toBe(false);
    expect(hostFieldMatches('|1|bad|fields', 'x')).toBe(false);
  });

  it('parses markers and skips comments, blanks and unknown markers', () => {
    const entries = parseKnownHosts(['# c', '', line('h1', A), line('h2', B, '@revoked'), line('*.ca', R, '@cert-authority'), '@bogus h3 ssh-ed25519 AAAA', 'broken'].join('\r\n'));
    expect(entries.map((e) => [e.hosts, e.marker, e.line])).toEqual([
      ['h1', null, 3],
      ['h2', 'revoked', 4],
      ['*.ca', 'cert-authority', 5],
    ]);
  });

  it('decides trusted / changed / unknown / revoked', () => {
    const entries = parseKnownHosts([line('h1', A), line('[h2]:2222', R), line('h3', A), line('*', B, '@revoked')].join('\n'));
    expect(decideHostKey(entries, 'h1', 22, A).kind).toBe('trusted');
    expect(decideHostKey(entries, 'h3', 22, blob('ssh-ed25519', 'x')).kind).toBe('changed');
    // A key of another type than the known ones: unknown (OpenSSH asks), never silently trusted.
    const d = decideHostKey(entries, 'h2', 2222, A);
    expect(d).toMatchObject({ kind: 'unknown', otherTypes: ['ssh-rsa'] });
    expect(decideHostKey(entries, 'h2', 22, R).kind).toBe('unknown');
    expect(decideHostKey(entries, 'h1', 22, B).kind).toBe('revoked');
    expect(findHostEntries(entries, 'h2', 2222).map((e) => e.marker)).toEqual([null, 'revoked']);
  });

  it('fingerprints as ssh-keygen -lf does (SHA256:, base64 without padding)', () => {
    const fp = sha256Fingerprint(A);
    expect(fp).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(fp).toBe('SHA256:' + crypto.createHash('sha256').update(A).digest('base64').replace(/=+$/, ''));
  });
});

describe('PinningVerifier', () => {
  it('refuses unknown keys with the fingerprint to accept, and accepts only that exact fingerprint', () => {
    const v = new PinningVerifier({ knownHosts: [] });
    const r1 = v.check('10.0.0.1', 22, A);
    expect(r1).toMatchObject({ ok: false, code: 'HOST_KEY_UNKNOWN', fingerprint: sha256Fingerprint(A) });
    expect(!r1.ok && r1.message).toContain('--accept-host-key ' + sha256Fingerprint(A));
    v.accept(sha256Fingerprint(B));
    expect(v.check('10.0.0.1', 22, A).ok).toBe(false);
    v.accept(sha256Fingerprint(A), { host: '10.0.0.2', port: 22 });
    expect(v.check('10.0.0.1', 22, A).ok).toBe(false);
    expect(v.check('10.0.0.2', 22, A).ok).toBe(true);
  });

  it('never lets an accepted fingerprint override a changed or revoked key', () => {
    const v = new PinningVerifier({ knownHosts: parseKnownHosts([line('h1', A), line('*', R, '@revoked')].join('\n')) });
    v.accept(sha256Fingerprint(B));
    v.accept(sha256Fingerprint(R));
    const changed = v.check('h1', 22, B);
    expect(changed).toMatchObject({ ok: false, code: 'HOST_KEY_CHANGED' });
    expect(!changed.ok && changed.message).toContain(sha256Fingerprint(A));
    expect(v.check('other', 22, R)).toMatchObject({ ok: false, code: 'HOST_KEY_CHANGED' });
    expect(v.knownKeyTypes('h1', 22)).toEqual(['ssh-ed25519']);
  });

  it('looks keys up under HostKeyAlias when given', () => {
    const v = new PinningVerifier({ knownHosts: parseKnownHosts(line('alias-name', A)) });
    expect(v.check('10.9.9.9', 2200, A, 'alias-name').ok).toBe(true);
    expect(v.check('10.9.9.9', 2200, A).ok).toBe(false);
  });
});
