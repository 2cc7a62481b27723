import type { RestartPlan } from '../../../shared/contract/methods/restarts';
import { CopyButton } from '../../components/copy-button';
import { Age } from '../../components/age';

const CHECK_ICON = { ok: '✔', info: 'ℹ', warning: '▲', blocker: '✖' } as const;
const CHECK_CLASS = { ok: 'health-healthy', info: 'severity-info', warning: 'severity-warning', blocker: 'severity-error' } as const;

/** The plan before confirmation: how it runs here, pre-checks, disruption, and every command it would send. */
export function RestartPlanView({ plan }: { plan: RestartPlan }) {
  return (
    <div className="restart-plan">
      <p>
        <strong>{plan.component}</strong> runs here as <strong>{plan.method}</strong>
        {plan.serviceName ? (
          <>
            {' '}
            (<code>{plan.serviceName}</code>)
          </>
        ) : null}
        . {plan.layout}
      </p>
      <h4>Pre-checks</h4>
      <ul className="check-list">
        {plan.preChecks.map((c) => (
          <li key={c.id}>
            <span className={`badge ${CHECK_CLASS[c.status]}`}>
              <span aria-hidden="true">{CHECK_ICON[c.status]}</span> {c.status}
            </span>
            <span>
              <strong>{c.title}</strong> {c.detail}
            </span>
          </li>
        ))}
      </ul>
      <h4>Disruption</h4>
      <p>{plan.disruption.summary}</p>
      {plan.disruption.pods.length > 0 && (
        <details>
          <summary>{plan.disruption.pods.length} pods affected</summary>
          <ul>
            {plan.disruption.pods.map((p) => (
              <li key={`${p.namespace}/${p.name}`}>
                {p.namespace}/{p.name}: {p.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      <h4>Steps</h4>
      <ol className="steps">
        {plan.steps.map((s) => (
          <li key={s.index}>
            {s.title} <span className="muted">({s.target})</span>
            {s.commands.map((c, i) => (
              <div key={i} className="command">
                <pre>
                  <code>{c.equivalent}</code>
                </pre>
                <CopyButton text={c.equivalent} what={`command ${i + 1} of step ${s.index + 1}`} />
              </div>
            ))}
          </li>
        ))}
      </ol>
      <p className="muted">
        Plan made <Age at={plan.createdAt} label="" />; it expires at {new Date(plan.expiresAt).toLocaleTimeString()}.
      </p>
    </div>
  );
}
