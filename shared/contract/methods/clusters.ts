import { z } from 'zod';
import { method } from '../method';
import { ClusterSummary } from '../../domain/cluster';

/** Where a kubeconfig file came from: the KUBECONFIG list, the default ~/.kube/config, or added by the user. */
export const KubeconfigOrigin = z.enum(['env', 'default', 'added']);
export type KubeconfigOrigin = z.infer<typeof KubeconfigOrigin>;

/** One kubeconfig file the host knows, and whether it can be read. */
export const KubeconfigFileInfo = z.object({
  path: z.string(),
  origin: KubeconfigOrigin,
  exists: z.boolean(),
  /** Why the file cannot be used (parse error, permission), null when it loads. */
  error: z.string().nullable(),
});
export type KubeconfigFileInfo = z.infer<typeof KubeconfigFileInfo>;

/** A kubeconfig context, described without credentials. */
export const KubeContext = z.object({
  /** The store's id for this context (what `clusters:select` takes); stable across runs. */
  clusterId: z.string(),
  name: z.string(),
  /** The cluster entry's name in the kubeconfig. */
  cluster: z.string().nullable(),
  server: z.string().nullable(),
  user: z.string().nullable(),
  namespace: z.string(),
  /** The file that defines the context. */
  kubeconfigPath: z.string(),
  origin: KubeconfigOrigin,
  /** The current-context of its file set. */
  current: z.boolean(),
  /** The exec credential plugin the user needs (command as written), and whether it is approved to run. */
  exec: z.object({ command: z.string(), approved: z.boolean() }).nullable(),
  /** Why the context cannot be used as written (missing cluster, unreadable CA...), null when it resolves. */
  problem: z.string().nullable(),
});
export type KubeContext = z.infer<typeof KubeContext>;

/** What the console shows live right now. */
export const ConsoleSourceInfo = z.object({
  kind: z.enum(['live', 'demo', 'stored']),
  /** The cluster a live list+watch runs for in this process, null when none. */
  clusterId: z.string().nullable(),
  message: z.string(),
});
export type ConsoleSourceInfo = z.infer<typeof ConsoleSourceInfo>;

export const ClusterContexts = z.object({
  files: z.array(KubeconfigFileInfo),
  contexts: z.array(KubeContext),
  /** The cluster the console opens on (settings `activeCluster`). */
  activeCluster: z.string().nullable(),
  source: ConsoleSourceInfo,
});
export type ClusterContexts = z.infer<typeof ClusterContexts>;

const ClusterId = z.string().min(1).max(2048);

export const clusterMethods = {
  /** Contexts in the kubeconfig files the host knows (KUBECONFIG or ~/.kube/config, plus added files). No credentials. */
  'clusters:contexts': method({
    input: z.object({}).strict(),
    output: ClusterContexts,
    description: 'Kubeconfig files and contexts the host knows (name, server, user, namespace; never credentials), and the live source.',
  }),
  /**
   * Remember a kubeconfig file (by absolute path; the file is not copied). VALIDATION with the parse problem when it
   * is not a usable kubeconfig, NOT_FOUND when it does not exist.
   */
  'clusters:add-kubeconfig': method({
    input: z.object({ path: z.string().trim().min(1).max(4096) }).strict(),
    output: z.object({ path: z.string(), contexts: z.array(KubeContext) }),
    description: 'Add a kubeconfig file by path (validated; remembered in the settings, not copied).',
    mutating: true,
  }),
  /** Forget an added kubeconfig file (stored cluster data stays until `clusters:remove`). */
  'clusters:remove-kubeconfig': method({
    input: z.object({ path: z.string().trim().min(1).max(4096) }).strict(),
    output: z.object({ removed: z.boolean() }),
    description: 'Forget an added kubeconfig path.',
    mutating: true,
  }),
  /**
   * Switch the console's live source to a context (a `clusterId` from `clusters:contexts` or `clusters:list`): the
   * current live sync (or demo) stops, a live list+watch of the chosen context starts. Stored data of every cluster
   * stays. PERMISSION_DENIED (step exec-approval) when the context's exec plugin is not approved yet.
   */
  'clusters:select': method({
    input: z.object({ cluster: ClusterId }).strict(),
    output: z.object({ cluster: ClusterSummary, source: ConsoleSourceInfo }),
    description: 'Switch the live source to a kubeconfig context; the store keeps every cluster.',
    mutating: true,
  }),
  /** List the cluster again now (an `inventory-sync` operation); the live watch restarts when it was failing. */
  'clusters:sync': method({
    input: z.object({ cluster: ClusterId }).strict(),
    output: z.object({ operationId: z.string() }),
    description: 'Re-list a cluster now, as an operation (progress, outcome).',
    mutating: true,
  }),
  /** Forget a cluster's stored data (nodes, pods, events, findings, probes). `confirm` must be the cluster's name. */
  'clusters:remove': method({
    input: z.object({ cluster: ClusterId, confirm: z.string().max(253) }).strict(),
    output: z.object({ removed: z.string() }),
    description: "Forget a cluster's stored data after confirmation (type its name). Audit and operation history stay.",
    mutating: true,
  }),
};
