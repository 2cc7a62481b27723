import { z } from 'zod';
import { WindeckError, type ErrorContext } from '../../../shared/contract/errors';
import { SCRIPT_ARG_MAX_CHARS, SCRIPT_ARGS_MAX_BYTES } from '../../../shared/domain/limits';
import type { NodeTransport, RunRequest, RunResult, RunTimeouts } from '../transports/node-transport';
import { loadScript, SCRIPT_MARKER } from './script-loader';
import { isScriptId, type ScriptId } from './script-ids';

/**
 * How Windeck runs PowerShell on a node (DESIGN.md section 4).
 *
 * Command line (short, fixed, no values in it; fine for cmd.exe's 8,191-character limit):
 *   powershell.exe -NoLogo -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command -
 * stdin (ASCII only, so the console input code page cannot garble it):
 *   line 1: `# windeck-script: <id> v<N>` (a comment; tells a reader of a capture what ran)
 *   line 2: one statement: force UTF-8 output, then
 *           `& ([scriptblock]::Create(<UTF-8 of base64 script>)) -WindeckArgs '<base64 of the JSON arguments>'`
 *   line 3: empty (ends the statement for `-Command -`, which reads stdin line by line)
 * The script body runs as one script block, so multi-line constructs work; arguments are data the script
 * decodes (`ConvertFrom-Json`), never spliced into script text. Only base64 characters are ever added to the
 * fixed bootstrap.
 *
 * Values are validated against strict patterns before any of this is built: a value that fails never reaches
 * a transport (VALIDATION).
 */

export const POWERSHELL_COMMAND_LINE = 'powershell.exe -NoLogo -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command -';

/** A Windows service name (what `sc.exe`/nssm accept in practice, minus anything a shell could read). */
export const SERVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$/;
/** A process image name, with or without `.exe`. */
export const PROCESS_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$/;
/** An absolute local Windows path: drive, backslashes, letters, digits, space, `_ . - ( )`. */
export const WINDOWS_PATH = /^[A-Za-z]:\\(?:[A-Za-z0-9 _.()-]+\\)*[A-Za-z0-9 _.()-]*$/;
/** A `Get-ChildItem -Filter` pattern (`*.log`). */
export const FILE_FILTER = /^(?!\.+$)[A-Za-z0-9_.*?-]{1,64}$/;
/** A DNS name (RFC 1123 labels, `_` allowed for SRV-style labels), optional trailing dot. */
export const DNS_NAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

function pathOk(p: string): boolean {
  if (!WINDOWS_PATH.test(p) || p.length > SCRIPT_ARG_MAX_CHARS) return false;
  return p
    .slice(3)
    .split('\\')
    .every((seg) => seg !== '.' && seg !== '..' && !/[ .]$/.test(seg));
}

const str = (re: RegExp, what: string) =>
  z
    .string()
    .max(SCRIPT_ARG_MAX_CHARS, { message: `${what} is too long` })
    .regex(re, { message: `not a valid ${what}` });
const ServiceName = str(SERVICE_NAME, 'service name');
const ProcessName = str(PROCESS_NAME, 'process name');
const DnsName = str(DNS_NAME, 'DNS name');
const WindowsPath = z
  .string()
  .max(SCRIPT_ARG_MAX_CHARS, { message: 'path is too long' })
  .refine(pathOk, { message: 'not a valid absolute Windows path' });
const FileFilter = str(FILE_FILTER, 'file filter');

/** Argument schema of each script. `.strict()`: an unexpected key is a validation error, not ignored data. */
export const SCRIPT_ARGS = {
  services: z.object({ names: z.array(ServiceName).min(1).max(64) }).strict(),
  'service-config': z.object({ names: z.array(ServiceName).min(1).max(64) }).strict(),
  processes: z.object({ names: z.array(ProcessName).max(64) }).strict(),
  'hns-networks': z.object({}).strict(),
  'hns-endpoints': z.object({}).strict(),
  'hns-policies': z.object({}).strict(),
  'net-adapters': z.object({}).strict(),
  dns: z.object({ names: z.array(DnsName).min(1).max(64) }).strict(),
  os: z.object({}).strict(),
  files: z.object({ paths: z.array(WindowsPath).min(1).max(64), maxBytes: z.number().int().min(1).max(64 * 1024 * 1024) }).strict(),
  runtime: z.object({}).strict(),
  logs: z
    .object({
      sources: z.array(z.object({ dir: WindowsPath, filter: FileFilter }).strict()).min(1).max(64),
      sinceEpochMs: z.number().int().min(0),
      maxBytesPerFile: z.number().int().min(1).max(256 * 1024 * 1024),
    })
    .strict(),
  'restart-service': z.object({ name: ServiceName, timeoutSeconds: z.number().int().min(1).max(600) }).strict(),
} satisfies Record<ScriptId, z.ZodType>;

export type ScriptArgs<I extends ScriptId> = z.infer<(typeof SCRIPT_ARGS)[I]>;

/** Make an untrusted value printable in an error message without echoing it raw. */
function describeValue(value: unknown): string {
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/**
 * Validate `args` for script `scriptId`; returns the parsed value. VALIDATION on anything that does not fit
 * (the message names the field, and shows at most an escaped prefix of the value).
 */
export function validateScriptArgs<I extends ScriptId>(scriptId: I, args: unknown, context?: ErrorContext): ScriptArgs<I> {
  if (!isScriptId(scriptId)) throw new WindeckError('VALIDATION', `Unknown script id ${describeValue(scriptId)}.`, context);
  const parsed = SCRIPT_ARGS[scriptId].safeParse(args);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'arguments';
    let bad: unknown = args;
    for (const k of issue?.path ?? []) bad = (bad as Record<PropertyKey, unknown> | undefined)?.[k as PropertyKey];
    throw new WindeckError('VALIDATION', `Refused to run ${scriptId}: ${where} ${issue?.message ?? 'is invalid'} (${describeValue(bad)}).`, context);
  }
  const json = JSON.stringify(parsed.data);
  if (Buffer.byteLength(json) > SCRIPT_ARGS_MAX_BYTES) throw new WindeckError('VALIDATION', `Refused to run ${scriptId}: the arguments are larger than ${SCRIPT_ARGS_MAX_BYTES} bytes.`, context);
  return parsed.data as ScriptArgs<I>;
}

export interface Invocation {
  commandLine: string;
  stdin: string;
}

/** The stdin bootstrap for a script text and its (already validated) arguments. */
export function bootstrapFor(scriptText: string, args: unknown): string {
  const first = scriptText.split(/\r?\n/, 1)[0] ?? '';
  const scriptB64 = Buffer.from(scriptText, 'utf8').toString('base64');
  const argsB64 = Buffer.from(JSON.stringify(args), 'utf8').toString('base64');
  return (
    `${first}\r\n` +
    "$ProgressPreference='SilentlyContinue';[Console]::OutputEncoding=New-Object System.Text.UTF8Encoding $false;" +
    `& ([scriptblock]::Create([System.Text.Encoding]::UTF8.GetString([System.Convert]::FromBase64String('${scriptB64}')))) -WindeckArgs '${argsB64}'\r\n` +
    '\r\n'
  );
}

/**
 * What a transport sends for a RunRequest. Re-validates the arguments and the script marker, so a caller that
 * skipped `runScript` still cannot send an unchecked value.
 */
export function encodeInvocation(request: Pick<RunRequest, 'scriptId' | 'script' | 'args'>): Invocation {
  const m = SCRIPT_MARKER.exec(request.script.split(/\r?\n/, 1)[0] ?? '');
  if (!m || m[1] !== request.scriptId) throw new WindeckError('VALIDATION', `Refused to run a script whose first line does not name "${request.scriptId}".`);
  if (!isScriptId(request.scriptId)) throw new WindeckError('VALIDATION', `Unknown script id ${describeValue(request.scriptId)}.`);
  const args = validateScriptArgs(request.scriptId, request.args);
  return { commandLine: POWERSHELL_COMMAND_LINE, stdin: bootstrapFor(request.script, args) };
}

export interface RunScriptOptions {
  signal: AbortSignal;
  timeouts?: Partial<RunTimeouts>;
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
  /** Script directory override (tests). */
  scriptDirs?: string[];
}

/** Validate, load the shipped script and run it through `transport`. Nothing reaches the transport if invalid. */
export async function runScript<I extends ScriptId>(transport: NodeTransport, scriptId: I, args: ScriptArgs<I> | Record<string, unknown>, options: RunScriptOptions): Promise<RunResult> {
  const context: ErrorContext = { node: transport.node, transport: transport.kind, step: scriptId };
  const valid = validateScriptArgs(scriptId, args, context);
  const script = await loadScript(scriptId, options.scriptDirs);
  const request: RunRequest = {
    scriptId,
    script: script.text,
    args: valid as Record<string, unknown>,
    signal: options.signal,
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.onStdout ? { onStdout: options.onStdout } : {}),
    ...(options.onStderr ? { onStderr: options.onStderr } : {}),
  };
  return transport.run(request);
}
