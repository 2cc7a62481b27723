import fs from 'node:fs';
import { WindeckError } from '../../../shared/contract/errors';
import { CREDENTIAL_KINDS, type CredentialInfo, type CredentialKind } from '../../../shared/contract/methods/access';
import type { CommandDef } from '../command';
import { EXIT } from '../exit-codes';
import type { CliIo } from '../io';
import { readSecret } from '../secret-input';
import { textTable } from '../text-table';
import { loadSsh2 } from '../../services/transports/ssh/connect';

/**
 * `windeck credentials add|list|remove` (issue 4 item 4): credential sets per cluster, node group or node.
 * Secrets (passwords, key passphrases) come from a no-echo prompt on a terminal, `--password-stdin` or
 * `--password-file`, never from an argument value; they are sealed by the SecretStore (refused plainly when the
 * host has none) and never printed.
 */

const USAGE = [
  'windeck credentials add NAME --kind KIND --user USER [--key PATH] [--node NODE | --group win-*|key=value] [--all-clusters]',
  '                          [--priority N] [--password-stdin | --password-file PATH | --no-secret | --keep-secret]',
  '       windeck credentials list [--node NODE] [--all-clusters] [--json]',
  '       windeck credentials remove NAME [--force]',
  `  KIND: ${CREDENTIAL_KINDS.join(', ')}`,
].join('\n');

export function clusterTarget(io: CliIo): { cluster?: string; kubeconfig?: string; context?: string } {
  const cluster = io.args.string('--cluster');
  const kubeconfig = io.args.string('--kubeconfig');
  const context = io.args.string('--context');
  return { ...(cluster ? { cluster } : {}), ...(kubeconfig ? { kubeconfig } : {}), ...(context ? { context } : {}) };
}

function scopeText(c: CredentialInfo): string {
  const where = c.scope === 'cluster' ? 'cluster' : c.scope === 'node' ? `node ${c.selector}` : `group ${c.selector}`;
  return `${where}${c.clusterId === null ? ' (any cluster)' : ''}`;
}

function table(list: CredentialInfo[]): string {
  if (list.length === 0) return 'No credentials. Add one with `windeck credentials add NAME --kind KIND --user USER ...`.';
  const rows = list.map((c) => [
    c.name,
    c.kind,
    c.username,
    scopeText(c),
    c.keyPath ?? '-',
    c.hasSecret ? `sealed (${c.secretStoreKind})` : 'none',
    String(c.priority),
  ]);
  return textTable(['NAME', 'KIND', 'USER', 'APPLIES TO', 'KEY', 'SECRET', 'PRIO'], rows).join('\n');
}

/** Whether a private key file is encrypted (then its passphrase is asked on a terminal). */
async function keyIsEncrypted(keyPath: string | undefined): Promise<boolean> {
  if (!keyPath) return false;
  try {
    const ssh2 = await loadSsh2();
    const parsed = ssh2.utils.parseKey(fs.readFileSync(keyPath));
    return parsed instanceof Error && /encrypt|passphrase/i.test(parsed.message);
  } catch {
    return false;
  }
}

async function add(io: CliIo, rest: string[]): Promise<number> {
  const [name, ...extra] = rest;
  if (!name || extra.length > 0) throw new WindeckError('VALIDATION', `Usage: ${USAGE}`);
  const kind = io.args.string('--kind');
  if (!kind || !(CREDENTIAL_KINDS as readonly string[]).includes(kind))
    throw new WindeckError('VALIDATION', `--kind must be one of ${CREDENTIAL_KINDS.join(', ')}.`);
  const user = io.args.string('--user');
  if (!user) throw new WindeckError('VALIDATION', '--user USER is required.');
  const node = io.args.string('--node');
  const group = io.args.string('--group');
  if (node && group) throw new WindeckError('VALIDATION', 'Give --node or --group, not both.');
  const key = io.args.string('--key');
  const priorityText = io.args.string('--priority');
  if (priorityText !== undefined && !/^-?\d{1,4}$/.test(priorityText)) throw new WindeckError('VALIDATION', '--priority is a whole number (-1000..1000).');
  const noSecret = io.args.bool('--no-secret');
  const keepSecret = io.args.bool('--keep-secret');
  const secretFlags = [noSecret, keepSecret, io.args.bool('--password-stdin'), io.args.string('--password-file') !== undefined].filter(Boolean).length;
  if (secretFlags > 1) throw new WindeckError('VALIDATION', 'Give at most one of --password-stdin, --password-file, --no-secret, --keep-secret.');
  if (kind === 'ssh-agent' && (io.args.bool('--password-stdin') || io.args.string('--password-file')))
    throw new WindeckError('VALIDATION', 'An ssh-agent credential has no secret.');
  const needsSecret = kind === 'ssh-password' || kind === 'winrm-ntlm' || kind === 'winrm-basic-https';
  let secret: string | null = null;
  if (!noSecret && !keepSecret && kind !== 'ssh-agent') {
    const question = kind === 'ssh-key' ? `Passphrase for ${key ?? 'the key'} (empty: none): ` : `Password for ${user}: `;
    secret = await readSecret(io, question, kind !== 'ssh-key' || (await keyIsEncrypted(key)));
    if (secret === null && needsSecret && !io.streams.stdinIsTTY && !io.streams.prompt) {
      throw new WindeckError(
        'VALIDATION',
        `A ${kind} credential needs its password: give --password-stdin or --password-file (or --no-secret to give it at run time with WINDECK_NODE_PASSWORD or the prompt).`,
      );
    }
  }
  const saved = await io.call('credentials:set', {
    ...clusterTarget(io),
    ...(io.args.bool('--all-clusters') ? { anyCluster: true } : {}),
    name,
    kind: kind as CredentialKind,
    scope: node ? 'node' : group ? 'node-group' : 'cluster',
    ...(node ? { selector: node } : group ? { selector: group } : {}),
    username: user,
    ...(key ? { keyPath: key } : {}),
    ...(secret !== null ? { secret } : {}),
    ...(keepSecret ? { keepSecret: true } : {}),
    ...(priorityText !== undefined ? { priority: Number(priorityText) } : {}),
  });
  io.emit(
    saved,
    () =>
      `Saved credential ${saved.name} (${saved.kind}, ${saved.username}, ${scopeText(saved)}); secret: ${saved.hasSecret ? `sealed by ${saved.secretStoreKind}` : 'none stored'}.`,
  );
  return EXIT.OK;
}

export const credentialsCommand: CommandDef = {
  name: 'credentials',
  summary: 'Credential sets for nodes (add, list, remove); secrets sealed, never shown',
  usage: USAGE,
  flags: {
    '--kind': 'string',
    '--user': 'string',
    '--key': 'string',
    '--node': 'string',
    '--group': 'string',
    '--cluster': 'string',
    '--all-clusters': 'boolean',
    '--priority': 'string',
    '--password-stdin': 'boolean',
    '--password-file': 'string',
    '--no-secret': 'boolean',
    '--keep-secret': 'boolean',
    '--force': 'boolean',
  },
  async run(io) {
    const [sub, ...rest] = io.args.positionals;
    switch (sub) {
      case 'add':
      case 'set':
        return add(io, rest);
      case 'list':
      case 'ls': {
        if (rest.length > 0) throw new WindeckError('VALIDATION', `Usage: ${USAGE}`);
        const node = io.args.string('--node');
        const list = await io.call('credentials:list', {
          ...clusterTarget(io),
          ...(node ? { node } : {}),
          ...(io.args.bool('--all-clusters') ? { allClusters: true } : {}),
        });
        io.emit(list, () => table(list));
        return EXIT.OK;
      }
      case 'remove':
      case 'rm': {
        const [name, ...extra] = rest;
        if (!name || extra.length > 0) throw new WindeckError('VALIDATION', `Usage: ${USAGE}`);
        const r = await io.call('credentials:remove', { name, ...(io.args.bool('--force') ? { force: true } : {}) });
        io.emit(r, () => `Removed credential ${r.removed}${r.endpointsCleared > 0 ? ` (${r.endpointsCleared} endpoint(s) no longer name it)` : ''}.`);
        return EXIT.OK;
      }
      default:
        throw new WindeckError('VALIDATION', `Usage: ${USAGE}`);
    }
  },
};
