import type { Handlers } from '../handler';
import { PodsRepo } from '../../store/repos/pods';
import { resolveCluster } from './nodes';

/** Thin: the pods repo filters, sorts and windows in SQLite. */
export const podHandlers: Pick<Handlers, 'pods:list'> = {
  'pods:list': (input, { core }) => {
    const cluster = resolveCluster(core, input.cluster);
    if (!cluster) return { cluster, total: 0, offset: input.offset, pods: [], namespaces: [] };
    const repo = new PodsRepo(core.store.db);
    const { total, pods } = repo.page(cluster.id, input);
    return { cluster, total, offset: input.offset, pods, namespaces: repo.namespaces(cluster.id) };
  },
};
