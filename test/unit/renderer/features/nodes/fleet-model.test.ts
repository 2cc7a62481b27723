import { describe, expect, it } from 'vitest';
import {
  EMPTY_FILTER,
  filterRows,
  nextSort,
  searchKey,
  sortRows,
  summarize,
  windowsLabel,
  type FleetRow,
} from '../../../../../renderer/features/nodes/fleet-model';
import { nodeModel } from '../../seed';

function row(name: string, overrides: Partial<FleetRow> = {}): FleetRow {
  const {
    uid: _u,
    labels: _l,
    osImage: _o,
    kernelVersion: _k,
    kubeProxyVersion: _p,
    architecture: _a,
    providerID: _pr,
    podCIDR: _c,
    conditions: _co,
    taints: _t,
    addresses: _ad,
    unschedulable: _un,
    createdAt: _cr,
    ...summary
  } = nodeModel(name, overrides);
  return { ...summary, findings: null, probe: null, ...overrides };
}

const rows: FleetRow[] = [
  row('win-10', { health: 'error', reasons: ['kube-proxy stopped'], findings: { error: 2, warning: 0, info: 1 } }),
  row('win-2', { health: 'healthy', podCount: 12, findings: { error: 0, warning: 0, info: 0 } }),
  row('linux-1', { os: 'linux', health: 'healthy', windowsBuild: null, windowsRelease: null, findings: { error: 0, warning: 1, info: 0 } }),
  row('win-3', { health: 'unreachable', ready: false, internalIP: '127.0.10.13', findings: { error: 0, warning: 3, info: 0 } }),
];

describe('fleet model', () => {
  it('filters by OS, health (including "not healthy"), findings and search', () => {
    expect(filterRows(rows, { ...EMPTY_FILTER, os: 'windows' }).map((r) => r.name)).toEqual(['win-10', 'win-2', 'win-3']);
    expect(filterRows(rows, { ...EMPTY_FILTER, health: 'problems' }).map((r) => r.name)).toEqual(['win-10', 'win-3']);
    expect(filterRows(rows, { ...EMPTY_FILTER, health: 'unreachable' }).map((r) => r.name)).toEqual(['win-3']);
    expect(filterRows(rows, { ...EMPTY_FILTER, finding: 'error' }).map((r) => r.name)).toEqual(['win-10']);
    expect(filterRows(rows, { ...EMPTY_FILTER, finding: 'any' }).map((r) => r.name)).toEqual(['win-10', 'linux-1', 'win-3']);
    expect(filterRows(rows, { ...EMPTY_FILTER, search: 'KUBE-PROXY' }).map((r) => r.name)).toEqual(['win-10']);
    expect(filterRows(rows, { ...EMPTY_FILTER, search: '10.13' }).map((r) => r.name)).toEqual(['win-3']);
    expect(filterRows(rows, { ...EMPTY_FILTER, os: 'windows', health: 'error', finding: 'error' }).map((r) => r.name)).toEqual(['win-10']);
  });

  it('a finding filter excludes rows whose findings are unknown', () => {
    const unknown = rows.map((r) => ({ ...r, findings: null }));
    expect(filterRows(unknown, { ...EMPTY_FILTER, finding: 'any' })).toEqual([]);
  });

  it('sorts naturally by name and worst-first by health, ties by name', () => {
    expect(sortRows(rows, { key: 'name', dir: 'asc' }).map((r) => r.name)).toEqual(['linux-1', 'win-2', 'win-3', 'win-10']);
    expect(sortRows(rows, { key: 'health', dir: 'desc' }).map((r) => r.name)).toEqual(['win-10', 'win-3', 'linux-1', 'win-2']);
    expect(sortRows(rows, { key: 'pods', dir: 'desc' })[0]?.name).toBe('win-2');
    expect(sortRows(rows, { key: 'findings', dir: 'desc' }).map((r) => r.name)).toEqual(['win-10', 'win-3', 'linux-1', 'win-2']);
  });

  it('does not mutate its input', () => {
    const copy = [...rows];
    sortRows(rows, { key: 'name', dir: 'desc' });
    expect(rows).toEqual(copy);
  });

  it('summarizes Windows, unhealthy, unreachable and NotReady counts', () => {
    expect(summarize(rows)).toEqual({ total: 4, windows: 3, unhealthy: 2, unreachable: 1, notReady: 1 });
  });

  it('flips the direction on the same column and starts health descending', () => {
    expect(nextSort({ key: 'name', dir: 'asc' }, 'name')).toEqual({ key: 'name', dir: 'desc' });
    expect(nextSort({ key: 'name', dir: 'asc' }, 'health')).toEqual({ key: 'health', dir: 'desc' });
    expect(nextSort({ key: 'health', dir: 'desc' }, 'pods')).toEqual({ key: 'pods', dir: 'asc' });
  });

  it('labels Windows release and build', () => {
    expect(windowsLabel({ os: 'windows', windowsRelease: 'Windows Server 2019', windowsBuild: 17763 })).toBe('Windows Server 2019 (17763)');
    expect(windowsLabel({ os: 'windows', windowsRelease: null, windowsBuild: 20348 })).toBe('build 20348');
    expect(windowsLabel({ os: 'linux', windowsRelease: null, windowsBuild: null })).toBe('—');
  });

  it('filters and sorts 5,000 rows quickly', () => {
    const many: FleetRow[] = Array.from({ length: 5000 }, (_, i) =>
      row(`node-${i}`, { health: i % 7 === 0 ? 'error' : 'healthy', os: i % 3 === 0 ? 'linux' : 'windows' }),
    );
    const t0 = performance.now();
    const shown = sortRows(filterRows(many, { ...EMPTY_FILTER, os: 'windows', health: 'problems', search: 'node' }), { key: 'name', dir: 'desc' });
    const ms = performance.now() - t0;
    expect(shown.length).toBe(many.filter((r) => r.os === 'windows' && r.health === 'error').length);
    expect(ms).toBeLessThan(500);
  });

  it('searches a lower-cased key built once per row, never across two fields', () => {
    const r = row('Win-A', { internalIP: '10.0.0.7', reasons: ['Kubelet NotReady'], kubeletVersion: 'v1.30.2' });
    const key = searchKey(r);
    expect(searchKey(r)).toBe(key); // cached for the row object
    expect(key).toContain('kubelet notready');
    expect(filterRows([r], { ...EMPTY_FILTER, search: 'NOTREADY' }).map((x) => x.name)).toEqual(['Win-A']);
    expect(filterRows([r], { ...EMPTY_FILTER, search: '  win-a ' }).map((x) => x.name)).toEqual(['Win-A']);
    // "7" ends the IP and "v1" starts the kubelet version: no match that spans the two fields.
    expect(filterRows([r], { ...EMPTY_FILTER, search: '7v1' })).toEqual([]);
  });
});
