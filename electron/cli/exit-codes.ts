import type { ErrorCode } from '../../shared/contract/errors';

/** DESIGN.md section 10: 0 ran; 1 usage/input/not found/unsupported/internal; 2 could not reach; 4 findings; 130 cancelled. */
export const EXIT = { OK: 0, USAGE: 1, UNREACHABLE: 2, FINDINGS: 4, CANCELLED: 130 } as const;

export function exitCodeFor(code: ErrorCode): number {
  switch (code) {
    case 'UNREACHABLE':
    case 'TIMEOUT':
    case 'AUTH_FAILED':
    case 'HOST_KEY_UNKNOWN':
    case 'HOST_KEY_CHANGED':
    case 'REMOTE_FAILED':
      return EXIT.UNREACHABLE;
    case 'CANCELLED':
      return EXIT.CANCELLED;
    case 'VALIDATION':
    case 'NOT_FOUND':
    case 'CONFLICT':
    case 'PERMISSION_DENIED':
    case 'PARSE_FAILED':
    case 'STORE_UNAVAILABLE':
    case 'UNSUPPORTED':
    case 'INTERNAL':
      return EXIT.USAGE;
  }
}
