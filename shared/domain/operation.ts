import { z } from 'zod';
import { WireError } from '../contract/errors';

export const OperationState = z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'timed-out']);
export type OperationState = z.infer<typeof OperationState>;

export const TERMINAL_STATES: ReadonlySet<OperationState> = new Set(['succeeded', 'failed', 'cancelled', 'timed-out']);

/** Kinds of long work. Add new kinds here; never rename one (they are stored). */
export const OperationKind = z.enum(['inventory-sync', 'probe', 'diagnose', 'import', 'collect', 'report', 'restart', 'demo']);
export type OperationKind = z.infer<typeof OperationKind>;

export const OperationStep = z.object({ index: z.number().int(), count: z.number().int(), title: z.string() });
export type OperationStep = z.infer<typeof OperationStep>;

/** Progress of an operation, pushed as `ops:progress` (at most ~10 per second per operation). */
export const OperationProgress = z.object({
  operationId: z.string(),
  kind: OperationKind,
  title: z.string(),
  state: OperationState,
  step: OperationStep,
  /** 0..1, or null when the amount of work is unknown. */
  fraction: z.number().nullable(),
  message: z.string().optional(),
  node: z.string().nullable(),
  cluster: z.string().nullable(),
  /** Epoch ms. */
  at: z.number(),
  startedAt: z.number(),
});
export type OperationProgress = z.infer<typeof OperationProgress>;

/** An operation as stored, with its outcome once terminal. */
export const OperationRecord = OperationProgress.extend({
  result: z.unknown().optional(),
  error: WireError.optional(),
  finishedAt: z.number().nullable(),
});
export type OperationRecord = z.infer<typeof OperationRecord>;
