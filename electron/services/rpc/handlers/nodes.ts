import { WindeckError } from '../../../../shared/contract/errors';
import type { ClusterSummary } from '../../../../shared/domain/cluster';
import type { ServiceCore } from '../../create-services';
import type { Handlers } from '../handler';

/** The cluster a call means: the named one, else the active one, else the only/first one. */
export function resolveCluster(core: ServiceCore, ref: string | undefined): ClusterSummary | null {
  if (ref) {
    const found = core.repos.clusters.find(ref);
    if (!found) throw new WindeckError('NOT_FOUND', `No cluster "${ref}" in the store. Run \`windeck nodes\` with its kubeconfig first, or pick one from the list.`, { cluster: ref });
    return found;
  }
  const active = core.repos.settings.get<string>('activeCluster');
  if (active) {
    const found = core.repos.clusters.get(active);
    if (found) return found;
  }
  return core.repos.clusters.list()[0] ?? null;
}

export const nodeHandlers: Pick<Handlers, 'clusters:list' | 'nodes:list' | 'nodes:get'> = {
  'clusters:list': (_input, { core }) => core.repos.clusters.list(),
  'nodes:list': (input, { core }) => {
    const cluster = resolveCluster(core, input.cluster);
    return { cluster, nodes: cluster ? core.repos.nodes.listSummaries(cluster.id) : [] };
  },
  'nodes:get': (input, { core }) => {
    const cluster = resolveCluster(core, input.cluster);
    const node = cluster ? core.repos.nodes.get(cluster.id, input.name) : null;
    if (!node) throw new WindeckError('NOT_FOUND', `Node "${input.name}" is not in the store for this cluster.`, { node: input.name, ...(cluster ? { cluster: cluster.context } : {}) });
    return node;
  },
};
