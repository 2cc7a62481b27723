import { z } from 'zod';
import { OperationProgress } from '../domain/operation';

/** What changed in the store; screens re-read what they show when their scope is named. */
export const StoreChanged = z.object({
  scopes: z.array(z.enum(['clusters', 'nodes', 'pods', 'events', 'findings', 'probes', 'operations', 'audit', 'bundles', 'settings'])),
  cluster: z.string().nullable(),
  node: z.string().nullable(),
  at: z.number(),
});
export type StoreChanged = z.infer<typeof StoreChanged>;

/** Events pushed from the backend to every connected renderer. */
export const EVENTS = {
  'store:changed': StoreChanged,
  'ops:progress': OperationProgress,
} as const;

export type Events = typeof EVENTS;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.infer<Events[E]>;

/** Frames of the web host's WebSocket (IPC carries the same shapes). */
export type ClientFrame = { kind: 'call'; id: number; method: string; input: unknown };
export type ServerFrame =
  | { kind: 'result'; id: number; result: unknown }
  | { kind: 'event'; event: EventName; payload: unknown }
  | { kind: 'hello'; contractVersion: number };
