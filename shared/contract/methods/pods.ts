import { z } from 'zod';
import { method } from '../method';
import { ClusterSummary } from '../../domain/cluster';
import { NodeOs } from '../../domain/node';

/** Rows one `pods:list` call may return (the UI asks for a window around what is on screen). */
export const PODS_LIST_MAX_LIMIT = 1_000;

export const PodSortKey = z.enum(['namespace', 'name', 'node', 'phase', 'restarts', 'age']);
export type PodSortKey = z.infer<typeof PodSortKey>;

/** `problems`: neither Running nor Succeeded (Pending, Failed, Unknown, or no phase yet). */
export const PodPhaseFilter = z.enum(['all', 'Running', 'Pending', 'Succeeded', 'Failed', 'Unknown', 'problems']);
export type PodPhaseFilter = z.infer<typeof PodPhaseFilter>;

/** One stored pod as the pods view shows it; `os` is its node's (null when unscheduled or the node is unknown). */
export const PodRow = z.object({
  namespace: z.string(),
  name: z.string(),
  node: z.string().nullable(),
  os: NodeOs.nullable(),
  phase: z.string().nullable(),
  /** kubectl's STATUS column (waiting/terminated reason, else the phase). */
  status: z.string().nullable(),
  readyCount: z.number().int(),
  containerCount: z.number().int(),
  restarts: z.number().int(),
  podIP: z.string().nullable(),
  ownerKind: z.string().nullable(),
  ownerName: z.string().nullable(),
  /** RFC 3339 creation time. */
  createdAt: z.string().nullable(),
});
export type PodRow = z.infer<typeof PodRow>;

export const PodListInput = z
  .object({
    cluster: z.string().min(1).max(253).optional(),
    offset: z.number().int().min(0).max(10_000_000).default(0),
    limit: z.number().int().min(1).max(PODS_LIST_MAX_LIMIT).default(200),
    /** Case-insensitive substring of namespace, name or node. */
    search: z.string().max(200).optional(),
    namespace: z.string().min(1).max(253).optional(),
    node: z.string().min(1).max(253).optional(),
    phase: PodPhaseFilter.default('all'),
    os: z.enum(['all', 'windows', 'linux', 'unknown']).default('all'),
    sort: PodSortKey.default('namespace'),
    dir: z.enum(['asc', 'desc']).default('asc'),
  })
  .strict();
export type PodListInput = z.input<typeof PodListInput>;

export const PodListResult = z.object({
  cluster: ClusterSummary.nullable(),
  /** Pods matching the filters (all of them, not only this window). */
  total: z.number().int(),
  offset: z.number().int(),
  pods: z.array(PodRow),
  /** Namespaces of the cluster's stored pods, for the namespace filter. */
  namespaces: z.array(z.string()),
});
export type PodListResult = z.infer<typeof PodListResult>;

export const podMethods = {
  /**
   * A window of the stored pods of a cluster (default: the active one), filtered and sorted in the store, with the
   * total that matches: fast at 50,000 pods. No cluster in the store: an empty result.
   */
  'pods:list': method({
    input: PodListInput,
    output: PodListResult,
    description: 'Stored pods of a cluster: a filtered, sorted window and the matching total.',
  }),
};
