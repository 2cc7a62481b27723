import type { NodeHealth } from '../../shared/domain/node';
import type { Severity } from '../../shared/domain/finding';
import type { SyncState } from '../../shared/domain/cluster';
import { assertNever } from '../app/assert-never';

const HEALTH_ICON: Record<NodeHealth, string> = { healthy: '●', warning: '▲', error: '✖', unreachable: '◌', unknown: '?' };

/** Health as colour AND shape AND word, so it reads without colour vision and at any zoom. */
export function HealthBadge({ health }: { health: NodeHealth }) {
  return (
    <span className={`badge health-${health}`}>
      <span aria-hidden="true">{HEALTH_ICON[health]}</span> {health}
    </span>
  );
}

export function SeverityBadge({ severity, count }: { severity: Severity; count?: number }) {
  const icon = severity === 'error' ? '✖' : severity === 'warning' ? '▲' : 'ℹ';
  return (
    <span className={`badge severity-${severity}`}>
      <span aria-hidden="true">{icon}</span> {count === undefined ? severity : `${count} ${severity}${count === 1 ? '' : 's'}`}
    </span>
  );
}

export function syncStateLabel(state: SyncState): string {
  switch (state) {
    case 'never':
      return 'never synced';
    case 'syncing':
      return 'syncing';
    case 'live':
      return 'live';
    case 'stale':
      return 'stale';
    case 'offline':
      return 'offline (unreachable)';
    case 'auth-failed':
      return 'auth failed';
    case 'error':
      return 'sync error';
    default:
      return assertNever(state, 'sync state');
  }
}

export function SyncBadge({ state }: { state: SyncState }) {
  return <span className={`badge sync-${state}`}>{syncStateLabel(state)}</span>;
}

export function ReadyBadge({ ready }: { ready: boolean | null }) {
  if (ready === null) return <span className="badge health-unknown">unknown</span>;
  return ready ? <span className="badge health-healthy">Ready</span> : <span className="badge health-error">NotReady</span>;
}
