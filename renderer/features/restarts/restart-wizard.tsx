import { useEffect, useState } from 'react';
import type { WireError } from '../../../shared/contract/errors';
import { RestartPlan, RestartResult } from '../../../shared/contract/methods/restarts';
import type { OperationView } from '../operations/operation-view';
import { RESTART_COMPONENTS, type RestartComponent } from '../../../shared/logic/restart-plan';
import { useClient } from '../../api/client-context';
import { navigate } from '../../app/router';
import { ConfirmByTyping } from '../../components/confirm-by-typing';
import { ErrorNotice } from '../../components/error-notice';
import { ProgressBar } from '../../components/progress-bar';
import { useActiveCluster } from '../clusters/live-context';
import { useOperation } from '../operations/use-operation';
import { RestartOutcomeView } from './restart-outcome';
import { RestartPlanView } from './restart-plan-view';

type Phase =
  | { step: 'choose' }
  | { step: 'planning'; operationId: string }
  | { step: 'planned'; plan: RestartPlan }
  | { step: 'executing'; plan: RestartPlan; operationId: string }
  | { step: 'done'; plan: RestartPlan; operationId: string };

const STEPS = ['Choose', 'Pre-checks', 'Confirm', 'Restart', 'Outcome'] as const;

function stepIndex(phase: Phase): number {
  switch (phase.step) {
    case 'choose':
      return 0;
    case 'planning':
      return 1;
    case 'planned':
      return 2;
    case 'executing':
      return 3;
    case 'done':
      return 4;
  }
}

/**
 * Guided restart of one node component (DESIGN.md section 7): choose -> plan with pre-checks (read-only) ->
 * confirm by typing the node name -> cancellable countdown and live progress -> outcome with post-checks.
 */
export function RestartWizard({ node }: { node: string }) {
  const client = useClient();
  const { cluster, liveness } = useActiveCluster();
  const [phase, setPhase] = useState<Phase>({ step: 'choose' });
  const [component, setComponent] = useState<RestartComponent>('kube-proxy');
  const [cordon, setCordon] = useState(false);
  const [drain, setDrain] = useState(false);
  const [callError, setCallError] = useState<WireError | null>(null);
  const [busy, setBusy] = useState(false);

  const planOp = useOperation(phase.step === 'planning' ? phase.operationId : null);
  const execOp = useOperation(phase.step === 'executing' || phase.step === 'done' ? phase.operationId : null);

  // A finished plan operation carries the plan as its result.
  useEffect(() => {
    if (phase.step !== 'planning' || !planOp.op || planOp.op.state !== 'succeeded' || planOp.op.result === undefined) return;
    const parsed = RestartPlan.safeParse(planOp.op.result);
    if (parsed.success) setPhase({ step: 'planned', plan: parsed.data });
    else setCallError({ code: 'PARSE_FAILED', message: 'The restart plan from the backend does not match the contract.', retryable: false });
  }, [phase, planOp.op]);

  useEffect(() => {
    if (phase.step === 'executing' && execOp.op && ['succeeded', 'failed', 'cancelled', 'timed-out'].includes(execOp.op.state)) {
      setPhase({ step: 'done', plan: phase.plan, operationId: phase.operationId });
    }
  }, [phase, execOp.op]);

  async function plan() {
    setCallError(null);
    setBusy(true);
    const r = await client.call('restarts:plan', { ...(cluster ? { cluster: cluster.id } : {}), node, component, cordon: cordon || drain, drain });
    setBusy(false);
    if (r.ok) setPhase({ step: 'planning', operationId: r.value.operationId });
    else setCallError(r.error);
  }

  async function execute(p: RestartPlan) {
    setCallError(null);
    setBusy(true);
    const r = await client.call('restarts:execute', { planHash: p.planHash, confirm: { node: p.node, component: p.component } });
    setBusy(false);
    if (r.ok) setPhase({ step: 'executing', plan: p, operationId: r.value.operationId });
    else setCallError(r.error);
  }

  const current = stepIndex(phase);
  const liveReason = liveness.live ? null : `Restarts need a live session: ${liveness.reason ?? 'not live.'}`;

  return (
    <section className="panel restart-wizard" aria-labelledby="restart-title">
      <h3 id="restart-title">Restart a component on {node}</h3>
      <ol className="wizard-steps" aria-label="Restart steps">
        {STEPS.map((s, i) => (
          <li key={s} aria-current={i === current ? 'step' : undefined}>
            {i + 1}. {s}
          </li>
        ))}
      </ol>
      {callError && <ErrorNotice error={callError} onRetry={phase.step === 'choose' ? () => void plan() : undefined} />}

      {phase.step === 'choose' && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void plan();
          }}
        >
          <fieldset>
            <legend>Component</legend>
            <div className="radio-row">
              {RESTART_COMPONENTS.map((c) => (
                <label key={c}>
                  <input type="radio" name="component" value={c} checked={component === c} onChange={() => setComponent(c)} /> {c}
                </label>
              ))}
            </div>
          </fieldset>
          <fieldset>
            <legend>Before the restart</legend>
            <div className="check-row">
              <label>
                <input type="checkbox" checked={cordon || drain} disabled={drain} onChange={(e) => setCordon(e.target.checked)} /> Cordon the node (uncordoned
                when it recovers)
              </label>{' '}
              <label>
                <input type="checkbox" checked={drain} onChange={(e) => setDrain(e.target.checked)} /> Drain it (evict pods that are not DaemonSet pods)
              </label>
            </div>
          </fieldset>
          <p className="muted">Planning is read-only: it detects how {component} runs on this node and runs the pre-checks. Nothing changes yet.</p>
          <div className="button-row">
            <button type="submit" disabled={busy || liveReason !== null} title={liveReason ?? undefined}>
              Plan the restart
            </button>
            <a className="button secondary" href={`#/nodes/${encodeURIComponent(node)}`}>
              Close
            </a>
          </div>
          {liveReason && <p className="muted">{liveReason}</p>}
        </form>
      )}

      {phase.step === 'planning' && (
        <div>
          <p role="status">{planOp.op?.message ?? planOp.op?.step.title ?? 'Running pre-checks…'}</p>
          <ProgressBar fraction={planOp.op?.fraction ?? null} label="Planning progress" />
          {planOp.op?.error && (
            <>
              <ErrorNotice error={planOp.op.error} />
              <button type="button" onClick={() => setPhase({ step: 'choose' })}>
                Back
              </button>
            </>
          )}
          {planOp.readError && <ErrorNotice error={planOp.readError} />}
          {!planOp.op?.error && (
            <button type="button" className="secondary" onClick={() => void planOp.cancel()}>
              Cancel planning
            </button>
          )}
        </div>
      )}

      {phase.step === 'planned' && (
        <>
          <RestartPlanView plan={phase.plan} />
          {phase.plan.canExecute ? (
            <ConfirmByTyping
              expected={phase.plan.node}
              what="node name"
              actionLabel={`Restart ${phase.plan.component} on ${phase.plan.node}`}
              disabledReason={liveReason ?? (phase.plan.expiresAt < Date.now() ? 'This plan has expired; plan again.' : null)}
              busy={busy}
              onConfirm={() => void execute(phase.plan)}
            />
          ) : (
            <p className="notice notice-error">This restart cannot run: {phase.plan.refusal ?? 'the plan says it cannot execute.'}</p>
          )}
          <div className="button-row">
            <button type="button" className="secondary" onClick={() => setPhase({ step: 'choose' })}>
              Start over
            </button>
          </div>
        </>
      )}

      {phase.step === 'executing' && (
        <div>
          <p role="status" aria-live="polite">
            {execOp.op ? `${execOp.op.step.title}${execOp.op.message ? `: ${execOp.op.message}` : ''}` : 'Starting…'}
          </p>
          <ProgressBar fraction={execOp.op?.fraction ?? null} label="Restart progress" />
          <button type="button" className="secondary" onClick={() => void execOp.cancel()}>
            Cancel restart
          </button>
          {execOp.readError && <ErrorNotice error={execOp.readError} />}
        </div>
      )}

      {phase.step === 'done' && execOp.op && (
        <>
          <RestartDone op={execOp.op} />
          <div className="button-row">
            <button type="button" onClick={() => navigate({ name: 'node', node, tab: 'activity', action: null })}>
              See activity
            </button>
            <button type="button" className="secondary" onClick={() => setPhase({ step: 'choose' })}>
              Restart something else
            </button>
          </div>
        </>
      )}
    </section>
  );
}

/**
 * The outcome of a finished restart: the operation's result when it succeeded, else the audited result from
 * `restarts:result` (a cancelled or failed restart still has steps and a before/after), else the operation error.
 */
function RestartDone({ op }: { op: OperationView }) {
  const client = useClient();
  const direct = RestartResult.safeParse(op.result);
  const [audited, setAudited] = useState<RestartResult | null>(null);
  const [lookedUp, setLookedUp] = useState(false);
  useEffect(() => {
    if (direct.success || op.state === 'succeeded') return undefined;
    let alive = true;
    void client.call('restarts:result', { operationId: op.operationId }).then((r) => {
      if (!alive) return;
      if (r.ok) setAudited(r.value);
      setLookedUp(true);
    });
    return () => {
      alive = false;
    };
  }, [client, op.operationId, op.state, direct.success]);
  if (direct.success) return <RestartOutcomeView result={direct.data} />;
  if (audited) return <RestartOutcomeView result={audited} />;
  if (op.state !== 'succeeded' && !lookedUp) return <p role="status">Reading the outcome…</p>;
  if (op.error) return <ErrorNotice error={op.error} />;
  return <p role="status">Reading the outcome…</p>;
}
