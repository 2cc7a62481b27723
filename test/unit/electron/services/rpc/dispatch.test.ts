import { afterEach, describe, expect, it } from 'vitest';
import { createDispatch } from '../../../../../electron/services/rpc/dispatch';
import { HANDLERS } from '../../../../../electron/services/rpc/handlers';
import type { Handlers } from '../../../../../electron/services/rpc/handler';
import { WindeckError } from '../../../../../shared/contract/errors';
import { METHODS } from '../../../../../shared/contract/methods';
import { testServices } from '../../../../helpers/services';

const envs: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (envs.length) await envs.pop()?.();
});
function env() {
  const e = testServices();
  envs.push(e.cleanup);
  return e;
}

describe('dispatch', () => {
  it('has exactly one handler per contract method', () => {
    expect(Object.keys(HANDLERS).sort()).toEqual(Object.keys(METHODS).sort());
  });

  it('answers app:info in an ok envelope', async () => {
    const { services, home } = env();
    const result = await services.dispatch('app:info', {});
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.value).toMatchObject({ name: 'Windeck', home, host: 'test', storeNotice: null });
  });

  it('rejects an unknown method and invalid input with VALIDATION', async () => {
    const { services } = env();
    const unknown = await services.dispatch('nodes:explode', {});
    expect(unknown).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    const invalid = await services.dispatch('nodes:get', { name: 42 });
    expect(invalid).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    if (!invalid.ok) expect(invalid.error.message).toMatch(/name/);
    const extra = await services.dispatch('app:info', { surprise: true });
    expect(extra).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
  });

  it('turns a WindeckError into its envelope and anything else into INTERNAL with a log reference', async () => {
    const { services } = env();
    const notFound = await services.dispatch('nodes:get', { name: 'win-1' });
    expect(notFound).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', retryable: false } });

    const handlers = {
      ...HANDLERS,
      'app:info': () => {
        throw new Error('secret-ish internal detail at /root/x.ts:12');
      },
      'clusters:list': () => {
        throw new WindeckError('UNREACHABLE', 'The API server did not answer.', { cluster: 'c1' });
      },
    } as Handlers;
    const dispatch = createDispatch(handlers, services.core);
    const internal = await dispatch('app:info', {});
    expect(internal.ok).toBe(false);
    if (!internal.ok) {
      expect(internal.error.code).toBe('INTERNAL');
      expect(internal.error.message).not.toContain('/root/x.ts');
      expect(internal.error.context?.logRef).toMatch(/^[0-9a-f]{8}$/);
    }
    const unreachable = await dispatch('clusters:list', {});
    expect(unreachable).toMatchObject({ ok: false, error: { code: 'UNREACHABLE', retryable: true, context: { cluster: 'c1' } } });
  });

  it('reads nodes from the store for the active cluster', async () => {
    const { services } = env();
    const { clusters, nodes, settings } = services.core.repos;
    clusters.upsert({ id: 'c1', name: 'c1', context: 'c1', server: 'https://127.0.0.1:6443', kubeconfigPath: null, simulated: true }, 1);
    nodes.upsertMany('c1', [
      {
        name: 'win-1', os: 'windows', ready: true, windowsBuild: 17763, windowsRelease: 'Windows Server 2019', kubeletVersion: 'v1.32.0', containerRuntime: 'containerd://1.7.0',
        internalIP: '127.0.10.11', podCount: 3, health: 'healthy', reasons: [], syncedAt: 5, uid: null, labels: {}, osImage: null, kernelVersion: null, kubeProxyVersion: null,
        architecture: 'amd64', providerID: null, podCIDR: null, conditions: [], taints: [], addresses: [], unschedulable: false, createdAt: null,
      },
    ]);
    settings.set('activeCluster', 'c1');
    const list = await services.dispatch('nodes:list', {});
    expect(list.ok).toBe(true);
    if (list.ok) {
      const value = list.value as { cluster: { id: string; nodeCount: number; windowsNodeCount: number }; nodes: Array<{ name: string }> };
      expect(value.cluster).toMatchObject({ id: 'c1', nodeCount: 1, windowsNodeCount: 1 });
      expect(value.nodes.map((n) => n.name)).toEqual(['win-1']);
      expect(Object.keys(value.nodes[0] as object).sort()).toEqual(
        ['name', 'os', 'ready', 'windowsBuild', 'windowsRelease', 'kubeletVersion', 'containerRuntime', 'internalIP', 'podCount', 'health', 'reasons', 'syncedAt'].sort(),
      );
      expect(value.nodes[0]).toMatchObject({ health: 'healthy', reasons: [] });
    }
    // A stored error finding makes a Ready node unhealthy in the fleet view.
    services.core.repos.findings.replace('c1', 'win-1', 'diagnose', [
      { ruleId: 'service-not-running', severity: 'error', node: 'win-1', title: 'kube-proxy is not running', evidence: [], remediation: { summary: '', steps: [], commands: [], links: [] } },
    ], 10);
    const after = await services.dispatch('nodes:list', {});
    expect(after.ok && (after.value as { nodes: Array<{ health: string; reasons: string[] }> }).nodes[0]).toMatchObject({ health: 'error', reasons: ['1 error finding'] });
  });
});
