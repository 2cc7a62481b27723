import { WriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import type { ClientChannel } from 'ssh2';
import { WindeckError, isWindeckError, type ErrorContext } from '../../../../shared/contract/errors';
import {
  NODE_CHANNEL_TIMEOUT_MS,
  NODE_COMMAND_TIMEOUT_MS,
  NODE_CONNECT_TIMEOUT_MS,
  NODE_IDLE_TIMEOUT_MS,
  NODE_OUTPUT_MAX_BYTES,
  SFTP_READ_BYTES_IN_FLIGHT,
  SFTP_READ_CHUNK_BYTES,
  SFTP_READS_IN_FLIGHT,
} from '../../../../shared/domain/limits';
import { encodeInvocation } from '../../powershell/invoke';
import type { NodeTransport, RunRequest, RunResult, RunTimeouts } from '../node-transport';
import type { SshTarget } from './connect';
import type { SshLease, SshPool } from './pool';
import { directSftpData } from './sftp-data';
import { pipelinedRead, sftpReadSize } from './sftp-read';

/**
 * NodeTransport over SSH (ssh2). Each run leases a pooled connection, opens an exec channel with the fixed
 * PowerShell command line, writes the bootstrap on stdin and streams stdout/stderr back. Stages and their
 * timeouts: connect (TCP + jump forwarding), handshake (kex + host key + auth), channel (exec request), command
 * (whole run) and idle (no output). Cancel closes the channel at once (the remote PowerShell gets EOF/SIGHUP
 * semantics from sshd); a broken connection fails the run with UNREACHABLE.
 */

export const DEFAULT_TIMEOUTS: RunTimeouts = {
  connectMs: NODE_CONNECT_TIMEOUT_MS,
  channelMs: NODE_CHANNEL_TIMEOUT_MS,
  commandMs: NODE_COMMAND_TIMEOUT_MS,
  idleMs: NODE_IDLE_TIMEOUT_MS,
};

export interface SshTransportOptions {
  timeouts?: Partial<RunTimeouts>;
  maxOutputBytes?: number;
}

function openExec(lease: SshLease, command: string, timeoutMs: number, context: ErrorContext, signal: AbortSignal): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (error: WindeckError | null, channel?: ClientChannel) => {
      if (done) {
        channel?.close();
        return;
      }
      done = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve(channel!);
    };
    const onAbort = () => finish(new WindeckError('CANCELLED', 'Cancelled while opening the SSH channel.', { ...context, step: 'channel' }));
    const timer = setTimeout(
      () => finish(new WindeckError('TIMEOUT', `The node did not open an SSH channel within ${timeoutMs} ms (channel).`, { ...context, step: 'channel' })),
      timeoutMs,
    );
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      lease.connection.client.exec(command, (error, channel) => {
        if (error && lease.connection.dead) {
          void lease.connection.closed.then((reason) =>
            finish(
              reason ??
                new WindeckError(
                  'UNREACHABLE',
                  `The SSH connection closed before the channel opened: ${error.message}`,
                  { ...context, step: 'channel' },
                  { cause: error },
                ),
            ),
          );
        } else if (error) {
          finish(new WindeckError('REMOTE_FAILED', `The node refused to run the command: ${error.message}`, { ...context, step: 'channel' }, { cause: error }));
        } else finish(null, channel);
      });
    } catch (error) {
      finish(
        new WindeckError('UNREACHABLE', `The SSH connection is not usable: ${(error as Error).message}`, { ...context, step: 'channel' }, { cause: error }),
      );
    }
  });
}

export class SshTransport implements NodeTransport {
  readonly kind = 'ssh' as const;

  constructor(
    readonly node: string,
    private readonly target: SshTarget,
    private readonly pool: SshPool,
    private readonly options: SshTransportOptions = {},
  ) {}

  private timeouts(request?: Partial<RunTimeouts>): RunTimeouts {
    return { ...DEFAULT_TIMEOUTS, ...(this.options.timeouts ?? {}), ...(request ?? {}) };
  }

  private context(step?: string): ErrorContext {
    return { node: this.node, transport: 'ssh', ...(step ? { step } : {}) };
  }

  async run(request: RunRequest): Promise<RunResult> {
    // Validation first: nothing leaves this process unless the arguments fit their patterns.
    const invocation = encodeInvocation(request);
    const t = this.timeouts(request.timeouts);
    const startedAt = Date.now();
    const ctx = this.context(request.scriptId);
    if (request.signal.aborted) throw new WindeckError('CANCELLED', `Cancelled before running ${request.scriptId}.`, ctx);
    const lease = await this.pool.lease(this.target, { connectTimeoutMs: t.connectMs, signal: request.signal });
    let freeSlot: (() => void) | null = null;
    try {
      freeSlot = await lease.channelSlot(request.signal);
      const channel = await openExec(lease, invocation.commandLine, t.channelMs, ctx, request.signal);
      const result = await this.drive(channel, lease, invocation.stdin, request, t, ctx);
      return { ...result, startedAt, durationMs: Date.now() - startedAt };
    } finally {
      freeSlot?.();
      lease.release();
    }
  }

  private drive(
    channel: ClientChannel,
    lease: SshLease,
    stdin: string,
    request: RunRequest,
    t: RunTimeouts,
    ctx: ErrorContext,
  ): Promise<Omit<RunResult, 'startedAt' | 'durationMs'>> {
    const max = this.options.maxOutputBytes ?? NODE_OUTPUT_MAX_BYTES;
    return new Promise((resolve, reject) => {
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let outBytes = 0;
      let errBytes = 0;
      let exitCode: number | null = null;
      let exitSignal: string | null = null;
      let settled = false;
      let idleTimer: NodeJS.Timeout | null = null;

      const cleanup = () => {
        clearTimeout(commandTimer);
        if (idleTimer) clearTimeout(idleTimer);
        request.signal.removeEventListener('abort', onAbort);
      };
      const fail = (error: WindeckError) => {
        if (settled) return;
        settled = true;
        cleanup();
        try {
          channel.close();
        } catch {
          // already closed
        }
        reject(error);
      };
      const finishOk = () => {
        if (settled) return;
        settled = true;
        cleanup();
        const decoder = new TextDecoder('utf-8');
        resolve({
          transport: 'ssh',
          stdout: decoder.decode(Buffer.concat(out)),
          stderr: decoder.decode(Buffer.concat(err)),
          exitCode: exitCode ?? 255,
        });
      };
      const armIdle = () => {
        if (idleTimer) clearTimeout(idleTimer);
        idleTimer = setTimeout(
          () =>
            fail(
              new WindeckError('TIMEOUT', `No output from ${this.node} for ${t.idleMs} ms (idle) while running ${request.scriptId}.`, { ...ctx, step: 'idle' }),
            ),
          t.idleMs,
        );
      };
      const onAbort = () => fail(new WindeckError('CANCELLED', `Cancelled while running ${request.scriptId} on ${this.node}.`, ctx));
      const commandTimer = setTimeout(
        () =>
          fail(
            new WindeckError('TIMEOUT', `${request.scriptId} on ${this.node} did not finish within ${t.commandMs} ms (command).`, { ...ctx, step: 'command' }),
          ),
        t.commandMs,
      );
      request.signal.addEventListener('abort', onAbort, { once: true });
      armIdle();
      void lease.connection.closed.then((reason) => {
        if (settled) return;
        if (exitCode !== null || exitSignal !== null) finishOk();
        else
          fail(
            reason ??
              new WindeckError(
                'UNREACHABLE',
                `The connection to ${this.node} closed while ${request.scriptId} was running (after ${outBytes} bytes of output).`,
                { ...ctx, step: 'command' },
              ),
          );
      });

      const take = (data: Buffer, which: 'out' | 'err') => {
        if (settled) return;
        armIdle();
        // ssh2's chunk is a view of the connection's read slab (`slabReads` in connect.ts): a copy is kept, so the
        // output held until the run ends does not keep 256 KiB slabs of other channels' traffic alive with it.
        const chunk = Buffer.from(data);
        if (which === 'out') {
          outBytes += chunk.length;
          out.push(chunk);
          request.onStdout?.(chunk);
        } else {
          errBytes += chunk.length;
          err.push(chunk);
          request.onStderr?.(chunk);
        }
        if (outBytes + errBytes > max)
          fail(
            new WindeckError('REMOTE_FAILED', `${request.scriptId} on ${this.node} printed more than ${max} bytes; stopped reading.`, {
              ...ctx,
              step: 'output',
            }),
          );
      };
      channel.on('data', (chunk: Buffer) => take(chunk, 'out'));
      channel.stderr.on('data', (chunk: Buffer) => take(chunk, 'err'));
      channel.on('exit', (code: number | null, signalName?: string) => {
        exitCode = code;
        exitSignal = signalName ?? null;
      });
      channel.on('error', (error: Error) =>
        fail(new WindeckError('UNREACHABLE', `The SSH channel to ${this.node} failed: ${error.message}`, { ...ctx, step: 'command' }, { cause: error })),
      );
      channel.on('close', () => {
        if (settled) return;
        if (exitCode === null && exitSignal === null) {
          const why = lease.connection.dead ? 'the connection dropped' : 'the node closed the channel';
          fail(
            new WindeckError(
              'UNREACHABLE',
              `${why} while ${request.scriptId} was running on ${this.node} (after ${outBytes} bytes of output, no exit status).`,
              { ...ctx, step: 'command' },
            ),
          );
          return;
        }
        finishOk();
      });
      // The bootstrap and the EOF after it in one write (the socket is corked while both are queued).
      const send = () => channel.end(stdin);
      if (lease.connection.batch) lease.connection.batch(send);
      else send();
    });
  }

  /**
   * Stream a remote file into `sink` over SFTP (Windows OpenSSH exposes `C:\x` as `/C:/x`) with pipelined READs
   * (`sftp-read.ts`), written in file order. Resolves with the byte count. Honours `signal`; timeouts as for a
   * run (connect, channel, idle); `onProgress` gets each chunk's size.
   */
  async download(
    remotePath: string,
    sink: Writable,
    options: { signal: AbortSignal; timeouts?: Partial<RunTimeouts>; onProgress?: (bytes: number) => void },
  ): Promise<number> {
    const t = this.timeouts(options.timeouts);
    const ctx = this.context('download');
    if (!/^[A-Za-z]:\\(?:[A-Za-z0-9 _.()-]+\\)*[A-Za-z0-9 _.()-]+$/.test(remotePath) || remotePath.split('\\').some((s) => s === '..')) {
      throw new WindeckError('VALIDATION', 'Refused to download: not a plain absolute Windows path.', ctx);
    }
    const sftpPath = '/' + remotePath.replaceAll('\\', '/');
    const lease = await this.pool.lease(this.target, { connectTimeoutMs: t.connectMs, signal: options.signal });
    let freeSlot: (() => void) | null = null;
    try {
      freeSlot = await lease.channelSlot(options.signal);
      const sftp = await new Promise<import('ssh2').SFTPWrapper>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new WindeckError('TIMEOUT', `The node did not open an SFTP channel within ${t.channelMs} ms (channel).`, { ...ctx, step: 'channel' })),
          t.channelMs,
        );
        lease.connection.client.sftp((error, s) => {
          clearTimeout(timer);
          if (error) reject(new WindeckError('UNSUPPORTED', `The node does not offer SFTP: ${error.message}`, { ...ctx, step: 'channel' }, { cause: error }));
          else resolve(s);
        });
      });
      // DATA answers go straight into the READ buffers (no 256 KiB buffer per answer, one copy less): fewer V8
      // major GCs and less CPU per MB (`sftp-data.ts`; ssh2's own path stays if its internals look different).
      directSftpData(sftp);
      const sftpFailure = (error: Error & { code?: number }): WindeckError => {
        const notFound = error.code === 2 || /no such file/i.test(error.message);
        return new WindeckError(
          notFound ? 'NOT_FOUND' : 'REMOTE_FAILED',
          notFound ? `${remotePath} does not exist on ${this.node}.` : `Download of ${remotePath} failed: ${error.message}`,
          ctx,
          { cause: error },
        );
      };
      try {
        return await new Promise<number>((resolve, reject) => {
          let idle: NodeJS.Timeout | null = null;
          let stop: WindeckError | null = null;
          let settled = false;
          let handle: Buffer | null = null;
          const settle = (error: WindeckError | null, bytes = 0) => {
            if (settled) return;
            settled = true;
            if (idle) clearTimeout(idle);
            options.signal.removeEventListener('abort', onAbort);
            if (handle) sftp.close(handle, () => undefined);
            if (error) reject(error);
            else resolve(bytes);
          };
          const halt = (e: WindeckError) => {
            stop ??= e;
            // Fail at once; the outstanding READ answers are dropped with the SFTP channel.
            settle(e);
          };
          const armIdle = () => {
            // Answers still arriving after the end (cancel, error) must not start a timer that keeps the process up.
            if (settled) return;
            // Called per chunk: restart the one timer instead of making a new one each time.
            if (idle) idle.refresh();
            else
              idle = setTimeout(
                () => halt(new WindeckError('TIMEOUT', `No data from ${this.node} for ${t.idleMs} ms (idle) while downloading.`, { ...ctx, step: 'idle' })),
                t.idleMs,
              );
          };
          const onAbort = () => halt(new WindeckError('CANCELLED', 'Download cancelled.', ctx));
          options.signal.addEventListener('abort', onAbort, { once: true });
          armIdle();
          sftp.open(sftpPath, 'r', (openError, h) => {
            if (settled) {
              if (!openError) sftp.close(h, () => undefined);
              return;
            }
            if (openError) {
              settle(sftpFailure(openError as Error & { code?: number }));
              return;
            }
            handle = h;
            armIdle();
            pipelinedRead(sftp, h, sink, {
              chunkBytes: sftpReadSize(sftp, SFTP_READ_CHUNK_BYTES),
              inFlight: SFTP_READS_IN_FLIGHT,
              bytesInFlight: SFTP_READ_BYTES_IN_FLIGHT,
              // A file stream is done with a chunk when its write callback runs: READ buffers are reused.
              reuseBuffers: sink instanceof WriteStream,
              onData: (n) => {
                armIdle();
                options.onProgress?.(n);
              },
              stopped: () => stop,
            }).then(
              (bytes) => settle(null, bytes),
              (error: unknown) => settle(isWindeckError(error) ? (error as WindeckError) : sftpFailure(error as Error & { code?: number })),
            );
          });
        });
      } finally {
        sftp.end();
      }
    } catch (error) {
      if (isWindeckError(error)) throw error;
      throw new WindeckError('UNREACHABLE', `Download from ${this.node} failed: ${(error as Error).message}`, ctx, { cause: error });
    } finally {
      freeSlot?.();
      lease.release();
    }
  }

  /** The pool owns connections; a transport has nothing of its own to close. */
  async close(): Promise<void> {}
}
