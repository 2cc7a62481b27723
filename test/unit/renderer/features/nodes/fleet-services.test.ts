import { describe, expect, it } from 'vitest';
import type { NodeProbeBrief } from '../../../../../shared/contract/methods/nodes';
import {
  EMPTY_FILTER,
  filterRows,
  nextSort,
  servicesNotRunning,
  servicesText,
  sortRows,
  type FleetRow,
} from '../../../../../renderer/features/nodes/fleet-model';

function row(name: string, probe: NodeProbeBrief | null): FleetRow {
  return {
    name,
    os: 'windows',
    ready: true,
    windowsBuild: 20348,
    windowsRelease: 'Windows Server 2022',
    kubeletVersion: 'v1.29.2',
    containerRuntime: 'containerd://1.7.13',
    internalIP: null,
    podCount: 3,
    health: 'healthy',
    reasons: [],
    syncedAt: 1,
    findings: null,
    probe,
  };
}
const brief = (services: Record<string, string> | null, probedAt = 100, servicesOk: boolean | null = true): NodeProbeBrief => ({
  probedAt,
  servicesAt: probedAt,
  servicesOk,
  services,
});

const rows = [
  row('win-1', brief({ kubelet: 'Running', 'kube-proxy': 'Running', hns: 'Running' }, 300)),
  row('win-2', brief({ kubelet: 'Running', 'kube-proxy': 'Stopped', hns: 'Running' }, 200)),
  row('win-3', null),
  row('win-4', brief(null, 400, false)),
  row('win-5', brief({ kubelet: 'StartPending', flanneld: 'Stopped' }, 50)),
];

describe('fleet services', () => {
  it('says the states in words for the accessible text', () => {
    expect(servicesText(rows[1]!.probe)).toBe('kubelet running, kube-proxy stopped, hns running');
    expect(servicesText(null)).toBe('not probed yet');
    expect(servicesText(rows[3]!.probe)).toBe('services probe failed');
    expect(servicesText(brief({}))).toBe('no component service on the node');
    expect(servicesNotRunning(rows[4]!.probe)).toEqual([
      ['kubelet', 'StartPending'],
      ['flanneld', 'Stopped'],
    ]);
  });

  it('filters nodes with a service not running (unprobed and failed probes are not claimed to have one)', () => {
    expect(filterRows(rows, { ...EMPTY_FILTER, service: 'not-running' }).map((r) => r.name)).toEqual(['win-2', 'win-5']);
    expect(filterRows(rows, EMPTY_FILTER)).toHaveLength(5);
  });

  it('sorts by services (worst first) and by last probed', () => {
    const byServices = nextSort({ key: 'name', dir: 'asc' }, 'services');
    expect(byServices.dir).toBe('desc');
    expect(sortRows(rows, byServices).map((r) => r.name)).toEqual(['win-4', 'win-5', 'win-2', 'win-1', 'win-3']);
    expect(sortRows(rows, { key: 'probedAt', dir: 'desc' }).map((r) => r.name)).toEqual(['win-4', 'win-1', 'win-2', 'win-5', 'win-3']);
  });
});
