import { describe, expect, it } from 'vitest';
import { parseJump, parseSshConfig, resolveSshHost } from '../../../../../../electron/services/transports/ssh/ssh-config';
import { hostKeyAlgorithmOrder } from '../../../../../../electron/services/transports/ssh/connect';

const CONFIG = `
# global
ServerAliveInterval 15

Host win-*  !win-bad
  User Administrator
  Port 2222
  IdentityFile ~/.ssh/win_ed25519
  ProxyJump jump-user@bastion:2200,second

Host win-1
  HostName 10.0.0.11
  Port 22
  IdentityFile "~/.ssh/win 1"

Host bastion
  HostName 192.0.2.10
  User ops

Host second
  HostName=192.0.2.20
  UserKnownHostsFile ~/.ssh/known_hosts.bastions

Match host foo
  User ignored

Host *
  User fallback
  ConnectTimeout 7
  HostKeyAlias shared-alias
`;

const env = { home: '/home/u', localUser: 'u' };

describe('ssh_config', () => {
  const blocks = parseSshConfig(CONFIG);

  it('first obtained value wins; IdentityFile accumulates; tokens and ~ expand', () => {
    const r = resolveSshHost(blocks, 'win-1', env);
    expect(r.hostName).toBe('10.0.0.11');
    expect(r.user).toBe('Administrator');
    expect(r.port).toBe(2222); // the win-* block came first
    expect(r.identityFiles).toEqual(['/home/u/.ssh/win_ed25519', '/home/u/.ssh/win 1']);
    expect(r.proxyJump).toEqual([
      { user: 'jump-user', host: 'bastion', port: 2200 },
      { user: null, host: 'second', port: null },
    ]);
    expect(r.serverAliveIntervalSec).toBe(15);
    expect(r.connectTimeoutSec).toBe(7);
    expect(r.hostKeyAlias).toBe('shared-alias');
  });

  it('negated patterns exclude a host; Match blocks are skipped', () => {
    const bad = resolveSshHost(blocks, 'win-bad', env);
    expect(bad.user).toBe('fallback');
    expect(bad.port).toBeNull();
    expect(bad.hostName).toBe('win-bad');
    expect(resolveSshHost(blocks, 'foo', env).user).toBe('fallback');
  });

  it('Key=Value syntax and UserKnownHostsFile', () => {
    const s = resolveSshHost(blocks, 'second', env);
    expect(s.hostName).toBe('192.0.2.20');
    expect(s.userKnownHostsFiles).toEqual(['/home/u/.ssh/known_hosts.bastions']);
  });

  it('ProxyJump none, Include via reader', () => {
    const b = parseSshConfig('Host x\n  ProxyJump none\nInclude extra\n', (p) => (p === 'extra' ? ['Host y\n  HostName 10.1.1.1\n'] : []));
    expect(resolveSshHost(b, 'x', env).proxyJump).toEqual([]);
    expect(resolveSshHost(b, 'y', env).hostName).toBe('10.1.1.1');
  });

  it('parses jump specs', () => {
    expect(parseJump('h')).toEqual({ user: null, host: 'h', port: null });
    expect(parseJump('u@h:22')).toEqual({ user: 'u', host: 'h', port: 22 });
    expect(parseJump('u@[::1]:2022')).toEqual({ user: 'u', host: '::1', port: 2022 });
  });

  it('asks for already-known host key types first', () => {
    expect(hostKeyAlgorithmOrder(['ssh-rsa']).slice(0, 3)).toEqual(['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa']);
    expect(hostKeyAlgorithmOrder([])[0]).toBe('ssh-ed25519');
  });
});
