import { WindeckError, isWindeckError, type ErrorCode } from '../../../shared/contract/errors';
import { runScript } from '../powershell/invoke';
import type { NodeTransport } from './node-transport';

/**
 * Which transport reaches a node, and why the others do not (DESIGN.md section 4). A candidate is either
 * openable (an endpoint and a credential were found) or unavailable with a reason. `checkTransport` proves a
 * candidate by running the small `os` script through it; `selectTransport` tries candidates in order and
 * returns the first that works with every check made, or throws one error that names each transport's reason.
 */

export type NodeTransportKind = 'ssh' | 'winrm';

/** Who a candidate logs in as and where (for the capability check's table; never a secret). */
export interface CandidateInfo {
  /** Name of the store credential used, or null (ssh_config, agent, environment). */
  credential: string | null;
  username: string | null;
  /** 'key' | 'password' | 'basic' | 'agent' | 'ssh-config' */
  authKind: string | null;
  /** SSH: where the host key is checked. */
  host?: string;
  port?: number;
}

export type TransportCandidate =
  | { kind: NodeTransportKind; available: true; describe: string; open(): NodeTransport; info?: CandidateInfo }
  | { kind: NodeTransportKind; available: false; describe: string; reason: CapabilityReason; message: string; info?: CandidateInfo };

export type CapabilityReason =
  | 'ok'
  | 'refused'
  | 'unreachable'
  | 'auth'
  | 'host-key-unknown'
  | 'host-key-changed'
  | 'timeout'
  | 'not-configured'
  | 'unsupported'
  | 'cancelled'
  | 'remote-error'
  | 'error';

export interface CapabilityCheck {
  transport: NodeTransportKind;
  ok: boolean;
  reason: CapabilityReason;
  /** One sentence: what was tried and what happened. */
  message: string;
  /** Endpoint tried (host:port or URL). */
  endpoint: string;
  durationMs: number;
  errorCode: ErrorCode | null;
}

export function reasonFor(error: unknown): { reason: CapabilityReason; code: ErrorCode } {
  if (!isWindeckError(error)) return { reason: 'error', code: 'INTERNAL' };
  const e = error as WindeckError;
  switch (e.code) {
    case 'UNREACHABLE':
      return { reason: /refused/i.test(e.message) ? 'refused' : 'unreachable', code: e.code };
    case 'AUTH_FAILED':
      return { reason: 'auth', code: e.code };
    case 'HOST_KEY_UNKNOWN':
      return { reason: 'host-key-unknown', code: e.code };
    case 'HOST_KEY_CHANGED':
      return { reason: 'host-key-changed', code: e.code };
    case 'TIMEOUT':
      return { reason: 'timeout', code: e.code };
    case 'CANCELLED':
      return { reason: 'cancelled', code: e.code };
    case 'UNSUPPORTED':
      return { reason: 'unsupported', code: e.code };
    case 'REMOTE_FAILED':
      return { reason: 'remote-error', code: e.code };
    case 'NOT_FOUND':
    case 'VALIDATION':
      return { reason: 'not-configured', code: e.code };
    default:
      return { reason: 'error', code: e.code };
  }
}

/** Prove a transport works by running the read-only `os` script through it. */
export async function checkTransport(
  transport: NodeTransport,
  endpoint: string,
  signal: AbortSignal,
  timeouts?: { connectMs?: number; commandMs?: number },
): Promise<CapabilityCheck> {
  const started = Date.now();
  const kind = transport.kind as NodeTransportKind;
  try {
    const r = await runScript(
      transport,
      'os',
      {},
      { signal, timeouts: { ...(timeouts?.connectMs ? { connectMs: timeouts.connectMs } : {}), commandMs: timeouts?.commandMs ?? 30_000 } },
    );
    if (r.exitCode !== 0) {
      return {
        transport: kind,
        ok: false,
        reason: 'remote-error',
        message: `${kind} reached ${transport.node} but PowerShell failed (exit ${r.exitCode}): ${r.stderr.split(/\r?\n/)[0]?.slice(0, 200) ?? ''}`,
        endpoint,
        durationMs: Date.now() - started,
        errorCode: 'REMOTE_FAILED',
      };
    }
    return { transport: kind, ok: true, reason: 'ok', message: `${kind} to ${endpoint} works`, endpoint, durationMs: Date.now() - started, errorCode: null };
  } catch (error) {
    const { reason, code } = reasonFor(error);
    return {
      transport: kind,
      ok: false,
      reason,
      message: isWindeckError(error) ? (error as WindeckError).message : String(error),
      endpoint,
      durationMs: Date.now() - started,
      errorCode: code,
    };
  }
}

/** The check of a candidate that could not even be opened (no endpoint, no credential...). */
function unavailableCheck(c: Extract<TransportCandidate, { available: false }>): CapabilityCheck {
  return {
    transport: c.kind,
    ok: false,
    reason: c.reason,
    message: c.message,
    endpoint: c.describe,
    durationMs: 0,
    errorCode: c.reason === 'auth' ? 'AUTH_FAILED' : null,
  };
}

/** Check every candidate (for a "which transport works" view); nothing stops at the first success. */
export async function checkCandidates(candidates: readonly TransportCandidate[], signal: AbortSignal): Promise<CapabilityCheck[]> {
  const out: CapabilityCheck[] = [];
  for (const c of candidates) {
    if (!c.available) {
      out.push(unavailableCheck(c));
      continue;
    }
    const t = c.open();
    out.push(await checkTransport(t, c.describe, signal));
  }
  return out;
}

const PRIORITY: ErrorCode[] = ['HOST_KEY_CHANGED', 'HOST_KEY_UNKNOWN', 'AUTH_FAILED', 'TIMEOUT', 'UNREACHABLE', 'REMOTE_FAILED', 'CANCELLED'];

/**
 * The first candidate (in the given order) that passes its check. Throws when none does: the code is the most
 * telling failure (a host key problem before auth before timeout before unreachable), the message lists all.
 */
export async function selectTransport(
  node: string,
  candidates: readonly TransportCandidate[],
  signal: AbortSignal,
): Promise<{ transport: NodeTransport; checks: CapabilityCheck[] }> {
  const checks: CapabilityCheck[] = [];
  for (const c of candidates) {
    if (!c.available) {
      checks.push(unavailableCheck(c));
      continue;
    }
    const t = c.open();
    const check = await checkTransport(t, c.describe, signal);
    checks.push(check);
    if (check.ok) return { transport: t, checks };
    await t.close();
    if (check.reason === 'cancelled') break;
  }
  const codes = checks.map((c) => c.errorCode).filter((c): c is ErrorCode => c !== null);
  const code = PRIORITY.find((p) => codes.includes(p)) ?? (checks.every((c) => c.reason === 'not-configured') ? 'NOT_FOUND' : 'UNREACHABLE');
  const summary = checks.map((c) => `${c.transport}: ${c.reason} (${c.message})`).join('; ');
  throw new WindeckError(code, checks.length === 0 ? `No transport is configured for ${node}.` : `No transport reaches ${node}. ${summary}`, {
    node,
    step: 'select-transport',
  });
}
