import { useState } from 'react';
import type { WireError } from '../../../shared/contract/errors';
import { useClient } from '../../api/client-context';
import { Age } from '../../components/age';
import { ErrorNotice } from '../../components/error-notice';
import { ProgressBar } from '../../components/progress-bar';
import { formatDuration } from '../../app/format';
import { isTerminal, type OperationView } from './operation-view';

const STATE_LABEL: Record<OperationView['state'], string> = {
  queued: 'queued',
  running: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
  'timed-out': 'timed out',
};

/** One operation: title, state, step, progress bar, cancel while running, outcome when done. */
export function OperationItem({ op }: { op: OperationView }) {
  const client = useClient();
  const [cancelError, setCancelError] = useState<WireError | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const done = isTerminal(op);
  const stepText = op.step.count > 1 ? `step ${Math.min(op.step.index + 1, op.step.count)} of ${op.step.count}: ${op.step.title}` : op.step.title;
  return (
    <li className={`operation op-${op.state}`} aria-label={`${op.title}: ${STATE_LABEL[op.state]}`}>
      <div className="operation-head">
        <strong>{op.title}</strong> <span className={`badge op-state-${op.state}`}>{STATE_LABEL[op.state]}</span>{' '}
        {op.node && <span className="muted">node {op.node}</span>} <span className="muted">{op.kind}</span>
      </div>
      {!done && <ProgressBar fraction={op.fraction} label={`Progress of ${op.title}`} />}
      <div className="operation-meta">
        <span>{stepText}</span>
        {op.message && <span className="operation-message">{op.message}</span>}
        <span className="muted">
          started <Age at={op.startedAt} label="" />
          {done && op.finishedAt !== null && ` · took ${formatDuration(op.finishedAt - op.startedAt)}`}
        </span>
      </div>
      {!done && (
        <button
          type="button"
          className="secondary small"
          disabled={cancelling}
          aria-label={`Cancel ${op.title}`}
          onClick={() => {
            setCancelling(true);
            void client.call('ops:cancel', { operationId: op.operationId }).then((r) => {
              setCancelling(false);
              if (!r.ok) setCancelError(r.error);
            });
          }}
        >
          {cancelling ? 'Cancelling…' : 'Cancel'}
        </button>
      )}
      {cancelError && <ErrorNotice error={cancelError} compact />}
      {done && op.error && op.state === 'failed' && <ErrorNotice error={op.error} compact />}
    </li>
  );
}
