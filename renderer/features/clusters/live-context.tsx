import { createContext, useContext } from 'react';
import type { ClusterSummary } from '../../../shared/domain/cluster';
import type { Liveness } from './liveness';

export interface ActiveCluster {
  cluster: ClusterSummary | null;
  liveness: Liveness;
}

export const ActiveClusterContext = createContext<ActiveCluster>({ cluster: null, liveness: { live: false, reason: 'No cluster is selected.' } });

/** The cluster every screen is about, and whether it is live. */
export function useActiveCluster(): ActiveCluster {
  return useContext(ActiveClusterContext);
}
