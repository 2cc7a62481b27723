import { z } from 'zod';
import { ERROR_CODES, TRANSPORT_KINDS } from './windeck-error';
import type { ErrorContext as PlainErrorContext, WireError as PlainWireError } from './windeck-error';

// The class and the plain types live in windeck-error.ts (no zod: the bundle's worker threads load that file alone).
export { ERROR_CODES, TRANSPORT_KINDS, WindeckError, isWindeckError } from './windeck-error';

/** The zod schemas of the contract's error shapes (the values and plain types: windeck-error.ts). */
export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

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

/** Both directions assignable: the zod schemas here and the plain types of windeck-error.ts are one shape. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const shapesAgree: [Same<ErrorContext, PlainErrorContext>, Same<WireError, PlainWireError>] = [true, true];
void shapesAgree;
