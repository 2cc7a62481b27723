import { WindeckError } from '../../../shared/contract/errors';
import type { ServiceCore } from '../create-services';
import { kubeInventory } from '../kube/inventory';
import { probeService } from '../probes/probe-service';
import { probeFindings } from './findings';
import { KubeRestartApi } from './kube-access';
import { TransportNodeHost } from './node-host';
import type { RestartKube, RestartPorts } from './ports';

/** A cluster that could not be opened: every read fails with the reason, which the pre-checks then show. */
function unreachableKube(error: unknown): RestartKube {
  const fail = async (): Promise<never> => {
    throw error;
  };
  return { node: fail, podsOnNode: fail, deletePod: fail, setUnschedulable: fail, evictPod: fail };
}

/**
 * The ports the product uses: the node's transport as `windeck probe` picks it (endpoints, credentials and host
 * keys from the store, SSH then WinRM, or the one asked for), the cluster's API through the kubeconfig the cluster
 * was registered with (or the one the caller named), and the diagnostics engine over the same transport.
 */
export function defaultRestartPorts(core: ServiceCore): RestartPorts {
  return {
    async openNode(target, signal) {
      if (!target.clusterId) {
        throw new WindeckError('NOT_FOUND', 'No cluster: give --kubeconfig (and --context), or run `windeck nodes` against a cluster first.', {
          node: target.node,
        });
      }
      const clusterId = target.clusterId;
      const { transport } = await probeService(core).openNode({ cluster: clusterId, node: target.node, transport: target.transport ?? 'auto', signal });
      return new TransportNodeHost(transport, { findings: probeFindings(core, clusterId, target.node) });
    },
    async kube(target) {
      const kubeconfig = target.kubeconfig ?? target.cluster?.kubeconfigPath ?? null;
      const context = target.context ?? target.cluster?.context ?? null;
      if (!kubeconfig && !context && !target.cluster) return null;
      try {
        const inventory = kubeInventory(core);
        const { ctx } = inventory.resolve({ kubeconfig, context });
        return new KubeRestartApi(inventory.client(ctx), true);
      } catch (error) {
        return unreachableKube(error);
      }
    },
  };
}
