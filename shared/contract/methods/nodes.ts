import { z } from 'zod';
import { method } from '../method';
import { ClusterSummary } from '../../domain/cluster';
import { NodeModel, NodeSummary } from '../../domain/node';
import { RestartComponent, RestartMethod } from '../../logic/restart-plan';

/**
 * What the fleet shows of a node's probes (from the store's per-node summary): when any probe last ran, and the
 * newest `services` run with the component services' states, real name -> state (`{ kubelet: 'Running',
 * 'kube-proxy': 'Stopped' }`), only the services present on the node. `services` is null when that run failed.
 */
export const NodeProbeBrief = z.object({
  probedAt: z.number(),
  servicesAt: z.number().nullable(),
  servicesOk: z.boolean().nullable(),
  services: z.record(z.string(), z.string()).nullable(),
});
export type NodeProbeBrief = z.infer<typeof NodeProbeBrief>;

/**
 * `nodes` are NodeSummary rows exactly (what `windeck nodes --json` prints); `probes` maps a node name to its probe
 * brief, for probed nodes only (a node absent from it was never probed).
 *
 * `cursor` marks what this answer covers; passing it back as `since` answers a delta: `nodes` (and their `probes`)
 * are then only the nodes written after the cursor, `removed` the names gone since, and `full` is false. When the
 * cursor cannot be answered with a delta (another cluster or store, or removals pruned since), `full` is true and
 * `nodes` holds every node, as without `since`. Without `since`, `full` is true and `removed` is empty.
 */
export const NodeListResult = z.object({
  cluster: ClusterSummary.nullable(),
  nodes: z.array(NodeSummary),
  probes: z.record(z.string(), NodeProbeBrief),
  cursor: z.string(),
  full: z.boolean(),
  removed: z.array(z.string()),
});
export type NodeListResult = z.infer<typeof NodeListResult>;

const ClusterRef = z.string().min(1).max(253).optional();

/** How one component runs on a node, as the restart engine's detection sees it from stored probe data. */
export const ComponentLayout = z.object({
  component: RestartComponent,
  method: RestartMethod,
  /** Service name, `namespace/pod`, or process name; null when absent. */
  realName: z.string().nullable(),
  /** How it runs, in words (never its arguments). */
  layout: z.string(),
  /** Why a restart would be refused (a bare process, a supervised child, absent); null when it can be restarted. */
  refusal: z.string().nullable(),
});
export type ComponentLayout = z.infer<typeof ComponentLayout>;

/**
 * `nodes:layout`: the detected layout from the newest stored `services`, `service-config` and `processes` probes and
 * the stored pods on the node. `probedAt` null (and no components) when the node was never probed; `missing` names
 * the probes not stored yet (the detection is then less sure, e.g. nssm cannot be told without `service-config`).
 */
export const NodeLayoutResult = z.object({
  node: z.string(),
  probedAt: z.number().nullable(),
  /** Oldest of the probes used: the age of what the detection rests on. */
  oldestAt: z.number().nullable(),
  podsSyncedAt: z.number().nullable(),
  missing: z.array(z.string()),
  components: z.array(ComponentLayout),
});
export type NodeLayoutResult = z.infer<typeof NodeLayoutResult>;

export const nodeMethods = {
  /** Clusters known to the store, with their sync state. */
  'clusters:list': method({ input: z.object({}).strict(), output: z.array(ClusterSummary), description: 'Clusters in the store, with sync state and age.' }),
  /** Nodes of one cluster from the store (default: the active cluster). NOT_FOUND when the cluster is unknown. */
  'nodes:list': method({
    input: z.object({ cluster: ClusterRef, since: z.string().min(1).max(600).optional() }).strict(),
    output: NodeListResult,
    description: 'Node inventory with health, read from the store; with `since` (a cursor from an earlier answer), only what changed.',
  }),
  /** How kubelet, kube-proxy, flanneld, containerd and hns run on a node, from stored probes (offline). */
  'nodes:layout': method({
    input: z.object({ cluster: ClusterRef, name: z.string().min(1).max(253) }).strict(),
    output: NodeLayoutResult,
    description: 'Detected component layout of a node (service, nssm, DaemonSet pod, process) from stored probes.',
  }),
  /** One node's stored model. NOT_FOUND when absent. */
  'nodes:get': method({
    input: z.object({ cluster: ClusterRef, name: z.string().min(1).max(253) }).strict(),
    output: NodeModel,
    description: 'One node as stored: conditions, versions, addresses, taints.',
  }),
};
