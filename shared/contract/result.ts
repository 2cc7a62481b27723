import { z } from 'zod';
import { WireError } from './errors';

/** The envelope every contract answer travels in. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: WireError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function err<T = never>(error: WireError): Result<T> {
  return { ok: false, error };
}

/** Schema of a Result whose value follows `value`. */
export function ResultSchema<T extends z.ZodType>(value: T) {
  return z.union([z.object({ ok: z.literal(true), value }), z.object({ ok: z.literal(false), error: WireError })]);
}
