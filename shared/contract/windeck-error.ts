/**
 * `WindeckError` and the plain types it carries, without zod: code that runs where the contract's schemas are not
 * needed (the bundle's redaction worker threads) imports this file and does not load zod. `errors.ts` re-exports
 * everything here next to the zod schemas of the same names, and checks that both describe the same shapes.
 */

/**
 * The closed set of error codes that cross the contract. Extend on purpose, never rename.
 * The renderer's `describeError` switches over every one of them.
 */
export const ERROR_CODES = [
  'VALIDATION',
  'NOT_FOUND',
  'CONFLICT',
  'UNREACHABLE',
  'TIMEOUT',
  'CANCELLED',
  'AUTH_FAILED',
  'HOST_KEY_UNKNOWN',
  'HOST_KEY_CHANGED',
  'PERMISSION_DENIED',
  'REMOTE_FAILED',
  'PARSE_FAILED',
  'STORE_UNAVAILABLE',
  'UNSUPPORTED',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const TRANSPORT_KINDS = ['ssh', 'winrm', 'hostprocess', 'kube-api', 'local'] as const;
export type TransportKind = (typeof TRANSPORT_KINDS)[number];

/** Where an error happened; every field optional, none of them secret. */
export interface ErrorContext {
  cluster?: string | undefined;
  node?: string | undefined;
  transport?: TransportKind | undefined;
  step?: string | undefined;
  operationId?: string | undefined;
  path?: string | undefined;
  logRef?: string | undefined;
}

/** An error as it travels across the contract: one sentence a user can act on, no secrets, no stack. */
export interface WireError {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  context?: ErrorContext | undefined;
}

const RETRYABLE: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['UNREACHABLE', 'TIMEOUT', 'STORE_UNAVAILABLE', 'CONFLICT']);

/** Thrown by services; `dispatch` alone turns it into a `Result`. */
export class WindeckError extends Error {
  readonly code: ErrorCode;
  readonly context: ErrorContext | undefined;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, context?: ErrorContext, options?: { cause?: unknown; retryable?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WindeckError';
    this.code = code;
    this.context = context;
    this.retryable = options?.retryable ?? RETRYABLE.has(code);
  }

  toWire(): WireError {
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      ...(this.context ? { context: this.context } : {}),
    };
  }
}

/** True when `value` is a WindeckError (also across module copies). */
export function isWindeckError(value: unknown): value is WindeckError {
  return (
    value instanceof WindeckError ||
    (typeof value === 'object' &&
      value !== null &&
      (value as { name?: unknown }).name === 'WindeckError' &&
      typeof (value as { code?: unknown }).code === 'string')
  );
}
