import { describe, expect, it } from 'vitest';
import { METHODS } from '../../../../shared/contract/methods';
import { accessMethods } from '../../../../shared/contract/methods/access';

/** The access methods refuse hostile values by validation, before any handler runs. */

const HOSTILE = ['a"b', "a'b", 'a`b', 'a$(id)', 'a;b', 'a\nb', 'a\r\nb', 'a\u0000b', 'a b', 'a|b', '$(rm -rf /)', '--help', 'x'.repeat(5000)];

const parse = (m: keyof typeof accessMethods, input: unknown) => accessMethods[m].input.safeParse(input);

describe('access contract validation', () => {
  it('registers every access method in METHODS', () => {
    for (const m of Object.keys(accessMethods)) expect(Object.prototype.hasOwnProperty.call(METHODS, m)).toBe(true);
  });

  it('accepts well-formed input', () => {
    expect(
      parse('credentials:set', {
        cluster: 'c1',
        name: 'win-admin',
        kind: 'ssh-key',
        scope: 'node-group',
        selector: 'win-*',
        username: 'Administrator',
        keyPath: '/home/u/.ssh/id_ed25519',
      }).success,
    ).toBe(true);
    expect(
      parse('credentials:set', {
        name: 'dom',
        kind: 'winrm-ntlm',
        scope: 'node-group',
        selector: 'kubernetes.io/os=windows',
        username: 'CORP\\svc-k8s',
        secret: `p"a'ss$w;rd\``,
      }).success,
    ).toBe(true);
    expect(parse('credentials:set', { name: 'u', kind: 'ssh-password', scope: 'cluster', username: 'admin@corp.example' }).success).toBe(true);
    expect(
      parse('endpoints:set', { node: 'win-a', transport: 'winrm', host: '10.0.0.4', port: 5986, winrm: { https: true, pinnedSha256: 'AB:'.repeat(31) + 'CD' } })
        .success,
    ).toBe(true);
    expect(parse('endpoints:set', { node: 'win-a', transport: 'ssh', host: 'fd00::4', ssh: { username: 'Administrator' } }).success).toBe(true);
    expect(parse('hostkeys:accept', { host: '127.0.0.1', port: 22, fingerprint: 'SHA256:' + 'a'.repeat(43) }).success).toBe(true);
    expect(parse('nodes:access-check', { node: 'win-a', transport: 'auto' }).success).toBe(true);
  });

  it.each(HOSTILE.map((v) => [JSON.stringify(v).slice(0, 24), v]))('refuses the hostile value %s in every identifier, path and host', (_label, bad) => {
    // Spaces and leading dashes are legal in a file path (C:\Program Files, /tmp/--x), not elsewhere.
    const pathToo = bad !== 'a b' && bad !== '--help';
    const base = { name: 'n', kind: 'ssh-key', scope: 'node', selector: 'win-a', username: 'u', keyPath: '/k' } as const;
    expect(parse('credentials:set', { ...base, name: bad }).success).toBe(false);
    expect(parse('credentials:set', { ...base, username: bad }).success).toBe(false);
    expect(parse('credentials:set', { ...base, selector: bad }).success).toBe(false);
    if (pathToo) expect(parse('credentials:set', { ...base, keyPath: `/tmp/${bad}` }).success).toBe(false);
    expect(parse('credentials:remove', { name: bad }).success).toBe(false);
    expect(parse('endpoints:set', { node: bad, transport: 'ssh', host: 'h' }).success).toBe(false);
    expect(parse('endpoints:set', { node: 'n', transport: 'ssh', host: bad }).success).toBe(false);
    if (pathToo) expect(parse('endpoints:set', { node: 'n', transport: 'winrm', host: 'h', winrm: { caPath: `/ca/${bad}` } }).success).toBe(false);
    if (pathToo) expect(parse('endpoints:set', { node: 'n', transport: 'winrm', host: 'h', winrm: { path: `/wsman${bad}` } }).success).toBe(false);
    expect(parse('endpoints:set', { node: 'n', transport: 'ssh', host: 'h', ssh: { username: bad } }).success).toBe(false);
    expect(parse('endpoints:remove', { node: bad, transport: 'ssh' }).success).toBe(false);
    expect(parse('hostkeys:accept', { host: bad, fingerprint: 'SHA256:' + 'a'.repeat(43) }).success).toBe(false);
    expect(parse('hostkeys:accept', { host: 'h', fingerprint: `SHA256:${bad}` }).success).toBe(false);
    expect(parse('nodes:access-check', { node: bad }).success).toBe(false);
    expect(parse('credentials:list', { node: bad }).success).toBe(false);
  });

  it('lets a secret hold quotes and shell characters (it is sealed, never spliced) but not NUL or line breaks', () => {
    const base = { name: 'n', kind: 'ssh-password', scope: 'cluster', username: 'u' } as const;
    expect(parse('credentials:set', { ...base, secret: `'"\`$(x);|&<>` }).success).toBe(true);
    for (const bad of ['a\nb', 'a\rb', 'a\u0000b', '', 'x'.repeat(2000)]) expect(parse('credentials:set', { ...base, secret: bad }).success).toBe(false);
  });

  it('allows spaces in local paths (Windows and macOS home folders)', () => {
    expect(
      parse('credentials:set', { name: 'n', kind: 'ssh-key', scope: 'cluster', username: 'u', keyPath: 'C:\\Users\\John Smith\\.ssh\\id_ed25519' }).success,
    ).toBe(true);
  });

  it('refuses unknown kinds, fields and bad ports', () => {
    expect(parse('credentials:set', { name: 'n', kind: 'telnet', scope: 'cluster', username: 'u' }).success).toBe(false);
    expect(parse('credentials:set', { name: 'n', kind: 'ssh-agent', scope: 'cluster', username: 'u', password: 'x' }).success).toBe(false);
    expect(parse('endpoints:set', { node: 'n', transport: 'ssh', host: 'h', port: 70000 }).success).toBe(false);
    expect(parse('endpoints:set', { node: 'n', transport: 'winrm', host: 'h', winrm: { pinnedSha256: 'abc' } }).success).toBe(false);
    expect(parse('nodes:access-check', { node: 'n', connectTimeoutMs: 5 }).success).toBe(false);
  });
});
