import type { FindingFilter, FleetFilter, HealthFilter, OsFilter, ServiceFilter } from './fleet-model';
import { EMPTY_FILTER } from './fleet-model';

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
      <div className="field">
        <label htmlFor="fleet-search">Search</label>
        <input
          id="fleet-search"
          type="search"
          value={filter.search}
          placeholder="name, IP, version, reason…"
          onChange={(e) => onFilter({ ...filter, search: e.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor="fleet-os">OS</label>
        <select id="fleet-os" value={filter.os} onChange={(e) => onFilter({ ...filter, os: e.target.value as OsFilter })}>
          <option value="all">All</option>
          <option value="windows">Windows</option>
          <option value="linux">Linux</option>
          <option value="unknown">Unknown</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="fleet-health">Health</label>
        <select id="fleet-health" value={filter.health} onChange={(e) => onFilter({ ...filter, health: e.target.value as HealthFilter })}>
          <option value="all">All</option>
          <option value="problems">Not healthy</option>
          <option value="error">Error</option>
          <option value="warning">Warning</option>
          <option value="unreachable">Unreachable</option>
          <option value="unknown">Unknown</option>
          <option value="healthy">Healthy</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="fleet-findings">Findings</label>
        <select
          id="fleet-findings"
          value={filter.finding}
          disabled={!findingsKnown}
          title={findingsKnown ? undefined : 'Findings are not available in this build yet.'}
          onChange={(e) => onFilter({ ...filter, finding: e.target.value as FindingFilter })}
        >
          <option value="all">All</option>
          <option value="any">Any open finding</option>
          <option value="error">With errors</option>
          <option value="warning">With warnings</option>
          <option value="info">With info</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="fleet-services">Services</label>
        <select
          id="fleet-services"
          value={filter.service}
          title="From each node's newest services probe"
          onChange={(e) => onFilter({ ...filter, service: e.target.value as ServiceFilter })}
        >
          <option value="all">All</option>
          <option value="not-running">A service not running</option>
        </select>
      </div>
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
