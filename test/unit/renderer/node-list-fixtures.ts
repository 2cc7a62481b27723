import type { NodeListResult } from '../../../shared/contract/methods/nodes';

/** A healthy Windows node's summary row as `nodes:list` sends it (renderer node-list tests). */
export const nodeSummary = (name: string, runtime = 'containerd://1') => ({
  name,
  os: 'windows' as const,
  ready: true,
  windowsBuild: 20348,
  windowsRelease: 'Windows Server 2022',
  kubeletVersion: 'v1.32.1',
  containerRuntime: runtime,
  internalIP: null,
  podCount: 1,
  health: 'healthy' as const,
  reasons: [],
  syncedAt: 1,
});

/** A `nodes:list` answer: a delta with nothing in it unless `over` says otherwise. */
export const nodeListAnswer = (over: Partial<NodeListResult>): NodeListResult => ({
  cluster: null,
  nodes: [],
  probes: {},
  cursor: 'c',
  full: false,
  removed: [],
  ...over,
});
