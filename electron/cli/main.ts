import { WindeckError } from '../../shared/contract/errors';
import { GLOBAL_FLAGS, parseArgs } from './args';
import { COMMANDS } from './commands';
import { EXIT } from './exit-codes';
import { createIo, reportError, type CliStreams } from './io';
import { retryWithPassword } from './password-retry';

declare const WINDECK_VERSION: string | undefined;
export const VERSION = typeof WINDECK_VERSION === 'string' ? WINDECK_VERSION : '0.0.0-dev';

export function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = [
    `windeck ${VERSION} - operations console for Kubernetes Windows nodes`,
    '',
    'Usage: windeck <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}${c.run ? '' : '  (not implemented yet)'}`),
    '',
    'Global options:',
    '  --kubeconfig PATH   kubeconfig to use (default: KUBECONFIG, then ~/.kube/config)',
    '  --context NAME      kubeconfig context (default: its current context)',
    '  --home DIR          data directory (same as WINDECK_HOME)',
    '  --offline           use only the local store',
    '  --transport auto|ssh|winrm   how to reach nodes',
    '  --json              machine output on stdout; progress and logs on stderr',
    '  --help, -h          help for windeck or a command',
    '',
    'Exit codes: 0 ran; 1 usage, input or internal error; 2 could not reach what it needed; 4 findings at or above',
    '--fail-on; 130 cancelled.',
  ];
  return lines.join('\n');
}

/** Run the CLI; returns the exit code. Used by dist/cli.js and by tests in-process. */
export async function runCli(argv: readonly string[], streams: CliStreams, signal: AbortSignal): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    streams.stdout.write(helpText() + '\n');
    return first === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (first === '--version' || first === 'version') {
    streams.stdout.write(`${VERSION}\n`);
    return EXIT.OK;
  }
  const command = COMMANDS.find((c) => c.name === first);
  const jsonWanted = rest.includes('--json');
  if (!command) {
    const io = { json: jsonWanted, streams };
    return reportError(io, new WindeckError('VALIDATION', `Unknown command "${first}". Run \`windeck --help\` for the list.`));
  }
  let io: ReturnType<typeof createIo> | null = null;
  try {
    const args = parseArgs(rest, { ...GLOBAL_FLAGS, ...command.flags });
    if (args.bool('--help')) {
      streams.stdout.write(`${command.summary}\n\nUsage: ${command.usage}\n`);
      return EXIT.OK;
    }
    if (!command.run) throw new WindeckError('UNSUPPORTED', command.notYet ?? `\`windeck ${command.name}\` is not implemented yet.`);
    const transport = args.string('--transport');
    if (transport !== undefined && !['auto', 'ssh', 'winrm'].includes(transport)) {
      throw new WindeckError('VALIDATION', `--transport must be auto, ssh or winrm, not "${transport}".`);
    }
    io = createIo(args, streams, signal, VERSION);
    try {
      return await command.run(io);
    } catch (error) {
      const retried = await retryWithPassword(command, io, error, (env) => createIo(args, { ...streams, env }, signal, VERSION));
      if (!retried) throw error;
      io = retried.io;
      return retried.code;
    }
  } catch (error) {
    return reportError(io ?? { json: jsonWanted, streams }, error);
  } finally {
    if (io) await io.dispose();
  }
}
