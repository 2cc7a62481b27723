import path from 'node:path';
import { WindeckError, isWindeckError, type WireError } from '../../shared/contract/errors';
import type { Result } from '../../shared/contract/result';
import type { MethodName, MethodInput, MethodOutput } from '../../shared/contract/methods';
import type { OperationProgress } from '../../shared/domain/operation';
import { createServices, type Services } from '../services/create-services';
import { resolveHome } from '../services/lib/paths';
import { secretStoreFromEnv } from '../services/lib/secret-store';
import type { ParsedArgs } from './args';
import { exitCodeFor } from './exit-codes';

export interface CliStreams {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  stdinIsTTY: boolean;
  env: NodeJS.ProcessEnv;
  /** Ask on the terminal (secret-input.ts); tests give a fake. Default: process.stdin/stderr. */
  prompt?: (question: string, options: { echo: boolean }) => Promise<string | null>;
  /** Where `--password-stdin` reads from (default process.stdin). */
  stdin?: NodeJS.ReadableStream;
}

/** What a command gets: parsed args, output helpers, the services (opened on first use) and the Ctrl-C signal. */
export interface CliIo {
  args: ParsedArgs;
  json: boolean;
  streams: CliStreams;
  signal: AbortSignal;
  version: string;
  home(): string;
  /** Open the services for this home (in-process, same dispatch as the UI). */
  services(): Services;
  /** Call a contract method and unwrap its Result (throws WindeckError on failure). */
  call<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>>;
  out(text: string): void;
  err(text: string): void;
  /** Print the command's value: JSON on stdout with --json, else the given human text. */
  emit(value: unknown, human: () => string): void;
  /** Show progress of operations on stderr (a bar on a terminal, step lines elsewhere) until the returned stop(). */
  showProgress(): () => void;
}

export function createIo(args: ParsedArgs, streams: CliStreams, signal: AbortSignal, version: string): CliIo & { dispose(): Promise<void> } {
  let services: Services | null = null;
  const json = args.bool('--json');
  const home = () => {
    const flag = args.string('--home');
    return flag ? path.resolve(flag) : resolveHome(streams.env);
  };
  const io: CliIo & { dispose(): Promise<void> } = {
    args,
    json,
    streams,
    signal,
    version,
    home,
    services() {
      if (!services) {
        services = createServices({ home: home(), host: 'cli', version, secretStore: secretStoreFromEnv(streams.env), offline: args.bool('--offline'), env: streams.env });
      }
      return services;
    },
    async call(method, input) {
      const result = (await io.services().dispatch(method, input, { host: 'cli', signal })) as Result<MethodOutput<typeof method>>;
      if (!result.ok) throw new WindeckError(result.error.code, result.error.message, result.error.context);
      return result.value;
    },
    out: (text) => void streams.stdout.write(text.endsWith('\n') ? text : text + '\n'),
    err: (text) => void streams.stderr.write(text.endsWith('\n') ? text : text + '\n'),
    emit(value, human) {
      if (json) streams.stdout.write(JSON.stringify(value, null, 2) + '\n');
      else io.out(human());
    },
    showProgress() {
      const tty = streams.stderr.isTTY === true;
      let lastLine = '';
      const unsubscribe = io.services().events.subscribe((event, payload) => {
        if (event !== 'ops:progress') return;
        const p = payload as OperationProgress;
        const frac = p.fraction === null ? null : Math.max(0, Math.min(1, p.fraction));
        const stepText = `${p.step.title}${p.message ? ` - ${p.message}` : ''}`;
        if (tty) {
          const width = 24;
          const bar = frac === null ? '.'.repeat(width) : '#'.repeat(Math.round(frac * width)).padEnd(width, '.');
          const pct = frac === null ? '   ' : `${Math.round(frac * 100)}%`.padStart(4);
          streams.stderr.write(`\r[${bar}] ${pct} ${stepText}`.slice(0, 160).padEnd(lastLine.length));
          lastLine = stepText;
          if (p.state !== 'running' && p.state !== 'queued') streams.stderr.write('\n');
        } else if (stepText !== lastLine) {
          lastLine = stepText;
          streams.stderr.write(`${p.title}: ${stepText}${frac === null ? '' : ` (${Math.round(frac * 100)}%)`}\n`);
        }
      });
      return unsubscribe;
    },
    async dispose() {
      if (services) await services.dispose();
    },
  };
  return io;
}

/** Print an error the CLI way and return its exit code. */
export function reportError(io: Pick<CliIo, 'json' | 'streams'>, error: unknown): number {
  const wire: WireError = isWindeckError(error)
    ? (error as WindeckError).toWire()
    : { code: 'INTERNAL', message: `Internal error: ${(error as Error)?.message ?? String(error)}`, retryable: false };
  if (io.json) io.streams.stdout.write(JSON.stringify({ error: { code: wire.code, message: wire.message, context: wire.context ?? {} } }) + '\n');
  io.streams.stderr.write(`windeck: ${wire.message}\n`);
  return exitCodeFor(wire.code);
}
