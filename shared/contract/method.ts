import type { z } from 'zod';

/** Declaration of one contract method: input and output schemas plus what it does. */
export interface MethodDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  input: I;
  output: O;
  /** One line for docs and `--help`; say units and error codes. */
  description: string;
  /** True when the method changes something outside the store (a node, the cluster). */
  mutating?: boolean;
}

export function method<I extends z.ZodType, O extends z.ZodType>(def: MethodDef<I, O>): MethodDef<I, O> {
  return def;
}
