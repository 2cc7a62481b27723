import { WindeckError, isWindeckError } from '../../../shared/contract/errors';
import { KubeStatusError, readBody, type KubeClient } from '../kube/client';
import type { KubeNodeState, KubePod, RestartKube } from './ports';

/**
 * RestartKube over Windeck's Kubernetes client: the node, the pods bound to it (field selector
 * `spec.nodeName`), pod deletion, cordon/uncordon (merge patch of `spec.unschedulable`) and evictions (policy/v1).
 * Keeps only the fields the restart engine reads.
 */

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {};
}

function arr(v: unknown): Obj[] {
  return Array.isArray(v) ? v.map(obj) : [];
}

function s(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function seg(value: string): string {
  return encodeURIComponent(value);
}

/** The Ready condition, unschedulable flag and pod CIDR of a Node object. */
export function projectNode(raw: unknown): KubeNodeState {
  const o = obj(raw);
  const spec = obj(o.spec);
  const ready = arr(obj(o.status).conditions).find((c) => c.type === 'Ready');
  return {
    ready: ready ? (ready.status === 'True' ? true : ready.status === 'False' ? false : null) : null,
    readyReason: ready ? (s(ready.reason) ?? s(ready.message)) : null,
    unschedulable: spec.unschedulable === true,
    podCIDR: s(spec.podCIDR),
  };
}

/** What the restart engine keeps of a Pod object. */
export function projectPod(raw: unknown): KubePod | null {
  const o = obj(raw);
  const meta = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  const name = s(meta.name);
  const namespace = s(meta.namespace);
  if (!name || !namespace) return null;
  const owners = arr(meta.ownerReferences);
  const owner = owners.find((r) => r.controller === true) ?? owners[0];
  const containers = arr(spec.containers);
  const hostProcess =
    obj(obj(spec.securityContext).windowsOptions).hostProcess === true ||
    containers.some((c) => obj(obj(c.securityContext).windowsOptions).hostProcess === true);
  return {
    namespace,
    name,
    uid: s(meta.uid),
    phase: s(status.phase),
    ready: arr(status.conditions).some((c) => c.type === 'Ready' && c.status === 'True'),
    ownerKind: owner ? s(owner.kind) : null,
    ownerName: owner ? s(owner.name) : null,
    hostProcess,
    hostNetwork: spec.hostNetwork === true,
    containers: containers.map((c) => s(c.name) ?? '').filter((n) => n !== ''),
    mirror: typeof obj(meta.annotations)['kubernetes.io/config.mirror'] === 'string',
    deleting: typeof meta.deletionTimestamp === 'string',
  };
}

export class KubeRestartApi implements RestartKube {
  /** `ownsClient`: close() closes the client too (the default ports make one per restart). */
  constructor(
    private readonly client: KubeClient,
    private readonly ownsClient = false,
  ) {}

  close(): void {
    if (this.ownsClient) this.client.close();
  }

  async node(name: string, signal: AbortSignal): Promise<KubeNodeState | null> {
    try {
      return projectNode(await this.client.getJson(`/api/v1/nodes/${seg(name)}`, { signal }));
    } catch (error) {
      if (isWindeckError(error) && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  }

  async podsOnNode(name: string, signal: AbortSignal): Promise<KubePod[]> {
    const out: KubePod[] = [];
    let cont: string | null = null;
    do {
      const page: Awaited<ReturnType<KubeClient['listPage']>> = await this.client.listPage(
        '/api/v1/pods',
        { limit: 500, continue: cont, fieldSelector: `spec.nodeName=${name}` },
        projectPod,
        { signal },
      );
      out.push(...(page.items as KubePod[]));
      cont = page.continue;
    } while (cont);
    return out;
  }

  async deletePod(namespace: string, name: string, signal: AbortSignal): Promise<void> {
    try {
      const res = await this.client.open(`/api/v1/namespaces/${seg(namespace)}/pods/${seg(name)}`, { method: 'DELETE', signal });
      await readBody(res, 1024 * 1024, signal);
    } catch (error) {
      // Gone already is what we wanted.
      if (isWindeckError(error) && error.code === 'NOT_FOUND') return;
      throw error;
    }
  }

  async setUnschedulable(node: string, value: boolean, signal: AbortSignal): Promise<void> {
    await this.client.patch(`/api/v1/nodes/${seg(node)}`, { spec: { unschedulable: value } }, { signal });
  }

  /**
   * Evict (policy/v1 Eviction; a PodDisruptionBudget answers 429, which the caller retries). An API server without
   * the eviction subresource (404/405) gets a plain delete, as `kubectl drain` falls back to.
   */
  async evictPod(namespace: string, name: string, signal: AbortSignal): Promise<void> {
    try {
      const body = JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } });
      const res = await this.client.open(`/api/v1/namespaces/${seg(namespace)}/pods/${seg(name)}/eviction`, { method: 'POST', body, signal });
      await readBody(res, 1024 * 1024, signal);
    } catch (error) {
      if (error instanceof KubeStatusError && (error.status === 404 || error.status === 405)) {
        await this.deletePod(namespace, name, signal);
        return;
      }
      if (error instanceof KubeStatusError && error.status === 429) {
        throw new WindeckError(
          'CONFLICT',
          `Evicting ${namespace}/${name} would violate its PodDisruptionBudget (429); retrying.`,
          { step: 'drain' },
          { cause: error },
        );
      }
      throw error;
    }
  }
}
