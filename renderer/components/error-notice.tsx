import type { WireError } from '../../shared/contract/errors';
import { describeError } from '../app/describe-error';

/** An error shown where it happened: what, why, and the next step (retry when it makes sense). */
export function ErrorNotice({ error, onRetry, compact = false }: { error: WireError; onRetry?: () => void; compact?: boolean }) {
  const d = describeError(error);
  const canRetry = onRetry && (d.action === 'retry' || d.action === 'reconnect' || error.retryable);
  return (
    <div className={`notice notice-error${compact ? ' compact' : ''}`} role="alert">
      <p className="notice-title">
        <strong>{d.title}</strong> <span className="code">{error.code}</span>
      </p>
      <p>{error.message}</p>
      {!compact && <p className="muted">{d.hint}</p>}
      {canRetry && (
        <button type="button" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}
