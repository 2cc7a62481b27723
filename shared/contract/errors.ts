import { z } from 'zod';

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

export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const TRANSPORT_KINDS = ['ssh', 'winrm', 'hostprocess', 'kube-api', 'local'] as const;
export const TransportKind = z.enum(TRANSPORT_KINDS);
export type TransportKind = z.infer<typeof TransportKind>;

/** Where an error happened; every field optional, none of them secret. */
export const ErrorContext = z.object({
  cluster: z.string().optional(),
  node: z.string().optional(),
  transport: TransportKind.optional(),
  step: z.string().optional(),
  operationId: z.string().optional(),
  path: z.string().optional(),
  logRef: z.string().optional(),
});
export type ErrorContext = z.infer<typeof ErrorContext>;

/** An error as it travels across the contract: one sentence a user can act on, no secrets, no stack. */
export const WireError = z.object({
  code: ErrorCode,
  message: z.string(),
  retryable: z.boolean(),
  context: ErrorContext.optional(),
});
export type WireError = z.infer<typeof WireError>;

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
  return value instanceof WindeckError || (typeof value === 'object' && value !== null && (value as { name?: unknown }).name === 'WindeckError' && typeof (value as { code?: unknown }).code === 'string');
}
