import { z } from 'zod';
import { method } from '../method';
import { ClusterSummary } from '../../domain/cluster';
import { NodeModel, NodeSummary } from '../../domain/node';

export const NodeListResult = z.object({
  cluster: ClusterSummary.nullable(),
  nodes: z.array(NodeSummary),
});
export type NodeListResult = z.infer<typeof NodeListResult>;

const ClusterRef = z.string().min(1).max(253).optional();

export const nodeMethods = {
  /** Clusters known to the store, with their sync state. */
  'clusters:list': method({ input: z.object({}).strict(), output: z.array(ClusterSummary), description: 'Clusters in the store, with sync state and age.' }),
  /** Nodes of one cluster from the store (default: the active cluster). NOT_FOUND when the cluster is unknown. */
  'nodes:list': method({
    input: z.object({ cluster: ClusterRef }).strict(),
    output: NodeListResult,
    description: 'Node inventory with health, read from the store.',
  }),
  /** One node's stored model. NOT_FOUND when absent. */
  'nodes:get': method({
    input: z.object({ cluster: ClusterRef, name: z.string().min(1).max(253) }).strict(),
    output: NodeModel,
    description: 'One node as stored: conditions, versions, addresses, taints.',
  }),
};
