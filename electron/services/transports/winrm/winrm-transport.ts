import { WindeckError, isWindeckError, type ErrorContext } from '../../../../shared/contract/errors';
import {
  NODE_CHANNEL_TIMEOUT_MS,
  NODE_COMMAND_TIMEOUT_MS,
  NODE_CONNECT_TIMEOUT_MS,
  NODE_IDLE_TIMEOUT_MS,
  NODE_OUTPUT_MAX_BYTES,
  WINRM_CHANNELS_PER_NODE,
  WINRM_CLEANUP_TIMEOUT_MS,
  WINRM_HTTP_GRACE_MS,
  WINRM_MAX_ENVELOPE_BYTES,
  WINRM_OPERATION_TIMEOUT_MS,
  WINRM_POOL_IDLE_MS,
  WINRM_STDIN_CHUNK_BYTES,
} from '../../../../shared/domain/limits';
import { encodeInvocation } from '../../powershell/invoke';
import type { NodeTransport, RunRequest, RunResult, RunTimeouts } from '../node-transport';
import { WinrmChannel, assertAuthAllowed, type WinrmCredentials, type WinrmEndpoint } from './auth';
import type { TlsTrust } from './http-connection';
import { WinrmShell, type StepOptions } from './shell';

/**
 * WinRM (WS-Management) transport: runs Windeck's PowerShell invocation (`powershell.exe ... -Command -` with
 * the script bootstrap on stdin) in a Windows Remote Shell and streams its output back.
 *
 * - Authenticated connections are pooled per node (NTLM authenticates a connection, so reuse saves two round
 *   trips per run); at most `maxChannels` run at once, cleanup may borrow one more.
 * - Stages and their timeouts: connect (TCP, TLS, NTLM), create-shell / command / send (channel timeout),
 *   receive (OperationTimeout + grace: a listener that does not answer is stalled), idle (no output),
 *   command (whole run). Each expiry is TIMEOUT naming the stage.
 * - Cancel, timeout or failure after the shell exists: Signal terminate, then Delete the shell, on a fresh
 *   connection when the running one was cut, within `cleanupTimeoutMs`.
 */

export interface WinrmTransportOptions {
  node: string;
  /** `http://host:5985/wsman` or `https://host:5986/wsman`. */
  url: string;
  credentials: WinrmCredentials;
  trust?: TlsTrust;
  cluster?: string;
  timeouts?: Partial<RunTimeouts>;
  operationTimeoutMs?: number;
  httpGraceMs?: number;
  cleanupTimeoutMs?: number;
  maxChannels?: number;
  poolIdleMs?: number;
  maxOutputBytes?: number;
  maxEnvelopeBytes?: number;
}

interface IdleChannel {
  channel: WinrmChannel;
  timer: NodeJS.Timeout;
}

export class WinrmTransport implements NodeTransport {
  readonly kind = 'winrm' as const;
  readonly node: string;
  private readonly endpoint: WinrmEndpoint;
  private readonly context: ErrorContext;
  private idle: IdleChannel[] = [];
  private channels = 0;
  private waiters: Array<() => void> = [];
  private closed = false;
  /** Runs in progress: their abort controller and a promise that settles when the run (and cleanup) ends. */
  private readonly active = new Map<AbortController, Promise<void>>();

  constructor(private readonly options: WinrmTransportOptions) {
    this.node = options.node;
    this.context = { node: options.node, transport: 'winrm', ...(options.cluster ? { cluster: options.cluster } : {}) };
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new WindeckError('VALIDATION', `Not a WinRM URL: ${JSON.stringify(options.url.slice(0, 80))}.`, this.context);
    }
    if (url.username || url.password) {
      throw new WindeckError('VALIDATION', 'Put WinRM credentials in the credential set, not in the URL.', this.context);
    }
    this.endpoint = { url, ...(options.trust ? { trust: options.trust } : {}) };
    assertAuthAllowed(this.endpoint, options.credentials, this.context);
  }

  private timeouts(request: RunRequest): RunTimeouts {
    return {
      connectMs: NODE_CONNECT_TIMEOUT_MS,
      channelMs: NODE_CHANNEL_TIMEOUT_MS,
      commandMs: NODE_COMMAND_TIMEOUT_MS,
      idleMs: NODE_IDLE_TIMEOUT_MS,
      ...this.options.timeouts,
      ...request.timeouts,
    };
  }

  async run(request: RunRequest): Promise<RunResult> {
    if (this.closed) throw new WindeckError('CANCELLED', `The WinRM session to ${this.node} is closed.`, this.context);
    // Validates script marker and arguments: nothing reaches the network when they do not fit.
    const invocation = encodeInvocation(request);
    assertAuthAllowed(this.endpoint, this.options.credentials, this.context);
    const timeouts = this.timeouts(request);
    const context: ErrorContext = { ...this.context, step: request.scriptId };
    const operationTimeoutMs = Math.max(100, Math.min(this.options.operationTimeoutMs ?? WINRM_OPERATION_TIMEOUT_MS, timeouts.idleMs));
    const graceMs = this.options.httpGraceMs ?? WINRM_HTTP_GRACE_MS;
    const maxOutput = this.options.maxOutputBytes ?? NODE_OUTPUT_MAX_BYTES;
    const startedAt = Date.now();

    const control = new AbortController();
    let settled: () => void = () => undefined;
    this.active.set(control, new Promise<void>((resolve) => (settled = resolve)));
    const signal = AbortSignal.any([request.signal, control.signal]);
    const fail = (code: 'TIMEOUT', stage: string, message: string): void => {
      if (!control.signal.aborted) control.abort(new WindeckError(code, message, { ...this.context, step: stage }));
    };
    let commandTimer: NodeJS.Timeout | undefined;
    let idleTimer: NodeJS.Timeout | undefined;
    const armIdle = (): void => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(
        () => fail('TIMEOUT', 'idle', `${this.node} sent no output for ${timeouts.idleMs} ms (idle timeout); the command was stopped.`),
        timeouts.idleMs,
      );
    };

    const shell = new WinrmShell({
      to: this.endpoint.url.toString(),
      operationTimeoutMs,
      maxEnvelopeBytes: this.options.maxEnvelopeBytes ?? WINRM_MAX_ENVELOPE_BYTES,
      context,
    });
    const step = (stage: string, timeoutMs: number): StepOptions => ({ stage, timeoutMs, signal });
    let channel: WinrmChannel | null = null;
    let commandId: string | null = null;
    let finished = false;
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let outputBytes = 0;
    let exitCode = 0;

    try {
      channel = await this.acquire(signal, timeouts.connectMs, false);
      await shell.create(channel, step('create-shell', timeouts.channelMs));
      commandId = await shell.command(channel, { command: invocation.commandLine }, step('command', timeouts.channelMs));
      commandTimer = setTimeout(
        () => fail('TIMEOUT', 'command', `The command on ${this.node} did not finish within ${timeouts.commandMs} ms (command timeout); it was stopped.`),
        timeouts.commandMs,
      );
      armIdle();

      const input = Buffer.from(invocation.stdin, 'utf8');
      let offset = 0;
      do {
        const part = input.subarray(offset, offset + WINRM_STDIN_CHUNK_BYTES);
        offset += part.length;
        await shell.send(channel, commandId, part, offset >= input.length, step('send', timeouts.channelMs));
      } while (offset < input.length);

      for (;;) {
        const received = await shell.receive(channel, commandId, step('receive', operationTimeoutMs + graceMs));
        if (received === null) continue; // w:TimedOut: nothing yet, ask again (the idle timer bounds this)
        for (const piece of received.chunks) {
          if (piece.data.length === 0) continue;
          armIdle();
          outputBytes += piece.data.length;
          if (outputBytes > maxOutput) {
            throw new WindeckError('REMOTE_FAILED', `${this.node} sent more than ${maxOutput} bytes of output; the command was stopped.`, {
              ...this.context,
              step: 'receive',
            });
          }
          if (piece.stream === 'stdout') {
            stdout.push(piece.data);
            request.onStdout?.(piece.data);
          } else {
            stderr.push(piece.data);
            request.onStderr?.(piece.data);
          }
        }
        if (received.done) {
          exitCode = received.exitCode ?? 0;
          finished = true;
          break;
        }
      }
      clearTimeout(commandTimer);
      clearTimeout(idleTimer);

      // The command is done: delete the shell (that also ends the command on the server).
      const cleanupSignal = AbortSignal.timeout(this.options.cleanupTimeoutMs ?? WINRM_CLEANUP_TIMEOUT_MS);
      try {
        await shell.delete(channel, { stage: 'delete-shell', timeoutMs: timeouts.channelMs, signal: cleanupSignal });
      } catch {
        // The output is complete; a shell that could not be deleted is reaped by its idle timeout on the node.
      }
      this.release(channel);
      channel = null;
      const decoder = (): TextDecoder => new TextDecoder('utf-8');
      return {
        transport: 'winrm',
        stdout: decoder().decode(Buffer.concat(stdout)),
        stderr: decoder().decode(Buffer.concat(stderr)),
        exitCode,
        startedAt,
        durationMs: Date.now() - startedAt,
      };
    } catch (error) {
      clearTimeout(commandTimer);
      clearTimeout(idleTimer);
      const failure = this.explain(error, signal);
      await this.cleanup(shell, commandId, finished, channel);
      channel = null;
      throw failure;
    } finally {
      clearTimeout(commandTimer);
      clearTimeout(idleTimer);
      this.active.delete(control);
      settled();
      if (channel) this.release(channel);
    }
  }

  /** The error to report: the reason of our own abort (timeout stage, cancel) wins over its side effects. */
  private explain(error: unknown, signal: AbortSignal): WindeckError {
    if (signal.aborted) {
      const reason = signal.reason as unknown;
      if (isWindeckError(reason)) return reason;
      if ((reason as { name?: string } | undefined)?.name === 'TimeoutError') {
        return new WindeckError('TIMEOUT', `The operation's time limit ran out while running a command on ${this.node}.`, this.context);
      }
      return new WindeckError('CANCELLED', `The command on ${this.node} was cancelled; its WinRM shell was stopped and deleted.`, this.context);
    }
    if (isWindeckError(error)) return error;
    return new WindeckError('INTERNAL', `WinRM to ${this.node} failed unexpectedly.`, this.context, { cause: error });
  }

  /** Signal terminate (if the command may still run) and delete the shell; best effort, bounded in time. */
  private async cleanup(shell: WinrmShell, commandId: string | null, finished: boolean, current: WinrmChannel | null): Promise<void> {
    if (!shell.shellId) {
      if (current) this.release(current);
      return;
    }
    const timeoutMs = this.options.cleanupTimeoutMs ?? WINRM_CLEANUP_TIMEOUT_MS;
    const signal = AbortSignal.timeout(timeoutMs);
    let channel: WinrmChannel | null = current && current.usable ? current : null;
    if (current && !channel) this.discard(current);
    try {
      channel ??= await this.acquire(signal, timeoutMs, true);
      if (commandId && !finished) {
        try {
          await shell.signal(channel, commandId, 'terminate', { stage: 'signal', timeoutMs, signal });
        } catch {
          if (!channel.usable) {
            // The connection died under the signal: try once more on a new one; Delete follows either way.
            this.discard(channel);
            channel = await this.acquire(signal, timeoutMs, true);
            await shell.signal(channel, commandId, 'terminate', { stage: 'signal', timeoutMs, signal }).catch(() => undefined);
          }
        }
      }
      await shell.delete(channel, { stage: 'delete-shell', timeoutMs, signal });
      this.release(channel);
    } catch {
      if (channel) this.discard(channel);
    }
  }

  // -------------------------------------------------------------------------------------------------------
  // Connection pool

  private async acquire(signal: AbortSignal, timeoutMs: number, cleanup: boolean): Promise<WinrmChannel> {
    const max = this.options.maxChannels ?? WINRM_CHANNELS_PER_NODE;
    for (;;) {
      while (this.idle.length > 0) {
        const entry = this.idle.pop() as IdleChannel;
        clearTimeout(entry.timer);
        if (entry.channel.usable) return entry.channel;
        entry.channel.destroy();
        this.channels -= 1;
      }
      if (this.closed && !cleanup) throw new WindeckError('CANCELLED', `The WinRM session to ${this.node} is closed.`, this.context);
      if (this.channels < max || cleanup) break;
      await this.waitForSlot(signal);
    }
    this.channels += 1;
    try {
      return await WinrmChannel.open({
        endpoint: this.endpoint,
        credentials: this.options.credentials,
        timeoutMs,
        signal,
        context: { ...this.context, step: 'connect' },
      });
    } catch (error) {
      this.channels -= 1;
      this.wake();
      throw error;
    }
  }

  private waitForSlot(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) {
        reject(this.explain(signal.reason, signal));
        return;
      }
      const onAbort = (): void => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        reject(this.explain(signal.reason, signal));
      };
      const wake = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(wake);
    });
  }

  private wake(): void {
    this.waiters.shift()?.();
  }

  private release(channel: WinrmChannel): void {
    if (this.closed || !channel.usable) {
      this.discard(channel);
      return;
    }
    const timer = setTimeout(() => {
      this.idle = this.idle.filter((entry) => entry.channel !== channel);
      this.discard(channel);
    }, this.options.poolIdleMs ?? WINRM_POOL_IDLE_MS);
    timer.unref();
    this.idle.push({ channel, timer });
    this.wake();
  }

  private discard(channel: WinrmChannel): void {
    channel.destroy();
    this.channels -= 1;
    this.wake();
  }

  /** Cancels running commands (their shells are signalled and deleted), then closes every connection. */
  async close(): Promise<void> {
    this.closed = true;
    for (const control of this.active.keys()) {
      control.abort(new WindeckError('CANCELLED', `The WinRM session to ${this.node} was closed.`, this.context));
    }
    // Runs end on their own within the cleanup bound (their shells are signalled and deleted first).
    await Promise.allSettled([...this.active.values()]);
    for (const entry of this.idle) {
      clearTimeout(entry.timer);
      entry.channel.destroy();
      this.channels -= 1;
    }
    this.idle = [];
    for (const waiter of this.waiters) waiter();
    this.waiters = [];
  }
}
