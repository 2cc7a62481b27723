/**
 * Facts from the cluster inventory: a stored Node object becomes the same `node-info` fact a pasted
 * `kubectl describe node` gives, so the rules compare probe evidence with the node's InternalIP, PodCIDR,
 * versions and OS image the same way online and offline.
 */
import type { NodeModel } from '../domain/node';
import { makeFact, type Fact } from './facts';

/** One `node-info` fact for a stored node. */
export function nodeModelFacts(node: NodeModel, source = 'cluster:nodes'): Fact[] {
  const ready = node.conditions.find((c) => c.type === 'Ready')?.status ?? null;
  return [
    makeFact('node-info', { source, node: node.name }, null, `Node ${node.name}: ${node.osImage ?? ''} ${node.kernelVersion ?? ''} ${node.containerRuntime ?? ''} kubelet ${node.kubeletVersion ?? '?'} InternalIP ${node.internalIP ?? '?'}`.replace(/\s+/g, ' '), {
      name: node.name,
      ready: ready === null ? null : ready === 'True',
      readyStatus: ready,
      os: node.os,
      kubeletVersion: node.kubeletVersion,
      kubeProxyVersion: node.kubeProxyVersion,
      osImage: node.osImage,
      kernelVersion: node.kernelVersion,
      containerRuntime: node.containerRuntime,
      internalIP: node.internalIP,
      podCIDR: node.podCIDR,
      taints: node.taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`),
      roles: null,
      format: 'node-model',
    }),
  ];
}
