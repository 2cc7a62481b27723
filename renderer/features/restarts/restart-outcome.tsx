import type { RestartResult } from '../../../shared/contract/methods/restarts';
import { formatDuration } from '../../app/format';

const OUTCOME_TEXT = { succeeded: 'Recovered', partial: 'Partly recovered', failed: 'Failed', cancelled: 'Cancelled' } as const;

/** What happened: outcome, each step, post-checks, what is still wrong and what to do next. */
export function RestartOutcomeView({ result }: { result: RestartResult }) {
  return (
    <div className={`outcome outcome-${result.outcome}`} role="status" aria-label={`Restart outcome: ${OUTCOME_TEXT[result.outcome]}`}>
      <h4>
        {OUTCOME_TEXT[result.outcome]}: {result.component} on {result.node}
      </h4>
      <p>{result.summary}</p>
      <h5>Steps</h5>
      <ol className="check-list">
        {result.steps.map((s) => (
          <li key={s.index}>
            <span className={`badge op-state-${s.state === 'skipped' ? 'cancelled' : s.state}`}>{s.state}</span>
            <span>
              {s.title}
              {s.durationMs !== null && <span className="muted"> ({formatDuration(s.durationMs)})</span>}: {s.detail}
            </span>
          </li>
        ))}
      </ol>
      <h5>Post-checks</h5>
      <ul className="check-list">
        {result.postChecks.map((c) => (
          <li key={c.id}>
            <span className={`badge ${c.status === 'passed' ? 'health-healthy' : c.status === 'failed' ? 'severity-error' : 'health-unknown'}`}>
              {c.status}
            </span>
            <span>
              <strong>{c.title}</strong> {c.detail}
            </span>
          </li>
        ))}
      </ul>
      {result.stillWrong.length > 0 && (
        <>
          <h5>Still wrong</h5>
          <ul>
            {result.stillWrong.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        </>
      )}
      {result.nextSteps.length > 0 && (
        <>
          <h5>Next steps</h5>
          <ul>
            {result.nextSteps.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        </>
      )}
      <p className="muted">Audit record #{result.auditId}.</p>
    </div>
  );
}
