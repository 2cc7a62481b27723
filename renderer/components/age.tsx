import { formatAge, formatTimestamp } from '../app/format';
import { useNow } from '../app/use-now';

/**
 * "synced 3 min ago", with the exact time as a tooltip. When `live` is true the value is current and says so;
 * otherwise the age is always shown (an offline-first app must say how old each fact is).
 */
export function Age({ at, live = false, label = 'synced', className }: { at: number | null; live?: boolean; label?: string; className?: string }) {
  // useNow re-renders on a tick; the age itself is computed from the current time so it is never behind.
  const now = useNow();
  if (live) {
    return (
      <span className={`age live ${className ?? ''}`} title={`live; last update ${formatTimestamp(at)}`}>
        live
      </span>
    );
  }
  return (
    <time className={`age ${className ?? ''}`} dateTime={at === null ? undefined : new Date(at).toISOString()} title={formatTimestamp(at)}>
      {at === null ? (label ? `never ${label}` : 'never') : `${label ? `${label} ` : ''}${formatAge(at, Math.max(now, Date.now()))}`}
    </time>
  );
}
