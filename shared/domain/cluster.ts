import { z } from 'zod';

/** Sync state of one cluster's live inventory. */
/** `offline` = the API server is unreachable; `auth-failed` = it refused the credentials (or an exec plugin is not approved). */
export const SyncState = z.enum(['never', 'syncing', 'live', 'stale', 'offline', 'auth-failed', 'error']);
export type SyncState = z.infer<typeof SyncState>;

/** A cluster Windeck knows about (a kubeconfig context, or the simulated demo). */
export const ClusterSummary = z.object({
  id: z.string(),
  name: z.string(),
  context: z.string(),
  server: z.string().nullable(),
  kubeconfigPath: z.string().nullable(),
  simulated: z.boolean(),
  kubernetesVersion: z.string().nullable(),
  syncState: SyncState,
  syncError: z.string().nullable(),
  /** Epoch ms of the last successful sync, null when never synced. */
  syncedAt: z.number().nullable(),
  nodeCount: z.number().int(),
  windowsNodeCount: z.number().int(),
});
export type ClusterSummary = z.infer<typeof ClusterSummary>;
