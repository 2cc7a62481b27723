import { randomUUID } from 'node:crypto';
import { WindeckError, type ErrorContext } from '../../../../shared/contract/errors';
import type { WinrmChannel } from './auth';
import {
  WSMAN_FAULT_CODE,
  WsmanParseError,
  commandRequest,
  createShellRequest,
  deleteShellRequest,
  describeFault,
  newMessageId,
  parseSoap,
  readCommandId,
  readReceive,
  readShellId,
  receiveRequest,
  sendRequest,
  signalRequest,
  type ReceiveChunk,
  type SoapResponse,
} from './wsman';

/**
 * The Windows Remote Shell lifecycle on one authenticated channel: Create a cmd shell, run a Command, feed
 * stdin with Send, Receive output until CommandState Done, and Signal/Delete. Every step has its own timeout
 * and turns SOAP faults into WindeckErrors that carry the fault text Windows sent.
 */

export interface ShellSettings {
  /** The endpoint URL, used as wsa:To. */
  to: string;
  operationTimeoutMs: number;
  maxEnvelopeBytes: number;
  context: ErrorContext;
  uuid?: () => string;
}

export interface StepOptions {
  stage: string;
  timeoutMs: number;
  signal: AbortSignal;
}

export function faultError(response: SoapResponse, stage: string, context: ErrorContext): WindeckError {
  const fault = response.fault;
  const text = fault ? describeFault(fault) : 'unknown fault';
  if (fault && (fault.wsmanCode === WSMAN_FAULT_CODE.accessDenied || /access is denied/i.test(fault.reason))) {
    return new WindeckError('PERMISSION_DENIED', `WinRM ${stage} was refused: ${text}`, { ...context, step: stage });
  }
  return new WindeckError('REMOTE_FAILED', `WinRM ${stage} failed: ${text}`, { ...context, step: stage });
}

export class WinrmShell {
  shellId: string | null = null;

  constructor(private readonly settings: ShellSettings) {}

  private base(): { to: string; messageId: string; operationTimeoutMs: number; maxEnvelopeBytes: number } {
    return {
      to: this.settings.to,
      messageId: newMessageId((this.settings.uuid ?? randomUUID)()),
      operationTimeoutMs: this.settings.operationTimeoutMs,
      maxEnvelopeBytes: this.settings.maxEnvelopeBytes,
    };
  }

  /** Posts an envelope and parses the reply; a fault is returned (not thrown) so callers can act on codes. */
  private async exchange(channel: WinrmChannel, envelope: string, messageId: string, step: StepOptions): Promise<SoapResponse> {
    const { context } = this.settings;
    const { status, xml } = await channel.post(envelope, step);
    let response: SoapResponse;
    try {
      response = parseSoap(xml);
    } catch (error) {
      const why = error instanceof WsmanParseError ? error.message : String(error);
      throw new WindeckError('REMOTE_FAILED', `WinRM ${step.stage} got an unreadable reply (HTTP ${status}): ${why}.`, { ...context, step: step.stage });
    }
    if (response.relatesTo !== null && response.relatesTo.toUpperCase() !== messageId.toUpperCase()) {
      throw new WindeckError('REMOTE_FAILED', `WinRM ${step.stage} got a reply to another request.`, { ...context, step: step.stage });
    }
    if (!response.fault && status !== 200) {
      throw new WindeckError('REMOTE_FAILED', `WinRM ${step.stage} answered HTTP ${status} without a SOAP fault.`, { ...context, step: step.stage });
    }
    return response;
  }

  private async call(channel: WinrmChannel, build: (base: ReturnType<WinrmShell['base']>) => string, step: StepOptions): Promise<SoapResponse> {
    const base = this.base();
    const response = await this.exchange(channel, build(base), base.messageId, step);
    if (response.fault) throw faultError(response, step.stage, this.settings.context);
    return response;
  }

  async create(channel: WinrmChannel, step: StepOptions): Promise<string> {
    const response = await this.call(channel, (base) => createShellRequest({ ...base, codepage: 65001, noProfile: true }), step);
    this.shellId = readShellIdOrFail(response, step.stage, this.settings.context);
    return this.shellId;
  }

  async command(channel: WinrmChannel, commandLine: { command: string; arguments?: string[] }, step: StepOptions): Promise<string> {
    const shellId = this.requireShell();
    const response = await this.call(
      channel,
      (base) => commandRequest({ ...base, shellId, command: commandLine.command, ...(commandLine.arguments ? { arguments: commandLine.arguments } : {}) }),
      step,
    );
    try {
      return readCommandId(response);
    } catch (error) {
      throw new WindeckError('REMOTE_FAILED', `WinRM ${step.stage}: ${(error as Error).message}.`, { ...this.settings.context, step: step.stage });
    }
  }

  async send(channel: WinrmChannel, commandId: string, data: Buffer, end: boolean, step: StepOptions): Promise<void> {
    const shellId = this.requireShell();
    await this.call(channel, (base) => sendRequest({ ...base, shellId, commandId, data, end }), step);
  }

  /**
   * One Receive. Returns null when Windows answered "no output within OperationTimeout" (w:TimedOut), which
   * is normal for a quiet command: the caller asks again.
   */
  async receive(
    channel: WinrmChannel,
    commandId: string,
    step: StepOptions,
  ): Promise<{ chunks: ReceiveChunk[]; done: boolean; exitCode: number | null } | null> {
    const shellId = this.requireShell();
    const base = this.base();
    const response = await this.exchange(channel, receiveRequest({ ...base, shellId, commandId }), base.messageId, step);
    if (response.fault) {
      if (response.fault.wsmanCode === WSMAN_FAULT_CODE.operationTimeout) return null;
      throw faultError(response, step.stage, this.settings.context);
    }
    try {
      const result = readReceive(response, commandId);
      if (result.done && result.exitCode === null) throw new WsmanParseError('the command finished without an exit code');
      return result;
    } catch (error) {
      throw new WindeckError('REMOTE_FAILED', `WinRM ${step.stage}: ${(error as Error).message}.`, { ...this.settings.context, step: step.stage });
    }
  }

  async signal(channel: WinrmChannel, commandId: string, code: 'terminate' | 'ctrlC', step: StepOptions): Promise<void> {
    const shellId = this.requireShell();
    await this.call(channel, (base) => signalRequest({ ...base, shellId, commandId, code }), step);
  }

  async delete(channel: WinrmChannel, step: StepOptions): Promise<void> {
    const shellId = this.requireShell();
    const base = this.base();
    const response = await this.exchange(channel, deleteShellRequest({ ...base, shellId }), base.messageId, step);
    // A shell that is already gone is the outcome we wanted.
    if (response.fault && response.fault.wsmanCode !== WSMAN_FAULT_CODE.shellNotFound) {
      throw faultError(response, step.stage, this.settings.context);
    }
    this.shellId = null;
  }

  private requireShell(): string {
    if (!this.shellId) throw new WindeckError('INTERNAL', 'WinRM shell used before it was created.', this.settings.context);
    return this.shellId;
  }
}

function readShellIdOrFail(response: SoapResponse, stage: string, context: ErrorContext): string {
  try {
    return readShellId(response);
  } catch (error) {
    throw new WindeckError('REMOTE_FAILED', `WinRM ${stage}: ${(error as Error).message}.`, { ...context, step: stage });
  }
}
