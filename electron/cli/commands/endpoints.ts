import { WindeckError } from '../../../shared/contract/errors';
import type { EndpointInfo } from '../../../shared/contract/methods/access';
import type { CommandDef } from '../command';
import { EXIT } from '../exit-codes';
import type { CliIo } from '../io';
import { clusterTarget } from './credentials';
import { textTable } from '../text-table';

/**
 * `windeck endpoints set|list|remove` (issue 4 item 4): where a node is reached over SSH or WinRM, overriding
 * ~/.ssh/config and the node's InternalIP. WinRM: `--https`, a CA file (`--ca`) or a pinned certificate
 * thumbprint (`--thumbprint`), `--winrm-auth ntlm|basic` (Basic only over HTTPS).
 */

const USAGE = [
  'windeck endpoints set NODE --transport ssh|winrm --host HOST [--port N] [--credential NAME] [--user USER]',
  '                      [--https] [--ca PATH] [--thumbprint SHA256HEX] [--winrm-auth ntlm|basic] [--path /wsman]',
  '       windeck endpoints list [NODE] [--json]',
  '       windeck endpoints remove NODE --transport ssh|winrm',
].join('\n');

function transportOf(io: CliIo): 'ssh' | 'winrm' {
  const t = io.args.string('--transport');
  if (t !== 'ssh' && t !== 'winrm') throw new WindeckError('VALIDATION', '--transport ssh or --transport winrm is required here.');
  return t;
}

function table(list: EndpointInfo[]): string {
  if (list.length === 0) return 'No endpoints are set. Set one with `windeck endpoints set NODE --transport ssh|winrm --host HOST`.';
  const rows = list.map((e) => [e.node, e.transport, e.url ?? `${e.host}:${e.port}`, e.credential ?? '-', e.source]);
  return textTable(['NODE', 'TRANSPORT', 'ADDRESS', 'CREDENTIAL', 'SOURCE'], rows).join('\n');
}

export const endpointsCommand: CommandDef = {
  name: 'endpoints',
  summary: 'Node address overrides per transport (set, list, remove)',
  usage: USAGE,
  flags: {
    '--host': 'string',
    '--port': 'string',
    '--credential': 'string',
    '--user': 'string',
    '--https': 'boolean',
    '--ca': 'string',
    '--thumbprint': 'string',
    '--winrm-auth': 'string',
    '--path': 'string',
    '--cluster': 'string',
  },
  async run(io) {
    const [sub, ...rest] = io.args.positionals;
    switch (sub) {
      case 'set': {
        const [node, ...extra] = rest;
        if (!node || extra.length > 0) throw new WindeckError('VALIDATION', `Usage: ${USAGE}`);
        const transport = transportOf(io);
        const host = io.args.string('--host');
        if (!host) throw new WindeckError('VALIDATION', '--host HOST is required.');
        const portText = io.args.string('--port');
        if (portText !== undefined && !/^\d{1,5}$/.test(portText)) throw new WindeckError('VALIDATION', '--port is a number (1-65535).');
        const credential = io.args.string('--credential');
        const user = io.args.string('--user');
        const winrmFlags = io.args.bool('--https') || ['--ca', '--thumbprint', '--winrm-auth', '--path'].some((f) => io.args.string(f) !== undefined);
        if (transport === 'ssh' && winrmFlags)
          throw new WindeckError('VALIDATION', '--https, --ca, --thumbprint, --winrm-auth and --path are for WinRM endpoints.');
        if (transport === 'winrm' && user)
          throw new WindeckError('VALIDATION', '--user is for SSH endpoints; a WinRM user comes from its credential (--credential).');
        const auth = io.args.string('--winrm-auth');
        if (auth !== undefined && auth !== 'ntlm' && auth !== 'basic') throw new WindeckError('VALIDATION', '--winrm-auth is ntlm or basic.');
        const ca = io.args.string('--ca');
        const thumbprint = io.args.string('--thumbprint');
        const path = io.args.string('--path');
        const saved = await io.call('endpoints:set', {
          ...clusterTarget(io),
          node,
          transport,
          host,
          ...(portText !== undefined ? { port: Number(portText) } : {}),
          ...(credential ? { credential } : {}),
          ...(transport === 'ssh' && user ? { ssh: { username: user } } : {}),
          ...(transport === 'winrm'
            ? {
                winrm: {
                  ...(io.args.bool('--https') ? { https: true } : {}),
                  ...(ca ? { caPath: ca } : {}),
                  ...(thumbprint ? { pinnedSha256: thumbprint } : {}),
                  ...(auth ? { auth: auth as 'ntlm' | 'basic' } : {}),
                  ...(path ? { path } : {}),
                },
              }
            : {}),
        });
        io.emit(
          saved,
          () =>
            `${saved.node} ${saved.transport}: ${saved.url ?? `${saved.host}:${saved.port}`}${saved.credential ? ` with credential ${saved.credential}` : ''}`,
        );
        return EXIT.OK;
      }
      case 'list':
      case 'ls': {
        const [node, ...extra] = rest;
        if (extra.length > 0) throw new WindeckError('VALIDATION', `Usage: ${USAGE}`);
        const list = await io.call('endpoints:list', { ...clusterTarget(io), ...(node ? { node } : {}) });
        io.emit(list, () => table(list));
        return EXIT.OK;
      }
      case 'remove':
      case 'rm': {
        const [node, ...extra] = rest;
        if (!node || extra.length > 0) throw new WindeckError('VALIDATION', `Usage: ${USAGE}`);
        const transport = transportOf(io);
        const r = await io.call('endpoints:remove', { ...clusterTarget(io), node, transport });
        io.emit(r, () => `Removed the ${transport} endpoint of ${node}.`);
        return EXIT.OK;
      }
      default:
        throw new WindeckError('VALIDATION', `Usage: ${USAGE}`);
    }
  },
};
