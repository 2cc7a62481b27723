import { ErrorNotice } from '../../components/error-notice';
import { OperationItem } from './operation-item';
import { useOperations } from './use-operations';

/** Everything Windeck ran or is running (this window, other windows, the CLI), newest first. */
export function ActivityList({ node = null, title = 'Activity' }: { node?: string | null; title?: string }) {
  const { list, ops } = useOperations();
  const shown = node ? ops.filter((o) => o.node === node) : ops;
  return (
    <section className="activity" aria-labelledby="activity-title">
      <h2 id="activity-title">{title}</h2>
      {list.status === 'loading' && <p role="status">Loading operations…</p>}
      {list.error && <ErrorNotice error={list.error} onRetry={list.refetch} />}
      {list.status !== 'loading' && shown.length === 0 && (
        <p className="muted">
          {node ? `Windeck has not run anything on ${node} yet.` : 'No operations yet. Syncs, probes, diagnoses, bundles and restarts show up here.'}
        </p>
      )}
      <ul className="operations">
        {shown.map((op) => (
          <OperationItem key={op.operationId} op={op} />
        ))}
      </ul>
    </section>
  );
}
