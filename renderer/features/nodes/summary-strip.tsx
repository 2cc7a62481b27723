import type { FleetFilter, FleetSummary } from './fleet-model';

/** Counts that matter first; each one is also a filter toggle. */
export function SummaryStrip({ summary, filter, onFilter }: { summary: FleetSummary; filter: FleetFilter; onFilter: (f: FleetFilter) => void }) {
  const windowsOn = filter.os === 'windows';
  const unhealthyOn = filter.health === 'problems';
  const unreachableOn = filter.health === 'unreachable';
  return (
    <ul className="summary-strip" aria-label="Fleet summary">
      <li>
        <span className="summary-item">
          <span className="summary-value">{summary.total}</span> <span className="summary-label">nodes</span>
        </span>
      </li>
      <li>
        <button type="button" className="summary-toggle" aria-pressed={windowsOn} onClick={() => onFilter({ ...filter, os: windowsOn ? 'all' : 'windows' })}>
          <span className="summary-value">{summary.windows}</span> <span className="summary-label">Windows nodes</span>
        </button>
      </li>
      <li>
        <button
          type="button"
          className={`summary-toggle${summary.unhealthy ? ' attention' : ''}`}
          aria-pressed={unhealthyOn}
          onClick={() => onFilter({ ...filter, health: unhealthyOn ? 'all' : 'problems' })}
        >
          <span className="summary-value">{summary.unhealthy}</span> <span className="summary-label">unhealthy</span>
        </button>
      </li>
      <li>
        <button
          type="button"
          className={`summary-toggle${summary.unreachable ? ' attention' : ''}`}
          aria-pressed={unreachableOn}
          onClick={() => onFilter({ ...filter, health: unreachableOn ? 'all' : 'unreachable' })}
        >
          <span className="summary-value">{summary.unreachable}</span> <span className="summary-label">unreachable</span>
        </button>
      </li>
      <li>
        <span className="summary-item">
          <span className="summary-value">{summary.notReady}</span> <span className="summary-label">NotReady</span>
        </span>
      </li>
    </ul>
  );
}
