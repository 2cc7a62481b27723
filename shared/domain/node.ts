import { z } from 'zod';

export const NodeOs = z.enum(['windows', 'linux', 'unknown']);
export type NodeOs = z.infer<typeof NodeOs>;

/** Overall health of a node as Windeck judges it from stored evidence. */
export const NodeHealth = z.enum(['healthy', 'warning', 'error', 'unreachable', 'unknown']);
export type NodeHealth = z.infer<typeof NodeHealth>;

export const NodeCondition = z.object({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: z.string().optional(),
});
export type NodeCondition = z.infer<typeof NodeCondition>;

export const NodeTaint = z.object({ key: z.string(), value: z.string().optional(), effect: z.string() });
export type NodeTaint = z.infer<typeof NodeTaint>;

export const NodeAddress = z.object({ type: z.string(), address: z.string() });
export type NodeAddress = z.infer<typeof NodeAddress>;

/**
 * One row of the fleet view and of `windeck nodes --json` (DESIGN.md section 10).
 * `syncedAt` is epoch ms of the inventory sync that wrote this row.
 */
export const NodeSummary = z.object({
  name: z.string(),
  os: NodeOs,
  ready: z.boolean().nullable(),
  windowsBuild: z.number().int().nullable(),
  windowsRelease: z.string().nullable(),
  kubeletVersion: z.string().nullable(),
  containerRuntime: z.string().nullable(),
  internalIP: z.string().nullable(),
  podCount: z.number().int(),
  health: NodeHealth,
  reasons: z.array(z.string()),
  syncedAt: z.number().nullable(),
});
export type NodeSummary = z.infer<typeof NodeSummary>;

/** The stored node model: everything Windeck keeps per Node object (a projection, not the whole object). */
export const NodeModel = NodeSummary.extend({
  uid: z.string().nullable(),
  labels: z.record(z.string(), z.string()),
  osImage: z.string().nullable(),
  kernelVersion: z.string().nullable(),
  kubeProxyVersion: z.string().nullable(),
  architecture: z.string().nullable(),
  providerID: z.string().nullable(),
  podCIDR: z.string().nullable(),
  conditions: z.array(NodeCondition),
  taints: z.array(NodeTaint),
  addresses: z.array(NodeAddress),
  unschedulable: z.boolean(),
  createdAt: z.string().nullable(),
});
export type NodeModel = z.infer<typeof NodeModel>;
