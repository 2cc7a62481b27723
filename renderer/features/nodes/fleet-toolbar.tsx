import type { FindingFilter, FleetFilter, HealthFilter, OsFilter, ServiceFilter } from './fleet-model';
import { EMPTY_FILTER } from './fleet-model';
import { FilterSearch, FilterSelect, type FilterOption } from '../../components/filter-fields';

const OS_OPTIONS: readonly FilterOption<OsFilter>[] = [
  { value: 'all', label: 'All' },
  { value: 'windows', label: 'Windows' },
  { value: 'linux', label: 'Linux' },
  { value: 'unknown', label: 'Unknown' },
];
const HEALTH_OPTIONS: readonly FilterOption<HealthFilter>[] = [
  { value: 'all', label: 'All' },
  { value: 'problems', label: 'Not healthy' },
  { value: 'error', label: 'Error' },
  { value: 'warning', label: 'Warning' },
  { value: 'unreachable', label: 'Unreachable' },
  { value: 'unknown', label: 'Unknown' },
  { value: 'healthy', label: 'Healthy' },
];
const FINDING_OPTIONS: readonly FilterOption<FindingFilter>[] = [
  { value: 'all', label: 'All' },
  { value: 'any', label: 'Any open finding' },
  { value: 'error', label: 'With errors' },
  { value: 'warning', label: 'With warnings' },
  { value: 'info', label: 'With info' },
];
const SERVICE_OPTIONS: readonly FilterOption<ServiceFilter>[] = [
  { value: 'all', label: 'All' },
  { value: 'not-running', label: 'A service not running' },
];

/** Search and filters for the fleet table. */
export function FleetToolbar({
  filter,
  onFilter,
  shown,
  total,
  findingsKnown,
}: {
  filter: FleetFilter;
  onFilter: (f: FleetFilter) => void;
  shown: number;
  total: number;
  findingsKnown: boolean;
}) {
  const active = filter.os !== 'all' || filter.health !== 'all' || filter.finding !== 'all' || filter.service !== 'all' || filter.search !== '';
  return (
    <div className="toolbar" role="search" aria-label="Filter nodes">
      <FilterSearch
        id="fleet-search"
        label="Search"
        value={filter.search}
        placeholder="name, IP, version, reason…"
        onChange={(search) => onFilter({ ...filter, search })}
      />
      <FilterSelect id="fleet-os" label="OS" value={filter.os} options={OS_OPTIONS} onChange={(os) => onFilter({ ...filter, os })} />
      <FilterSelect id="fleet-health" label="Health" value={filter.health} options={HEALTH_OPTIONS} onChange={(health) => onFilter({ ...filter, health })} />
      <FilterSelect
        id="fleet-findings"
        label="Findings"
        value={filter.finding}
        options={FINDING_OPTIONS}
        disabled={!findingsKnown}
        title={findingsKnown ? undefined : 'Findings are not available in this build yet.'}
        onChange={(finding) => onFilter({ ...filter, finding })}
      />
      <FilterSelect
        id="fleet-services"
        label="Services"
        value={filter.service}
        options={SERVICE_OPTIONS}
        title="From each node's newest services probe"
        onChange={(service) => onFilter({ ...filter, service })}
      />
      <p className="toolbar-count" aria-live="polite">
        {shown === total ? `${total} nodes` : `${shown} of ${total} nodes`}
      </p>
      {active && (
        <button type="button" className="secondary" onClick={() => onFilter(EMPTY_FILTER)}>
          Clear filters
        </button>
      )}
    </div>
  );
}
