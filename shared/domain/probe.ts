import { z } from 'zod';
import { WireError } from '../contract/errors';

/** Stable probe ids (DESIGN.md section 4); they appear in the store, bundles and reports. Never rename one. */
export const PROBE_IDS = ['services', 'service-config', 'processes', 'hns-networks', 'hns-endpoints', 'hns-policies', 'net-adapters', 'dns', 'os', 'files', 'runtime', 'logs'] as const;
export const ProbeId = z.enum(PROBE_IDS);
export type ProbeId = z.infer<typeof ProbeId>;

/** Node transports a user can choose (`--transport`). */
export const NodeTransportChoice = z.enum(['auto', 'ssh', 'winrm']);
export type NodeTransportChoice = z.infer<typeof NodeTransportChoice>;

/**
 * One probe's outcome as `windeck probe --json` prints it (DESIGN.md section 10): `raw` is the output as received
 * (UTF-8 decoded; invalid bytes as U+FFFD, the stored copy keeps the bytes), `parsed` the normalized form (service
 * states and start types as names), `error` why it could not run. `durationMs` in milliseconds.
 */
export const ProbeOutcome = z.object({
  ok: z.boolean(),
  raw: z.string().nullable(),
  parsed: z.unknown(),
  error: WireError.nullable(),
  durationMs: z.number(),
});
export type ProbeOutcome = z.infer<typeof ProbeOutcome>;

/** `{"node", "transport", "probes": {"<id>": ProbeOutcome}}`. */
export const ProbeReport = z.object({
  node: z.string(),
  transport: z.string(),
  probes: z.record(z.string(), ProbeOutcome),
});
export type ProbeReport = z.infer<typeof ProbeReport>;

/** Why a transport does or does not reach a node (the capability check). */
export const CapabilityReason = z.enum(['ok', 'refused', 'unreachable', 'auth', 'host-key-unknown', 'host-key-changed', 'timeout', 'not-configured', 'unsupported', 'cancelled', 'remote-error', 'error']);
export type CapabilityReason = z.infer<typeof CapabilityReason>;

export const CapabilityCheck = z.object({
  transport: z.enum(['ssh', 'winrm']),
  ok: z.boolean(),
  reason: CapabilityReason,
  message: z.string(),
  endpoint: z.string(),
  durationMs: z.number(),
});
export type CapabilityCheck = z.infer<typeof CapabilityCheck>;
