import { useState } from 'react';
import type { ClusterSummary } from '../../../shared/domain/cluster';
import { Age } from '../../components/age';
import { SyncBadge } from '../../components/status-badge';
import { ClustersPanel } from './clusters-panel';
import './clusters.css';

/**
 * Pick the cluster to look at (stored data of any cluster); shows its sync state and how old its data is. The
 * disclosure lists kubeconfig contexts, switches the live source, syncs now, and adds kubeconfig files.
 */
export function ClusterPicker({
  clusters,
  active,
  onSelect,
}: {
  clusters: readonly ClusterSummary[];
  active: ClusterSummary | null;
  onSelect: (id: string) => void;
}) {
  const [open, setOpen] = useState(false);
  return (
    <div className="cluster-picker">
      <label htmlFor="cluster-select" className="visually-hidden">
        Cluster
      </label>
      <select id="cluster-select" value={active?.id ?? ''} onChange={(e) => onSelect(e.target.value)} disabled={clusters.length === 0}>
        {clusters.length === 0 && <option value="">No clusters</option>}
        {clusters.map((c) => (
          <option key={c.id} value={c.id}>
            {c.simulated ? `${c.name} (simulated)` : c.name}
          </option>
        ))}
      </select>
      <details className="add-cluster" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>Add cluster · switch context</summary>
        {open && (
          <div className="add-cluster-body">
            <ClustersPanel clusters={clusters} onSelect={onSelect} />
          </div>
        )}
      </details>
      {active && (
        <span className="cluster-sync" aria-label={`Sync state of ${active.name}`} role="group" title={active.syncError ?? undefined}>
          <SyncBadge state={active.syncState} />
          {active.syncState !== 'live' && <Age at={active.syncedAt} />}
        </span>
      )}
    </div>
  );
}

/** Impossible to miss: this cluster is the built-in simulator, not a real one. */
export function SimulatedBadge() {
  return (
    <strong className="simulated-badge" title="Nodes, pods and Windows hosts here are simulated on this machine (127.0.0.0/8). Nothing real is touched.">
      SIMULATED DEMO CLUSTER
    </strong>
  );
}
