import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeLayoutResult } from '../../../../../shared/contract/methods/nodes';
import { PodsRepo } from '../../../../../electron/services/store/repos/pods';
import { ProbeResultsRepo, type ProbeResultInput } from '../../../../../electron/services/store/repos/probe-results';
import { probeRun } from '../../../../helpers/probe-run';
import { testServices } from '../../../../helpers/services';
import { nodeModel, seedCluster } from '../../../renderer/seed';

// `nodes:layout` over a real store: stored probe results (as the probes store them) and stored pods, through the
// restart engine's detection.
let env: ReturnType<typeof testServices>;
let clusterId = '';

function run(node: string, probeId: string, parsed: unknown, startedAt: number): ProbeResultInput {
  return probeRun({ clusterId, node, probeId, parsed, startedAt, durationMs: 3 });
}

async function layout(name: string): Promise<NodeLayoutResult> {
  const r = await env.services.dispatch('nodes:layout', { name });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value as NodeLayoutResult;
}

beforeAll(() => {
  env = testServices();
  clusterId = seedCluster(env.services, { nodes: [nodeModel('win-1'), nodeModel('win-2')] });
  env.services.core.repos.settings.set('activeCluster', clusterId);
  const repo = new ProbeResultsRepo(env.services.core.store.db);
  const svc = (name: string, status: string) => ({ name, displayName: name, status, startType: 'Automatic' });
  repo.insert(
    run(
      'win-1',
      'services',
      { services: [svc('kubelet', 'Running'), svc('containerd', 'Running'), svc('hns', 'Running')], missing: ['kube-proxy', 'flanneld'] },
      1_000,
    ),
  );
  repo.insert(
    run(
      'win-1',
      'service-config',
      [
        {
          name: 'kubelet',
          displayName: 'kubelet',
          state: 'Running',
          startType: 'Automatic',
          pathName: 'C:\\k\\nssm.exe',
          startName: 'LocalSystem',
          processId: 4100,
          dependOnService: ['containerd'],
          nssm: {
            application: 'C:\\k\\kubelet.exe',
            appParameters: '--v=2 --config=c:\\var\\lib\\kubelet\\config.yaml',
            appDirectory: 'C:\\k',
            appEnvironmentExtra: [],
          },
          commandLine: 'C:\\k\\kubelet.exe --v=2',
        },
        {
          name: 'containerd',
          displayName: 'containerd',
          state: 'Running',
          startType: 'Automatic',
          pathName: 'C:\\Program Files\\containerd\\containerd.exe --run-service',
          startName: 'LocalSystem',
          processId: 3000,
          dependOnService: [],
          nssm: null,
          commandLine: '',
        },
      ],
      1_100,
    ),
  );
  repo.insert(
    run(
      'win-1',
      'processes',
      [
        { pid: 5000, parentPid: 4000, name: 'flanneld.exe', commandLine: 'C:\\k\\flanneld.exe --kube-subnet-mgr', startedAt: null },
        { pid: 4000, parentPid: 1, name: 'powershell.exe', commandLine: 'powershell C:\\k\\start.ps1', startedAt: null },
      ],
      1_200,
    ),
  );
  new PodsRepo(env.services.core.store.db).replaceAll(clusterId, [
    {
      namespace: 'kube-system',
      name: 'kube-proxy-windows-abcde',
      uid: null,
      node: 'win-1',
      phase: 'Running',
      status: 'Running',
      readyCount: 1,
      containerCount: 1,
      restarts: 0,
      podIP: null,
      ownerKind: 'DaemonSet',
      ownerName: 'kube-proxy-windows',
      createdAt: null,
    },
  ]);
});
afterAll(async () => {
  await env.cleanup();
});

describe('nodes:layout', () => {
  it('detects each component from the stored probes and pods with the restart engine', async () => {
    const r = await layout('win-1');
    expect(r).toMatchObject({ node: 'win-1', probedAt: 1_200, oldestAt: 1_000, missing: [] });
    const by = Object.fromEntries(r.components.map((c) => [c.component, c]));
    expect(Object.keys(by)).toEqual(['kubelet', 'kube-proxy', 'flanneld', 'containerd', 'hns']);
    expect(by.kubelet).toMatchObject({ method: 'nssm-service', realName: 'kubelet', refusal: null });
    expect(by.kubelet!.layout).toMatch(/nssm service "kubelet" running C:\\k\\kubelet\.exe \(2 arguments/);
    // Arguments are never echoed.
    expect(by.kubelet!.layout).not.toContain('config.yaml');
    expect(by['kube-proxy']).toMatchObject({ method: 'daemonset-pod', realName: 'kube-system/kube-proxy-windows-abcde' });
    expect(by.flanneld).toMatchObject({ method: 'bare-process', realName: 'flanneld.exe' });
    expect(by.flanneld!.refusal).not.toBeNull();
    expect(by.containerd).toMatchObject({ method: 'service', realName: 'containerd' });
    expect(by.hns).toMatchObject({ method: 'service', realName: 'hns' });
  });

  it('says "not probed" for a node without a stored services probe', async () => {
    const r = await layout('win-2');
    expect(r).toEqual({
      node: 'win-2',
      probedAt: null,
      oldestAt: null,
      podsSyncedAt: expect.any(Number),
      missing: ['services', 'service-config', 'processes'],
      components: [],
    });
  });
});
