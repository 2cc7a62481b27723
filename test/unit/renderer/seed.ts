import type { Services } from '../../../electron/services/create-services';
import type { NodeModel } from '../../../shared/domain/node';
import type { SyncState } from '../../../shared/domain/cluster';

/** A stored node model with plausible Windows defaults; override what the test is about. */
export function nodeModel(name: string, overrides: Partial<NodeModel> = {}): NodeModel {
  const windows = (overrides.os ?? 'windows') === 'windows';
  return {
    name,
    os: 'windows',
    ready: true,
    windowsBuild: windows ? 20348 : null,
    windowsRelease: windows ? 'Windows Server 2022' : null,
    kubeletVersion: 'v1.32.1',
    containerRuntime: 'containerd://1.7.20',
    internalIP: '127.0.10.11',
    podCount: 4,
    health: 'healthy',
    reasons: [],
    syncedAt: Date.now() - 3 * 60_000,
    uid: null,
    labels: { 'kubernetes.io/os': windows ? 'windows' : 'linux' },
    osImage: windows ? 'Windows Server 2022 Datacenter' : 'Debian GNU/Linux 12',
    kernelVersion: windows ? '10.0.20348.2762' : '6.1.0',
    kubeProxyVersion: 'v1.32.1',
    architecture: 'amd64',
    providerID: null,
    podCIDR: '10.244.1.0/24',
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
    taints: windows ? [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] : [],
    addresses: [{ type: 'InternalIP', address: '127.0.10.11' }],
    unschedulable: false,
    createdAt: '2025-01-01T00:00:00Z',
    ...overrides,
  };
}

/** Register a cluster with nodes in the real store, as the inventory sync would. */
export function seedCluster(
  services: Services,
  opts: { id?: string; name?: string; simulated?: boolean; syncState?: SyncState; syncedAt?: number; nodes: NodeModel[] },
): string {
  const { core } = services;
  const id = opts.id ?? 'demo@/tmp/kubeconfig';
  core.repos.clusters.upsert(
    {
      id,
      name: opts.name ?? 'windeck-demo',
      context: opts.name ?? 'windeck-demo',
      server: 'https://127.0.0.1:6443',
      kubeconfigPath: '/tmp/kubeconfig',
      simulated: opts.simulated ?? true,
    },
    Date.now(),
  );
  core.repos.clusters.setSync(id, opts.syncState ?? 'live', { syncedAt: opts.syncedAt ?? Date.now() - 3 * 60_000, kubernetesVersion: 'v1.32.0' });
  core.repos.nodes.replaceAll(id, opts.nodes);
  core.changed(['clusters', 'nodes'], id, null);
  return id;
}
