import type { NodeHealth, NodeOs, NodeSummary } from '../../../shared/domain/node';
import type { Severity } from '../../../shared/domain/finding';
import type { NodeProbeBrief } from '../../../shared/contract/methods/nodes';

export interface FindingCounts {
  error: number;
  warning: number;
  info: number;
}

/**
 * A fleet table row: the stored node summary plus its open findings (null when findings are not known) and its
 * probe brief (null: never probed).
 */
export interface FleetRow extends NodeSummary {
  findings: FindingCounts | null;
  probe: NodeProbeBrief | null;
}

export type OsFilter = 'all' | NodeOs;
export type HealthFilter = 'all' | 'problems' | NodeHealth;
export type FindingFilter = 'all' | 'any' | Severity;
/** `not-running`: the newest services probe shows a component service in another state than Running. */
export type ServiceFilter = 'all' | 'not-running';

export interface FleetFilter {
  os: OsFilter;
  health: HealthFilter;
  finding: FindingFilter;
  service: ServiceFilter;
  search: string;
}

export const EMPTY_FILTER: FleetFilter = { os: 'all', health: 'all', finding: 'all', service: 'all', search: '' };

export const SORT_KEYS = ['name', 'os', 'windows', 'kubelet', 'runtime', 'ready', 'pods', 'services', 'health', 'findings', 'probedAt', 'syncedAt'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export interface SortSpec {
  key: SortKey;
  dir: 'asc' | 'desc';
}

export const DEFAULT_SORT: SortSpec = { key: 'name', dir: 'asc' };

/** Worst first: what needs attention sorts to the top when sorting by health descending. */
const HEALTH_RANK: Record<NodeHealth, number> = { healthy: 0, unknown: 1, warning: 2, unreachable: 3, error: 4 };

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

function findingsScore(f: FindingCounts | null): number {
  return f ? f.error * 1_000_000 + f.warning * 1_000 + f.info : -1;
}

/** Component services whose newest state is not Running, as `[name, state]`, in column order. */
export function servicesNotRunning(probe: NodeProbeBrief | null): Array<[string, string]> {
  if (!probe?.services) return [];
  return Object.entries(probe.services).filter(([, state]) => state !== 'Running');
}

/** "kubelet running, kube-proxy stopped": the services cell's accessible text. */
export function servicesText(probe: NodeProbeBrief | null): string {
  if (!probe) return 'not probed yet';
  if (probe.servicesOk === false) return 'services probe failed';
  if (!probe.services) return 'services not probed yet';
  const entries = Object.entries(probe.services);
  if (entries.length === 0) return 'no component service on the node';
  return entries.map(([name, state]) => `${name} ${state.toLowerCase()}`).join(', ');
}

/** For sorting: failed or unknown probes first among the probed, then by how many services are not running. */
function servicesScore(probe: NodeProbeBrief | null): number {
  if (!probe || (probe.services === null && probe.servicesOk === null)) return -1;
  if (probe.servicesOk === false) return 1_000;
  return servicesNotRunning(probe).length;
}

/** Lower-cased searchable text per row object, built once per row (rows are kept across deltas and keystrokes). */
const searchKeys = new WeakMap<FleetRow, string>();

/** The fields the search looks in, lower-cased and joined by a character no typed search contains. */
export function searchKey(row: FleetRow): string {
  let key = searchKeys.get(row);
  if (key === undefined) {
    const hay = [
      row.name,
      row.internalIP,
      row.windowsRelease,
      row.windowsBuild === null ? null : String(row.windowsBuild),
      row.kubeletVersion,
      row.containerRuntime,
      row.os,
      row.health,
      ...row.reasons,
    ];
    key = hay
      .filter((v): v is string => v !== null)
      .map((v) => v.toLowerCase())
      .join('\u0000');
    searchKeys.set(row, key);
  }
  return key;
}

function matchesSearch(row: FleetRow, needle: string): boolean {
  return searchKey(row).includes(needle);
}

/** Rows passing every filter; search is case-insensitive over name, IP, versions, runtime and reasons. */
export function filterRows(rows: readonly FleetRow[], filter: FleetFilter): FleetRow[] {
  const needle = filter.search.trim().toLowerCase();
  return rows.filter((row) => {
    if (filter.os !== 'all' && row.os !== filter.os) return false;
    if (filter.health === 'problems' && row.health === 'healthy') return false;
    if (filter.health !== 'all' && filter.health !== 'problems' && row.health !== filter.health) return false;
    if (filter.service === 'not-running' && servicesNotRunning(row.probe).length === 0) return false;
    if (filter.finding !== 'all') {
      const f = row.findings;
      if (!f) return false;
      if (filter.finding === 'any' && f.error + f.warning + f.info === 0) return false;
      if (filter.finding === 'error' && f.error === 0) return false;
      if (filter.finding === 'warning' && f.warning === 0) return false;
      if (filter.finding === 'info' && f.info === 0) return false;
    }
    return needle === '' || matchesSearch(row, needle);
  });
}

function compare(a: FleetRow, b: FleetRow, key: SortKey): number {
  switch (key) {
    case 'name':
      return collator.compare(a.name, b.name);
    case 'os':
      return collator.compare(a.os, b.os);
    case 'windows':
      return (a.windowsBuild ?? -1) - (b.windowsBuild ?? -1) || collator.compare(a.windowsRelease ?? '', b.windowsRelease ?? '');
    case 'kubelet':
      return collator.compare(a.kubeletVersion ?? '', b.kubeletVersion ?? '');
    case 'runtime':
      return collator.compare(a.containerRuntime ?? '', b.containerRuntime ?? '');
    case 'ready':
      return (a.ready === null ? -1 : a.ready ? 1 : 0) - (b.ready === null ? -1 : b.ready ? 1 : 0);
    case 'pods':
      return a.podCount - b.podCount;
    case 'health':
      return HEALTH_RANK[a.health] - HEALTH_RANK[b.health];
    case 'findings':
      return findingsScore(a.findings) - findingsScore(b.findings);
    case 'services':
      return servicesScore(a.probe) - servicesScore(b.probe);
    case 'probedAt':
      return (a.probe?.probedAt ?? -1) - (b.probe?.probedAt ?? -1);
    case 'syncedAt':
      return (a.syncedAt ?? -1) - (b.syncedAt ?? -1);
  }
}

/** A stable sort by one column, ties broken by name so the order never jumps between refreshes. */
export function sortRows(rows: readonly FleetRow[], sort: SortSpec): FleetRow[] {
  const sign = sort.dir === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => sign * compare(a, b, sort.key) || collator.compare(a.name, b.name));
}

export interface FleetSummary {
  total: number;
  windows: number;
  /** Nodes not healthy (warning, error, unreachable, unknown). */
  unhealthy: number;
  unreachable: number;
  notReady: number;
}

export function summarize(rows: readonly NodeSummary[]): FleetSummary {
  let windows = 0;
  let unhealthy = 0;
  let unreachable = 0;
  let notReady = 0;
  for (const r of rows) {
    if (r.os === 'windows') windows++;
    if (r.health !== 'healthy') unhealthy++;
    if (r.health === 'unreachable') unreachable++;
    if (r.ready === false) notReady++;
  }
  return { total: rows.length, windows, unhealthy, unreachable, notReady };
}

/** Next sort when a column header is activated: same column flips, a new column starts at its natural order. */
export function nextSort(current: SortSpec, key: SortKey): SortSpec {
  if (current.key === key) return { key, dir: current.dir === 'asc' ? 'desc' : 'asc' };
  // For health, findings and services the interesting end is the worst, so they start descending.
  return { key, dir: key === 'health' || key === 'findings' || key === 'services' ? 'desc' : 'asc' };
}

/** "Windows Server 2022 (20348)" style label from release and build. */
export function windowsLabel(row: Pick<NodeSummary, 'os' | 'windowsRelease' | 'windowsBuild'>): string {
  if (row.os !== 'windows') return '—';
  if (row.windowsRelease && row.windowsBuild !== null) return `${row.windowsRelease} (${row.windowsBuild})`;
  if (row.windowsRelease) return row.windowsRelease;
  if (row.windowsBuild !== null) return `build ${row.windowsBuild}`;
  return 'unknown';
}
