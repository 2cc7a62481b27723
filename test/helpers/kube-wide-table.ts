import type { NodeObject } from '../../shared/logic/node-model';

/**
 * Read a `kubectl get nodes -o wide` table as printed (columns found by header offsets, because OS-IMAGE holds
 * spaces) and rebuild the Node objects it shows. Test helper for the real samples in test/fixtures/samples/nodes.
 */
export function nodesFromWideTable(text: string): NodeObject[] {
  const lines = text.split(/\r?\n/);
  const headerAt = lines.findIndex((l) => /^NAME\s+STATUS\s+ROLES/.test(l));
  if (headerAt < 0) return [];
  const header = lines[headerAt]!;
  const names = ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME'];
  const starts = names.map((n) => header.indexOf(n));
  const out: NodeObject[] = [];
  for (const line of lines.slice(headerAt + 1)) {
    if (line.trim() === '' || line.startsWith('$')) break;
    const cell = (i: number) => line.slice(starts[i]!, i + 1 < starts.length ? starts[i + 1] : undefined).trim();
    const name = cell(0).replace(/^node\//, '');
    const kernel = cell(8);
    const windows = /^10\.0\.\d+/.test(kernel);
    out.push({
      metadata: { name, labels: { 'kubernetes.io/os': windows ? 'windows' : 'linux', 'kubernetes.io/hostname': name } },
      spec: {},
      status: {
        conditions: [{ type: 'Ready', status: cell(1).startsWith('Ready') ? 'True' : 'False', reason: 'KubeletReady' }],
        addresses: [{ type: 'InternalIP', address: cell(5) }],
        nodeInfo: { kubeletVersion: cell(4), osImage: cell(7), kernelVersion: kernel, containerRuntimeVersion: cell(9), operatingSystem: windows ? 'windows' : 'linux', architecture: 'amd64' },
      },
    });
  }
  return out;
}
