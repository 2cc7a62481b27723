import { WindeckError } from '../../../shared/contract/errors';
import type { AccessCheckResult } from '../../../shared/contract/methods/access';
import type { CommandDef } from '../command';
import { EXIT } from '../exit-codes';
import { clusterTarget } from './credentials';
import { textTable } from '../text-table';

/**
 * `windeck access NODE [--transport auto|ssh|winrm] [--accept-host-key SHA256:...] [--connect-timeout MS] [--json]`:
 * the capability check (issue 4 item 4). Every transport is tried with a fresh connection (the read-only `os`
 * script); the table says which works and exactly why each other does not (refused, unreachable, auth,
 * host key unknown with its fingerprint, host key changed, timeout, not configured). `--accept-host-key` first
 * trusts the node's SSH host key if, and only if, it has that fingerprint. Exit 0 when a transport works, 2 when
 * none does (the table is printed either way; with --json it is the value on stdout).
 */

const USAGE = 'windeck access NODE [--transport auto|ssh|winrm] [--accept-host-key SHA256:...] [--connect-timeout MS] [--json]';

function render(r: AccessCheckResult): string {
  const rows = r.checks.map((c) => [
    c.transport,
    c.outcome,
    c.endpoint,
    c.credential ? `${c.credential} (${c.username ?? '?'})` : (c.username ?? '-'),
    `${c.durationMs} ms`,
  ]);
  const [head, ...body] = textTable(['TRANSPORT', 'OUTCOME', 'ENDPOINT', 'CREDENTIAL', 'TIME'], rows);
  const lines = [`${r.node}: ${r.works ? `reachable over ${r.works}` : 'NO transport works'}`, '', head!];
  r.checks.forEach((c, i) => {
    lines.push(body[i]!);
    if (!c.ok) lines.push(`  why: ${c.message}`);
    if (c.outcome === 'host-key-unknown' && c.fingerprint)
      lines.push(`  after checking it on the node: windeck access ${r.node} --accept-host-key ${c.fingerprint}`);
  });
  return lines.join('\n');
}

export const accessCommand: CommandDef = {
  name: 'access',
  summary: 'Capability check: which transport reaches a node, and exactly why the others do not',
  usage: USAGE,
  flags: { '--accept-host-key': 'string', '--connect-timeout': 'string', '--cluster': 'string' },
  async run(io) {
    const [node, ...extra] = io.args.positionals;
    if (!node || extra.length > 0) throw new WindeckError('VALIDATION', `Usage: ${USAGE}`);
    const timeoutText = io.args.string('--connect-timeout');
    if (timeoutText !== undefined && !/^\d{3,6}$/.test(timeoutText)) throw new WindeckError('VALIDATION', '--connect-timeout is in milliseconds (100-120000).');
    const transport = (io.args.string('--transport') ?? 'auto') as 'auto' | 'ssh' | 'winrm';
    const fingerprint = io.args.string('--accept-host-key');
    if (fingerprint) {
      const key = await io.call('hostkeys:accept', { ...clusterTarget(io), node, fingerprint });
      io.err(`Trusted the ${key.keyType} host key ${key.fingerprint} of ${key.host}:${key.port}.`);
    }
    const result = await io.call('nodes:access-check', {
      ...clusterTarget(io),
      node,
      transport,
      ...(timeoutText ? { connectTimeoutMs: Number(timeoutText) } : {}),
    });
    io.emit(result, () => render(result));
    return result.works ? EXIT.OK : EXIT.UNREACHABLE;
  },
};
