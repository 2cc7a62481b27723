import { WindeckError } from '../../../../shared/contract/errors';
import type { ClusterSummary } from '../../../../shared/domain/cluster';
import type { ServiceCore } from '../../create-services';
import { ProbeResultsRepo } from '../../store/repos/probe-results';
import { nodeLayout } from './node-layout';
import type { Handlers } from '../handler';

/** The cluster a call means: the named one, else the active one, else the only/first one. */
export function resolveCluster(core: ServiceCore, ref: string | undefined): ClusterSummary | null {
  if (ref) {
    const found = core.repos.clusters.find(ref);
    if (!found)
      throw new WindeckError('NOT_FOUND', `No cluster "${ref}" in the store. Run \`windeck nodes\` with its kubeconfig first, or pick one from the list.`, {
        cluster: ref,
      });
    return found;
  }
  const active = core.repos.settings.get<string>('activeCluster');
  if (active) {
    const found = core.repos.clusters.get(active);
    if (found) return found;
  }
  return core.repos.clusters.list()[0] ?? null;
}

/** What a `nodes:list` cursor names: the store (its epoch), the newest node revision covered, the cluster. */
export interface NodeCursor {
  epoch: string;
  rev: number;
  clusterId: string;
}

/** `n1.<epoch>.<rev>.<cluster id>`: opaque to clients. */
export function formatNodeCursor(c: NodeCursor): string {
  return `n1.${c.epoch}.${c.rev}.${c.clusterId}`;
}

/** Null for anything that is not a cursor this backend made (it then answers in full). */
export function parseNodeCursor(text: string): NodeCursor | null {
  const m = /^n1\.([0-9a-f]+)\.(\d{1,15})\.(.+)$/s.exec(text);
  if (!m) return null;
  return { epoch: m[1]!, rev: Number(m[2]), clusterId: m[3]! };
}

export const nodeHandlers: Pick<Handlers, 'clusters:list' | 'nodes:list' | 'nodes:get' | 'nodes:layout'> = {
  'clusters:list': (_input, { core }) => core.repos.clusters.list(),
  'nodes:list': (input, { core }) => {
    const cluster = resolveCluster(core, input.cluster);
    const revs = core.repos.nodes.revState();
    if (!cluster)
      return { cluster, nodes: [], probes: {}, cursor: formatNodeCursor({ epoch: revs.epoch, rev: revs.rev, clusterId: '' }), full: true, removed: [] };
    const cursor = formatNodeCursor({ epoch: revs.epoch, rev: revs.rev, clusterId: cluster.id });
    const since = input.since === undefined ? null : parseNodeCursor(input.since);
    // A delta only for a cursor of this store and cluster, not older than the pruned tombstones, not from the future.
    const delta = since !== null && since.epoch === revs.epoch && since.clusterId === cluster.id && since.rev >= revs.prunedRev && since.rev <= revs.rev;
    const changes = delta ? core.repos.nodes.changesSince(cluster.id, since.rev) : { changed: core.repos.nodes.listSummaries(cluster.id), removed: [] };
    if (delta && changes.changed.length === 0) return { cluster, nodes: [], probes: {}, cursor, full: false, removed: changes.removed };
    // Health joins the inventory's view with the stored findings (from diagnosis), so a Ready node whose
    // kube-proxy is stopped is not shown as healthy.
    const counts = core.repos.findings.countsByNode(cluster.id);
    // The probe brief per node comes from one query over the summary table that storing a probe keeps current.
    const probes = new ProbeResultsRepo(core.store.db).summaries(cluster.id);
    const nodes = changes.changed.map((n) => {
      const c = counts.get(n.name);
      if (!c || (c.error === 0 && c.warning === 0)) return n;
      const reasons = [...n.reasons];
      if (c.error > 0) reasons.push(`${c.error} error finding${c.error === 1 ? '' : 's'}`);
      if (c.warning > 0) reasons.push(`${c.warning} warning finding${c.warning === 1 ? '' : 's'}`);
      const health = n.health === 'unreachable' || n.health === 'error' ? n.health : c.error > 0 ? 'error' : n.health === 'healthy' ? 'warning' : n.health;
      return { ...n, health, reasons };
    });
    // Only nodes of the list (a node removed from the cluster keeps its summary row until it comes back).
    return {
      cluster,
      nodes,
      probes: Object.fromEntries(nodes.flatMap((n) => (probes.has(n.name) ? [[n.name, probes.get(n.name)!]] : []))),
      cursor,
      full: !delta,
      removed: changes.removed,
    };
  },
  'nodes:layout': (input, { core }) => {
    const cluster = resolveCluster(core, input.cluster);
    if (!cluster) throw new WindeckError('NOT_FOUND', 'No cluster in the store yet.', { node: input.name });
    return nodeLayout(core, cluster.id, input.name, cluster.syncedAt);
  },
  'nodes:get': (input, { core }) => {
    const cluster = resolveCluster(core, input.cluster);
    const node = cluster ? core.repos.nodes.get(cluster.id, input.name) : null;
    if (!node)
      throw new WindeckError('NOT_FOUND', `Node "${input.name}" is not in the store for this cluster.`, {
        node: input.name,
        ...(cluster ? { cluster: cluster.context } : {}),
      });
    return node;
  },
};
