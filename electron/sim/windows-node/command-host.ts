import { PassThrough } from 'node:stream';
import { CP1252_SAMPLE, faultApplies, type SimFaults } from './faults';
import type { WindowsNodeModel } from './node-model';
import { SCRIPT_HANDLERS, type ScriptOutput } from './script-handlers';

/**
 * The "Windows" behind the simulator's SSH server and WinRM endpoint: takes a command line (what the client
 * asked the server to run) and the stdin text, and answers the way a Windows node would.
 *
 * - `powershell.exe ... -Command -` with Windeck's bootstrap on stdin, or `-EncodedCommand <base64 UTF-16LE>`
 *   holding the same text: the script is recognized by its `# windeck-script: <id> v<N>` first line, its
 *   arguments (base64 JSON after `-WindeckArgs`) are decoded, and the answer comes from the node model, shaped
 *   like Windows PowerShell 5.1 output (ConvertTo-Json layout, enum numbers, CRLF).
 * - Anything else gets the error PowerShell prints for an unknown command (`The term 'x' is not recognized...`),
 *   or cmd.exe's when `defaultShell: 'cmd'`. A command line over 8,191 characters gets cmd.exe's
 *   "The command line is too long." (Windows OpenSSH starts commands through the default shell).
 *
 * Stable API: `createCommandHost({ model, faults })` -> `host.execute(commandLine, stdin)` ->
 * `{ stdout, stderr, exit, abort }`. `exit` resolves `{ code, dropConnection }`; when `dropConnection` is true the
 * server must cut the connection without sending an exit status (the "drop mid-stream" fault).
 */

export interface CommandExit {
  code: number;
  /** The fault plan wants the connection dropped now, with no exit status. */
  dropConnection: boolean;
}

export interface CommandExecution {
  stdout: PassThrough;
  stderr: PassThrough;
  exit: Promise<CommandExit>;
  /** The client went away (channel closed, WinRM signal): stop producing output and settle `exit`. */
  abort(): void;
}

/** One recognized (or refused) invocation, kept for tests and the demo's activity view. */
export interface InvocationRecord {
  at: number;
  commandLine: string;
  scriptId: string | null;
  scriptVersion: number | null;
  args: unknown;
  exitCode: number | null;
}

export interface CommandHostOptions {
  model: WindowsNodeModel;
  faults?: SimFaults;
  /** The shell Windows OpenSSH starts commands with (DefaultShell). */
  defaultShell?: 'powershell' | 'cmd';
}

export interface CommandHost {
  readonly model: WindowsNodeModel;
  /** Mutable: tests and scenarios switch faults on and off. */
  faults: SimFaults;
  readonly invocations: InvocationRecord[];
  execute(commandLine: string, stdin: string | Promise<string>): CommandExecution;
}

/** cmd.exe's command-line limit; Windows OpenSSH runs exec requests through `cmd.exe /c`. */
export const CMD_MAX_COMMAND_LINE_CHARS = 8191;

const MARKER = /^#\s*windeck-script:\s*([a-z0-9][a-z0-9-]*)\s+v(\d+)\s*$/m;
const BOOTSTRAP = /FromBase64String\('([A-Za-z0-9+/=]*)'\)\)\)\)\s+-WindeckArgs\s+'([A-Za-z0-9+/=]*)'/;

/** Split a Windows command line into arguments (double quotes group, backslash-quote escapes). */
export function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inQuotes = false;
  let has = false;
  for (let i = 0; i < line.length; i += 1) {
    const ch = line[i]!;
    if (ch === '\\' && line[i + 1] === '"') {
      cur += '"';
      i += 1;
      has = true;
    } else if (ch === '"') {
      inQuotes = !inQuotes;
      has = true;
    } else if (!inQuotes && (ch === ' ' || ch === '\t')) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += ch;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}

type PsInvocation = { kind: 'stdin' } | { kind: 'text'; text: string } | { kind: 'not-powershell'; first: string };

function parsePowershellLine(commandLine: string): PsInvocation {
  const argv = splitCommandLine(commandLine.trim());
  const exe = (argv[0] ?? '').replace(/^.*[\\/]/, '').toLowerCase();
  if (exe !== 'powershell' && exe !== 'powershell.exe' && exe !== 'pwsh' && exe !== 'pwsh.exe') return { kind: 'not-powershell', first: argv[0] ?? '' };
  for (let i = 1; i < argv.length; i += 1) {
    const a = argv[i]!.toLowerCase();
    if (/^[-/](e|ec|en|enc|enco|encod|encode|encoded|encodedc|encodedco|encodedcom|encodedcomm|encodedcomma|encodedcomman|encodedcommand)$/.test(a)) {
      const b64 = argv[i + 1] ?? '';
      return { kind: 'text', text: Buffer.from(b64, 'base64').toString('utf16le') };
    }
    if (/^[-/](c|co|com|comm|comma|comman|command)$/.test(a)) {
      const rest = argv.slice(i + 1).join(' ');
      return rest === '-' ? { kind: 'stdin' } : { kind: 'text', text: rest };
    }
  }
  // powershell.exe with no -Command reads commands from stdin when it is not a console.
  return { kind: 'stdin' };
}

/** PowerShell 5.1's error record for an unknown command, as a redirected console writes it. */
export function unknownTermError(term: string): string {
  const t = term.length > 0 ? term : "''";
  return [
    `${t} : The term '${t}' is not recognized as the name of a cmdlet, function, script file, or operable program. Check the spelling of the name, or if a path was included, verify that the path is correct and try again.`,
    'At line:1 char:1',
    `+ ${t}`,
    `+ ${'~'.repeat(Math.max(1, t.length))}`,
    `    + CategoryInfo          : ObjectNotFound: (${t}:String) [], CommandNotFoundException`,
    '    + FullyQualifiedErrorId : CommandNotFoundException',
    ' ',
    '',
  ].join('\r\n');
}

function cmdUnknownError(term: string): string {
  return `'${term}' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n`;
}

function firstCommandToken(text: string): string {
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^[^\s;|(){}]+/.exec(line);
    return m ? m[0] : line.slice(0, 40);
  }
  return '';
}

interface Recognized {
  id: string;
  version: number;
  args: Record<string, unknown>;
}

function recognize(text: string): Recognized | { error: string } | null {
  const b = BOOTSTRAP.exec(text);
  if (!b) return null;
  const script = Buffer.from(b[1]!, 'base64').toString('utf8');
  const m = MARKER.exec(script.split(/\r?\n/, 1)[0] ?? '');
  if (!m) return { error: 'windeck-script-error: the script does not start with a windeck-script line' };
  let args: unknown;
  try {
    args = JSON.parse(Buffer.from(b[2]!, 'base64').toString('utf8'));
  } catch {
    return { error: 'windeck-script-error: Invalid JSON primitive in the script arguments.' };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { error: 'windeck-script-error: the script arguments are not an object' };
  return { id: m[1]!, version: Number(m[2]), args: args as Record<string, unknown> };
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Apply the output faults and write `out` to the streams. */
async function emit(exec: CommandExecution, out: ScriptOutput, faults: SimFaults, applies: boolean, signal: AbortSignal): Promise<CommandExit> {
  let stdout = typeof out.stdout === 'string' ? Buffer.from(out.stdout, 'utf8') : out.stdout;
  if (applies && faults.nonUtf8) stdout = Buffer.concat([CP1252_SAMPLE, Buffer.from('\r\n'), stdout]);
  const stderr = out.stderr ?? '';
  const slow = applies ? faults.slowOutput : undefined;
  const chunk = slow ? Math.max(1, slow.chunkBytes) : 64 * 1024;
  const stallAt = applies ? faults.stallAfterBytes : undefined;
  const dropAt = applies ? faults.dropAfterBytes : undefined;
  let sent = 0;
  while (sent < stdout.length) {
    if (signal.aborted) return { code: 130, dropConnection: false };
    let end = Math.min(stdout.length, sent + chunk);
    if (stallAt !== undefined && sent < stallAt) end = Math.min(end, stallAt);
    if (dropAt !== undefined && sent < dropAt) end = Math.min(end, dropAt);
    const piece = stdout.subarray(sent, end);
    sent = end;
    if (!exec.stdout.write(piece)) await new Promise<void>((r) => exec.stdout.once('drain', () => r()));
    if (dropAt !== undefined && sent >= dropAt) return { code: -1, dropConnection: true };
    if (stallAt !== undefined && sent >= stallAt) {
      await new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener('abort', () => r(), { once: true })));
      return { code: 130, dropConnection: false };
    }
    if (slow && sent < stdout.length) await delay(slow.delayMs, signal);
  }
  if (stderr) exec.stderr.write(stderr);
  return { code: out.exitCode, dropConnection: false };
}

export function createCommandHost(options: CommandHostOptions): CommandHost {
  const invocations: InvocationRecord[] = [];
  const host: CommandHost = {
    model: options.model,
    faults: { ...(options.faults ?? {}) },
    invocations,
    execute(commandLine, stdin) {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      const controller = new AbortController();
      const record: InvocationRecord = { at: options.model.time(), commandLine, scriptId: null, scriptVersion: null, args: null, exitCode: null };
      invocations.push(record);
      const exec: CommandExecution = {
        stdout,
        stderr,
        exit: Promise.resolve({ code: 0, dropConnection: false }),
        abort: () => controller.abort(),
      };
      const run = async (): Promise<CommandExit> => {
        const faults = host.faults;
        if (commandLine.length > CMD_MAX_COMMAND_LINE_CHARS) {
          return emit(exec, { stdout: '', stderr: 'The command line is too long.\r\n', exitCode: 1 }, faults, false, controller.signal);
        }
        const inv = parsePowershellLine(commandLine);
        if (inv.kind === 'not-powershell') {
          const msg = options.defaultShell === 'cmd' ? cmdUnknownError(inv.first) : unknownTermError(inv.first);
          return emit(exec, { stdout: '', stderr: msg, exitCode: 1 }, faults, false, controller.signal);
        }
        const text = inv.kind === 'stdin' ? await stdin : inv.text;
        const rec = recognize(text);
        if (rec === null) return emit(exec, { stdout: '', stderr: unknownTermError(firstCommandToken(text)), exitCode: 1 }, faults, false, controller.signal);
        if ('error' in rec) return emit(exec, { stdout: '', stderr: rec.error + '\r\n', exitCode: 1 }, faults, false, controller.signal);
        record.scriptId = rec.id;
        record.scriptVersion = rec.version;
        record.args = rec.args;
        const handler = SCRIPT_HANDLERS[rec.id];
        const applies = faultApplies(faults, rec.id);
        if (!handler) {
          return emit(exec, { stdout: '', stderr: `windeck-script-error: the Windows node simulator has no model for script '${rec.id}'\r\n`, exitCode: 1 }, faults, applies, controller.signal);
        }
        let out: ScriptOutput;
        try {
          out = await handler({ model: options.model, args: rec.args, signal: controller.signal, faults: applies ? faults : {} });
        } catch (error) {
          out = { stdout: '', stderr: `windeck-script-error: ${(error as Error).message}\r\n`, exitCode: 1 };
        }
        return emit(exec, out, faults, applies, controller.signal);
      };
      exec.exit = run()
        .catch((error: unknown): CommandExit => {
          stderr.write(`windeck-script-error: ${(error as Error).message}\r\n`);
          return { code: 1, dropConnection: false };
        })
        .then((result) => {
          record.exitCode = result.dropConnection ? null : result.code;
          stdout.end();
          stderr.end();
          return result;
        });
      return exec;
    },
  };
  return host;
}
