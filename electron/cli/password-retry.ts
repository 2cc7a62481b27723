import { WindeckError, isWindeckError } from '../../shared/contract/errors';
import type { CredentialInfo } from '../../shared/contract/methods/access';
import { PROMPTED_PASSWORD_ENV, sshConfigFor } from '../services/transports/node-access';
import type { CommandDef } from './command';
import { clusterTarget } from './commands/credentials';
import type { CliIo } from './io';
import { promptFor } from './secret-input';

/**
 * After a node command (probe, diagnose, collect, restart) fails with AUTH_FAILED where an SSH password is what
 * authenticates (the SSH credential that applies is an ssh-password one, or none applies and ~/.ssh/config is
 * used): on a terminal, ask once for the password (no echo), run the command again with it, and offer to save
 * it sealed in the store. Elsewhere, the error says which command stores a credential. The typed password lives
 * only in this process's environment for the retry.
 */

const NODE_COMMANDS = new Set(['probe', 'diagnose', 'collect', 'restart']);

type OwnedIo = CliIo & { dispose(): Promise<void> };

async function passwordCredential(io: CliIo, node: string): Promise<{ credential: CredentialInfo | null } | null> {
  try {
    const list = await io.call('credentials:list', { ...clusterTarget(io), node });
    const ssh = list.find((c) => c.kind.startsWith('ssh-'));
    if (!ssh) return { credential: null };
    return ssh.kind === 'ssh-password' ? { credential: ssh } : null;
  } catch {
    return null;
  }
}

function hint(node: string, user: string | null): string {
  return ` To give ${node} a password: \`windeck credentials add ${node}-ssh --kind ssh-password --user ${user ?? 'USER'} --node ${node} --password-stdin\` (sealed; needs the desktop app or WINDECK_SECRET_KEY), or set WINDECK_NODE_PASSWORD for one run, or run this command on a terminal to be asked.`;
}

/**
 * Null when the failure is not one a password fixes. Else the outcome of the retried run (its io replaces the
 * given one, which is disposed); throws the (possibly annotated) error when it cannot ask.
 */
export async function retryWithPassword(
  command: CommandDef,
  io: OwnedIo,
  error: unknown,
  makeIo: (env: NodeJS.ProcessEnv) => OwnedIo,
): Promise<{ code: number; io: OwnedIo } | null> {
  if (!isWindeckError(error) || (error as WindeckError).code !== 'AUTH_FAILED' || !NODE_COMMANDS.has(command.name) || !command.run) return null;
  if (io.streams.env[PROMPTED_PASSWORD_ENV]) return null;
  const node = io.args.positionals[0];
  if (!node || (command.name === 'diagnose' && (io.args.string('--bundle') || io.args.string('--from')))) return null;
  const fix = await passwordCredential(io, node);
  if (!fix) return null;
  const e = error as WindeckError;
  const user = fix.credential?.username ?? (await sshConfigFor(node, io.streams.env))?.user ?? null;
  const ask = promptFor(io.streams);
  if (!ask) throw new WindeckError('AUTH_FAILED', e.message + hint(node, user), e.context);
  io.err(`windeck: ${e.message}`);
  const password = await ask(`Password for ${user ?? 'the user'} on ${node} (SSH, not shown): `, { echo: false });
  if (!password) throw e;
  await io.dispose();
  const next = makeIo({ ...io.streams.env, [PROMPTED_PASSWORD_ENV]: password });
  try {
    const code = await command.run(next);
    await offerToSave(next, node, user, fix.credential, password, ask);
    return { code, io: next };
  } catch (retryError) {
    // The caller only disposes the io it was given (already disposed); this one is ours to close.
    await next.dispose();
    throw retryError;
  }
}

async function offerToSave(
  io: CliIo,
  node: string,
  user: string | null,
  credential: CredentialInfo | null,
  password: string,
  ask: (q: string, o: { echo: boolean }) => Promise<string | null>,
): Promise<void> {
  const store = io.services().core.secretStore;
  if (!store) {
    io.err(
      'The password worked. It was not saved: this host has no secret store (set WINDECK_SECRET_KEY, or use the desktop app); Windeck never stores it in clear.',
    );
    return;
  }
  const answer = await ask(`The password worked. Save it for ${node}, sealed by ${store.kind}? [y/N] `, { echo: true });
  if (!answer || !/^y(es)?$/i.test(answer.trim())) return;
  const username = user ?? (await ask(`User name on ${node}: `, { echo: true }))?.trim();
  if (!username) return;
  const target = clusterTarget(io);
  const saved = credential
    ? await io.call('credentials:set', {
        ...target,
        ...(credential.clusterId === null ? { anyCluster: true } : {}),
        name: credential.name,
        kind: 'ssh-password',
        scope: credential.scope,
        ...(credential.selector ? { selector: credential.selector } : {}),
        username: credential.username,
        secret: password,
        priority: credential.priority,
      })
    : await io.call('credentials:set', { ...target, name: `${node}-ssh`, kind: 'ssh-password', scope: 'node', selector: node, username, secret: password });
  io.err(`Saved as credential ${saved.name} (sealed).`);
}
