import type { ErrorCode, WireError } from '../../shared/contract/errors';
import { assertNever } from './assert-never';

/** What the user can do about an error; the UI turns it into a button or a hint. */
export type ErrorAction = 'retry' | 'reconnect' | 'credentials' | 'review-host-key' | 'fix-input' | 'report' | 'none';

export interface ErrorDescription {
  /** A short heading. */
  title: string;
  /** One sentence on what to do next. */
  hint: string;
  action: ErrorAction;
}

function where(error: WireError): string {
  const c = error.context;
  if (!c) return '';
  const parts = [c.node && `node ${c.node}`, c.cluster && `cluster ${c.cluster}`, c.transport && `via ${c.transport}`, c.step && `at step "${c.step}"`].filter(
    Boolean,
  );
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/**
 * The one place that turns every error code into words and an action (STYLE.md section 4). The switch is
 * exhaustive: a new code in shared/contract/errors.ts does not compile until it is described here.
 */
export function describeError(error: WireError): ErrorDescription {
  const code: ErrorCode = error.code;
  const at = where(error);
  switch (code) {
    case 'VALIDATION':
      return { title: 'Invalid request', hint: `Windeck refused the request as given${at}. Check the values and try again.`, action: 'fix-input' };
    case 'NOT_FOUND':
      return { title: 'Not found', hint: `It is not in the local store${at}. It may have been removed, or not synced yet.`, action: 'retry' };
    case 'CONFLICT':
      return { title: 'Busy', hint: `Something else is already running here${at}. Wait for it to finish (see Activity), then retry.`, action: 'retry' };
    case 'UNREACHABLE':
      return {
        title: 'Unreachable',
        hint: `Windeck could not reach what it needed${at}. Check the network or that the host is running, then retry.`,
        action: 'retry',
      };
    case 'TIMEOUT':
      return { title: 'Timed out', hint: `No answer in time${at}. The target may be slow or stalled; retry, or check it directly.`, action: 'retry' };
    case 'CANCELLED':
      return { title: 'Cancelled', hint: `The work was cancelled${at}; nothing further was done.`, action: 'none' };
    case 'AUTH_FAILED':
      return { title: 'Sign-in failed', hint: `The credentials were refused${at}. Re-enter them for this node or cluster.`, action: 'credentials' };
    case 'HOST_KEY_UNKNOWN':
      return {
        title: 'Unknown host key',
        hint: `This host's key has not been trusted yet${at}. Review its SHA256 fingerprint before trusting it.`,
        action: 'review-host-key',
      };
    case 'HOST_KEY_CHANGED':
      return {
        title: 'Host key changed',
        hint: `The host presented a different key than the one pinned${at}. Windeck refused to connect; verify the host before replacing the key.`,
        action: 'review-host-key',
      };
    case 'PERMISSION_DENIED':
      return {
        title: 'Permission denied',
        hint: `The account lacks the rights for this${at}. Use an account with administrator rights on the node.`,
        action: 'credentials',
      };
    case 'REMOTE_FAILED':
      return {
        title: 'Remote command failed',
        hint: `The command ran but failed on the other side${at}. The message below says what it printed.`,
        action: 'retry',
      };
    case 'PARSE_FAILED':
      return {
        title: 'Unreadable answer',
        hint: `Windeck could not read what came back${at}. Collect a bundle and report it so the parser can learn this format.`,
        action: 'report',
      };
    case 'STORE_UNAVAILABLE':
      return {
        title: 'Local store unavailable',
        hint: 'The local database could not be opened (locked or unreadable). Close other Windeck windows, then retry.',
        action: 'retry',
      };
    case 'UNSUPPORTED':
      return { title: 'Not available', hint: `This is not supported here yet${at}.`, action: 'none' };
    case 'INTERNAL':
      return {
        title: 'Internal error',
        hint: `Windeck hit a bug${error.context?.logRef ? ` (log reference ${error.context.logRef})` : ''}. Retry; if it keeps happening, report it with the log reference.`,
        action: 'report',
      };
    default:
      return assertNever(code, 'error code');
  }
}
