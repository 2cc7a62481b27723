import type { Migration } from '../migration';

/**
 * Cluster inventory beyond the node rows (0001): what the list+watch of each cluster keeps.
 * - pods: one row per pod with the columns the node views show (no spec: 150,000 rows must stay small);
 * - kube_events: Kubernetes Events (the object they are about, reason, message, counts, times);
 * - daemonsets: the DaemonSet projection (template included, for the layout and lint);
 * - workloads: pod-template projections of Deployments/DaemonSets/StatefulSets/Jobs/CronJobs and bare Pods,
 *   written by `lint-workloads` so it can run offline;
 * - inventory_status: per cluster and resource, the reflector's state and counters (relists, stalls,
 *   garbage lines) so the UI and CLI can report them.
 * `gen` is the sync generation that last wrote a row: a full relist writes rows with a new generation in
 * short transactions, then deletes the older ones.
 */
export const m0010ClusterInventory: Migration = {
  version: 10,
  name: 'cluster-inventory',
  up(db) {
    db.exec(`
      CREATE TABLE pods (
        cluster_id TEXT NOT NULL,
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        node TEXT,
        phase TEXT,
        status TEXT,
        ready_count INTEGER NOT NULL DEFAULT 0,
        container_count INTEGER NOT NULL DEFAULT 0,
        restarts INTEGER NOT NULL DEFAULT 0,
        pod_ip TEXT,
        owner_kind TEXT,
        owner_name TEXT,
        created_at TEXT,
        gen INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (cluster_id, namespace, name)
      );
      CREATE INDEX pods_node ON pods(cluster_id, node);
      CREATE TABLE kube_events (
        cluster_id TEXT NOT NULL,
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        object_kind TEXT,
        object_namespace TEXT,
        object_name TEXT,
        type TEXT,
        reason TEXT,
        message TEXT,
        count INTEGER NOT NULL DEFAULT 1,
        first_seen TEXT,
        last_seen TEXT,
        source TEXT,
        gen INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (cluster_id, namespace, name)
      );
      CREATE INDEX kube_events_object ON kube_events(cluster_id, object_kind, object_name);
      CREATE TABLE daemonsets (
        cluster_id TEXT NOT NULL,
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        desired INTEGER NOT NULL DEFAULT 0,
        ready INTEGER NOT NULL DEFAULT 0,
        data TEXT NOT NULL,
        gen INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (cluster_id, namespace, name)
      );
      CREATE TABLE workloads (
        cluster_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        data TEXT NOT NULL,
        synced_at INTEGER NOT NULL,
        PRIMARY KEY (cluster_id, kind, namespace, name)
      );
      CREATE TABLE inventory_status (
        cluster_id TEXT NOT NULL,
        resource TEXT NOT NULL,
        state TEXT NOT NULL,
        resource_version TEXT,
        items INTEGER NOT NULL DEFAULT 0,
        stats TEXT NOT NULL DEFAULT '{}',
        last_error TEXT,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (cluster_id, resource)
      );
    `);
  },
};
