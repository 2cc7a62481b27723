import path from 'node:path';

/**
 * The part of OpenSSH's ssh_config(5) Windeck honours: `Host` blocks (patterns, `!negation`, `*`/`?`),
 * HostName, Port, User, IdentityFile (several), IdentitiesOnly, IdentityAgent, ProxyJump, UserKnownHostsFile,
 * HostKeyAlias, ServerAliveInterval, ServerAliveCountMax, ConnectTimeout. As in OpenSSH the first value
 * obtained for a keyword wins (IdentityFile and UserKnownHostsFile accumulate). `Match` blocks are skipped
 * (their conditions need a shell); `Include` is resolved by the caller-supplied reader.
 */

export interface SshConfigBlock {
  patterns: string[];
  options: Array<[string, string[]]>;
}

export interface ResolvedSshHost {
  /** The alias asked for. */
  alias: string;
  hostName: string;
  port: number | null;
  user: string | null;
  identityFiles: string[];
  identitiesOnly: boolean;
  identityAgent: string | null;
  /** ProxyJump hops in order (`none` gives an empty list). */
  proxyJump: JumpSpec[];
  userKnownHostsFiles: string[];
  hostKeyAlias: string | null;
  serverAliveIntervalSec: number | null;
  serverAliveCountMax: number | null;
  connectTimeoutSec: number | null;
}

export interface JumpSpec {
  user: string | null;
  host: string;
  port: number | null;
}

function tokenize(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (const m of line.matchAll(re)) out.push(m[1] ?? m[2] ?? '');
  return out;
}

/** Parse config text into blocks; options before the first Host apply to all hosts (an implicit `Host *`). */
export function parseSshConfig(text: string, readInclude?: (pattern: string) => string[]): SshConfigBlock[] {
  const blocks: SshConfigBlock[] = [{ patterns: ['*'], options: [] }];
  let current: SshConfigBlock | null = blocks[0]!;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(\S+?)(?:\s*=\s*|\s+)(.*)$/.exec(line);
    if (!m) continue;
    const key = m[1]!.toLowerCase();
    const values = tokenize(m[2]!);
    if (key === 'host') {
      current = { patterns: values, options: [] };
      blocks.push(current);
    } else if (key === 'match') {
      current = null;
    } else if (key === 'include') {
      if (readInclude) {
        for (const pattern of values) {
          for (const included of readInclude(pattern)) {
            const inner = parseSshConfig(included, readInclude);
            // Included options before any Host inside belong to the including block.
            if (current && inner[0]) current.options.push(...inner[0].options);
            blocks.push(...inner.slice(1));
            current = null;
          }
        }
      }
    } else if (current) {
      current.options.push([key, values]);
    }
  }
  return blocks;
}

function patternMatches(patterns: readonly string[], host: string): boolean {
  let matched = false;
  for (const p of patterns) {
    const negated = p.startsWith('!');
    const body = (negated ? p.slice(1) : p)
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.');
    if (new RegExp(`^${body}$`, 'i').test(host)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/** Parse `[user@]host[:port]` (also `[v6]:port`). */
export function parseJump(spec: string): JumpSpec {
  let rest = spec;
  let user: string | null = null;
  const at = rest.lastIndexOf('@');
  if (at > 0) {
    user = rest.slice(0, at);
    rest = rest.slice(at + 1);
  }
  let port: number | null = null;
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest);
  if (v6) return { user, host: v6[1]!, port: v6[2] ? Number(v6[2]) : null };
  const c = rest.lastIndexOf(':');
  if (c > 0 && /^\d+$/.test(rest.slice(c + 1))) {
    port = Number(rest.slice(c + 1));
    rest = rest.slice(0, c);
  }
  return { user, host: rest, port };
}

function expandTokens(value: string, vars: { h: string; u: string; r: string | null; p: number | null; home: string }): string {
  let v = value.startsWith('~/') || value === '~' ? path.join(vars.home, value.slice(1)) : value;
  v = v.replace(/%([%hdupr])/g, (_all, t: string) => {
    switch (t) {
      case '%':
        return '%';
      case 'h':
        return vars.h;
      case 'd':
        return vars.home;
      case 'u':
        return vars.u;
      case 'r':
        return vars.r ?? vars.u;
      case 'p':
        return String(vars.p ?? 22);
      default:
        return '';
    }
  });
  return v;
}

/** Resolve the options for `alias` as `ssh -G alias` would (for the keywords above). */
export function resolveSshHost(blocks: readonly SshConfigBlock[], alias: string, env: { home: string; localUser: string }): ResolvedSshHost {
  const first = new Map<string, string[]>();
  const identityFiles: string[] = [];
  const knownHostsFiles: string[] = [];
  for (const block of blocks) {
    if (!patternMatches(block.patterns, alias)) continue;
    for (const [key, values] of block.options) {
      if (key === 'identityfile') identityFiles.push(values.join(' '));
      else if (key === 'userknownhostsfile') knownHostsFiles.push(...values);
      else if (!first.has(key)) first.set(key, values);
    }
  }
  const get = (k: string) => first.get(k)?.[0] ?? null;
  const hostName = (get('hostname') ?? alias).replace(/%h/g, alias);
  const portText = get('port');
  const port = portText && /^\d+$/.test(portText) ? Number(portText) : null;
  const user = get('user');
  const vars = { h: hostName, u: env.localUser, r: user, p: port, home: env.home };
  const num = (k: string) => {
    const v = get(k);
    return v && /^\d+$/.test(v) ? Number(v) : null;
  };
  const jumpValue = first.get('proxyjump')?.join(' ') ?? null;
  return {
    alias,
    hostName,
    port,
    user,
    identityFiles: identityFiles.map((f) => expandTokens(f, vars)),
    identitiesOnly: (get('identitiesonly') ?? 'no').toLowerCase() === 'yes',
    identityAgent: get('identityagent') ? expandTokens(get('identityagent')!, vars) : null,
    proxyJump:
      jumpValue === null || jumpValue.toLowerCase() === 'none'
        ? []
        : jumpValue
            .split(',')
            .map((s) => parseJump(s.trim()))
            .filter((j) => j.host !== ''),
    userKnownHostsFiles: knownHostsFiles.filter((f) => f.toLowerCase() !== 'none').map((f) => expandTokens(f, vars)),
    hostKeyAlias: get('hostkeyalias'),
    serverAliveIntervalSec: num('serveraliveinterval'),
    serverAliveCountMax: num('serveralivecountmax'),
    connectTimeoutSec: num('connecttimeout'),
  };
}

/**
 * ssh2's keepalive for a resolved host: ServerAliveInterval seconds -> keepaliveInterval ms (0 disables, as in
 * OpenSSH), ServerAliveCountMax -> keepaliveCountMax (OpenSSH's default 3 when only the interval is set). Null
 * when the config sets neither (the pool's defaults apply).
 */
export function keepaliveFromConfig(
  host: Pick<ResolvedSshHost, 'serverAliveIntervalSec' | 'serverAliveCountMax'> | null,
  defaults: { intervalMs: number; countMax: number },
): { intervalMs: number; countMax: number } | null {
  if (!host || (host.serverAliveIntervalSec === null && host.serverAliveCountMax === null)) return null;
  return {
    intervalMs: host.serverAliveIntervalSec === null ? defaults.intervalMs : host.serverAliveIntervalSec * 1000,
    countMax: host.serverAliveCountMax ?? (host.serverAliveIntervalSec === null ? defaults.countMax : 3),
  };
}
