import { useClient } from '../../api/client-context';
import { navigate, type NodeAction } from '../../app/router';
import { useActiveCluster } from '../clusters/live-context';
import { NodeOperationButton } from '../probes/node-operation-button';

interface ActionDef {
  action: NodeAction;
  label: string;
  /** Contract methods this action needs; missing ones make it "not available yet". */
  needs: readonly string[];
  /** Needs a live session (touches the node), rather than stored data only. */
  live: boolean;
}

const ACTIONS: readonly ActionDef[] = [
  { action: 'restart', label: 'Restart a component…', needs: ['restarts:plan', 'restarts:execute'], live: true },
  { action: 'collect', label: 'Collect bundle…', needs: ['bundles:preview', 'bundles:export'], live: false },
  { action: 'report', label: 'Compose bug report…', needs: ['reports:render'], live: false },
];

/** Why an action cannot run now, or null when it can. */
export function actionBlocker(
  def: { needs: readonly string[]; live: boolean },
  has: (m: string) => boolean,
  live: { live: boolean; reason: string | null },
): string | null {
  const missing = def.needs.filter((m) => !has(m));
  if (missing.length > 0) return `Not available yet: this build's backend has no ${missing.join(', ')} method.`;
  if (def.live && !live.live) return `Needs a live session: ${live.reason ?? 'not live.'}`;
  return null;
}

/** What you can do with this node; each disabled action says why. */
export function NodeActions({ node, current }: { node: string; current: NodeAction | null }) {
  const client = useClient();
  const { cluster, liveness } = useActiveCluster();
  const probeBlocker = actionBlocker({ needs: ['probes:run'], live: true }, (m) => client.has(m), liveness);
  const diagnoseBlocker = actionBlocker({ needs: ['diagnose:node'], live: true }, (m) => client.has(m), liveness);
  return (
    <div className="node-actions" role="group" aria-label={`Actions for ${node}`}>
      <NodeOperationButton method="probes:run" node={node} cluster={cluster?.id ?? null} disabledReason={probeBlocker} />
      <NodeOperationButton method="diagnose:node" node={node} cluster={cluster?.id ?? null} disabledReason={diagnoseBlocker} />
      {ACTIONS.map((def) => {
        const blocker = actionBlocker(def, (m) => client.has(m), liveness);
        const reasonId = `action-reason-${def.action}`;
        return (
          <span key={def.action} className="node-action">
            <button
              type="button"
              className={current === def.action ? undefined : 'secondary'}
              aria-pressed={current === def.action}
              disabled={blocker !== null}
              aria-describedby={blocker ? reasonId : undefined}
              title={blocker ?? undefined}
              onClick={() => navigate({ name: 'node', node, tab: 'overview', action: def.action })}
            >
              {def.label}
            </button>
            {blocker && (
              <span id={reasonId} className="reason">
                {blocker}
              </span>
            )}
          </span>
        );
      })}
    </div>
  );
}
