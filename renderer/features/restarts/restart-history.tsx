import { useQuery } from '../../api/use-query';
import { formatTimestamp } from '../../app/format';
import { Age } from '../../components/age';
import { ErrorNotice } from '../../components/error-notice';

/** The audit trail of restarts on a node: written before the first remote call, completed with the outcome. */
export function RestartHistory({ node, cluster }: { node: string; cluster: string | null }) {
  const q = useQuery(
    'restarts:history',
    { ...(cluster ? { cluster } : {}), node, limit: 50 },
    { scopes: ['audit', 'operations'], node, enabled: cluster !== null },
  );
  return (
    <section className="panel" aria-labelledby="restart-history-title">
      <h3 id="restart-history-title">Restart audit</h3>
      {q.status === 'loading' && <p role="status">Loading the audit trail…</p>}
      {q.error && <ErrorNotice error={q.error} onRetry={q.refetch} compact />}
      {q.data && q.data.length === 0 && <p className="muted">Windeck has not restarted anything on {node}.</p>}
      {q.data && q.data.length > 0 && (
        <ul className="check-list">
          {q.data.map((e) => (
            <li key={e.id}>
              <span className={`badge ${e.outcome === 'succeeded' ? 'health-healthy' : e.outcome === null ? 'severity-info' : 'severity-error'}`}>
                {e.outcome ?? 'in progress / interrupted'}
              </span>
              <span>
                <strong>{e.action}</strong>{' '}
                <span title={formatTimestamp(e.at)}>
                  started <Age at={e.at} label="" />
                </span>
                {e.finishedAt !== null && <span className="muted"> · finished {formatTimestamp(e.finishedAt)}</span>}{' '}
                <span className="muted">(audit #{e.id})</span>
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
