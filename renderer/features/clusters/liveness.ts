import type { ClusterSummary } from '../../../shared/domain/cluster';
import type { ConnectionState } from '../../api/transport';
import { assertNever } from '../../app/assert-never';

/** Whether what the screen shows is live, and if not, the one reason a user should read. */
export interface Liveness {
  live: boolean;
  /** Why live-only actions are disabled; null when live. */
  reason: string | null;
}

/**
 * Live means: the backend is connected AND the cluster's inventory sync is current. Anything else is stored
 * state, shown with its age, and actions that need a live session are disabled with this reason.
 */
export function liveness(connection: ConnectionState, cluster: ClusterSummary | null): Liveness {
  if (connection.status !== 'open') return { live: false, reason: 'The connection to the Windeck backend is down.' };
  if (!cluster) return { live: false, reason: 'No cluster is selected.' };
  const state = cluster.syncState;
  switch (state) {
    case 'live':
      return { live: true, reason: null };
    case 'syncing':
      return { live: false, reason: `Cluster ${cluster.name} is still syncing.` };
    case 'never':
      return { live: false, reason: `Cluster ${cluster.name} has never been synced.` };
    case 'stale':
      return { live: false, reason: `The sync with cluster ${cluster.name} has stalled.` };
    case 'offline':
      return { live: false, reason: `Cluster ${cluster.name} is unreachable.` };
    case 'auth-failed':
      return { live: false, reason: `Cluster ${cluster.name} refused the credentials${cluster.syncError ? `: ${cluster.syncError.replace(/\.$/, '')}` : ''}.` };
    case 'error':
      return { live: false, reason: `Syncing cluster ${cluster.name} failed${cluster.syncError ? `: ${cluster.syncError.replace(/\.$/, '')}` : ''}.` };
    default:
      return assertNever(state, 'sync state');
  }
}
