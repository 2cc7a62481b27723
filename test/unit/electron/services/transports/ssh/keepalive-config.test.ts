import { describe, expect, it } from 'vitest';
import { keepaliveFromConfig, parseSshConfig, resolveSshHost } from '../../../../../../electron/services/transports/ssh/ssh-config';

const defaults = { intervalMs: 10_000, countMax: 3 };
const resolve = (text: string, alias: string) => resolveSshHost(parseSshConfig(text), alias, { home: '/home/u', localUser: 'u' });

describe('ServerAliveInterval / ServerAliveCountMax -> ssh2 keepalive', () => {
  it('maps seconds to keepaliveInterval ms and the count to keepaliveCountMax', () => {
    const host = resolve('Host win-*\n  ServerAliveInterval 5\n  ServerAliveCountMax 2\n', 'win-a');
    expect(keepaliveFromConfig(host, defaults)).toEqual({ intervalMs: 5000, countMax: 2 });
  });

  it("uses OpenSSH's default count (3) when only the interval is set, and the pool's interval when only the count is", () => {
    expect(keepaliveFromConfig(resolve('Host a\n  ServerAliveInterval 15\n', 'a'), { intervalMs: 1, countMax: 9 })).toEqual({
      intervalMs: 15_000,
      countMax: 3,
    });
    expect(keepaliveFromConfig(resolve('Host a\n  ServerAliveCountMax 1\n', 'a'), defaults)).toEqual({ intervalMs: 10_000, countMax: 1 });
  });

  it('ServerAliveInterval 0 disables keepalive (ssh2 keepaliveInterval 0)', () => {
    expect(keepaliveFromConfig(resolve('Host a\n  ServerAliveInterval 0\n', 'a'), defaults)).toEqual({ intervalMs: 0, countMax: 3 });
  });

  it('first value wins, as in OpenSSH; no setting or no config gives null (pool defaults)', () => {
    expect(keepaliveFromConfig(resolve('Host a\n  ServerAliveInterval 7\nHost *\n  ServerAliveInterval 60\n', 'a'), defaults)).toEqual({
      intervalMs: 7000,
      countMax: 3,
    });
    expect(keepaliveFromConfig(resolve('Host a\n  Port 2222\n', 'a'), defaults)).toBeNull();
    expect(keepaliveFromConfig(null, defaults)).toBeNull();
  });
});
