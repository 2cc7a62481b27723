import fs from 'node:fs';
import { WindeckError } from '../../shared/contract/errors';
import type { CliIo, CliStreams } from './io';

/**
 * Secrets for the CLI (DESIGN.md section 10): never an argument value. From `--password-file PATH` (the file's
 * first line), `--password-stdin` (everything on stdin, one trailing line break dropped), or, on a terminal, a
 * prompt that does not echo. Nothing here logs or prints a secret.
 */

/** Ask on the terminal without echo (raw mode); null on Ctrl-C / Ctrl-D / end of input. */
export function promptOnTerminal(question: string, options: { echo: boolean }): Promise<string | null> {
  const input = process.stdin;
  const output = process.stderr;
  output.write(question);
  return new Promise((resolve) => {
    let value = '';
    const wasRaw = input.isRaw === true;
    const done = (result: string | null) => {
      input.removeListener('data', onData);
      input.removeListener('end', onEnd);
      if (input.isTTY) input.setRawMode(wasRaw);
      input.pause();
      output.write('\n');
      resolve(result);
    };
    const onEnd = () => done(null);
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done(value);
        if (ch === '\u0003' || ch === '\u0004') return done(null);
        if (ch === '\u007f' || ch === '\b') {
          if (value.length > 0) {
            value = [...value].slice(0, -1).join('');
            if (options.echo) output.write('\b \b');
          }
          continue;
        }
        if (ch < ' ') continue;
        value += ch;
        if (options.echo) output.write(ch);
      }
    };
    if (input.isTTY) input.setRawMode(true);
    input.resume();
    input.on('data', onData);
    input.on('end', onEnd);
  });
}

export function promptFor(streams: CliStreams): ((question: string, options: { echo: boolean }) => Promise<string | null>) | null {
  if (streams.prompt) return streams.prompt;
  return streams.stdinIsTTY ? promptOnTerminal : null;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(parts).toString('utf8');
}

function oneSecret(text: string, from: string): string {
  const value = text.replace(/\r?\n$/, '');
  if (value === '') throw new WindeckError('VALIDATION', `${from} gave an empty secret.`);
  if (value.includes('\r') || value.includes('\n') || value.includes('\0'))
    throw new WindeckError('VALIDATION', `${from} holds more than one line (or a NUL byte): a secret is one line.`);
  return value;
}

/**
 * The secret the user gave by a flag, or asked on the terminal (`question`, no echo) when `askOnTerminal`;
 * null when none was given and none could be asked.
 */
export async function readSecret(io: CliIo, question: string, askOnTerminal: boolean): Promise<string | null> {
  const file = io.args.string('--password-file');
  const fromStdin = io.args.bool('--password-stdin');
  if (file && fromStdin) throw new WindeckError('VALIDATION', 'Give the secret one way: --password-file or --password-stdin.');
  if (file) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new WindeckError('VALIDATION', `Cannot read the password file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`);
    }
    return oneSecret(text, `The password file ${file}`);
  }
  if (fromStdin) return oneSecret(await readAll(io.streams.stdin ?? process.stdin), 'stdin');
  if (!askOnTerminal) return null;
  const ask = promptFor(io.streams);
  if (!ask) return null;
  const answer = await ask(question, { echo: false });
  if (answer === null) throw new WindeckError('CANCELLED', 'Cancelled at the password prompt. Nothing was saved.');
  return answer === '' ? null : oneSecret(answer, 'The prompt');
}
