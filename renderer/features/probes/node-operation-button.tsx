import { useState } from 'react';
import type { WireError } from '../../../shared/contract/errors';
import { useClient } from '../../api/client-context';
import { ErrorNotice } from '../../components/error-notice';
import { ProgressBar } from '../../components/progress-bar';
import { useOperation } from '../operations/use-operation';
import { fingerprintIn } from './probe-data';

/** Node operations that take `{cluster?, node, acceptHostKeys?}` and answer `{operationId}`. */
export type NodeOperationMethod = 'probes:run' | 'diagnose:node';

const TEXT: Record<NodeOperationMethod, { idle: string; busy: string; done: string; id: string }> = {
  'probes:run': { idle: 'Refresh probes', busy: 'Probing…', done: 'Probes finished; the tabs below show the new results.', id: 'probes' },
  'diagnose:node': { idle: 'Run diagnosis', busy: 'Diagnosing…', done: 'Diagnosis finished; see the Findings tab.', id: 'diagnose' },
};

/**
 * Run a node operation now (probes, diagnosis). An unknown SSH host key stops it; the user can check the
 * fingerprint on the node and trust it for this run, which pins it.
 */
export function NodeOperationButton({
  method,
  node,
  cluster,
  disabledReason,
}: {
  method: NodeOperationMethod;
  node: string;
  cluster: string | null;
  disabledReason: string | null;
}) {
  const text = TEXT[method];
  const reasonId = `${text.id}-reason`;
  const client = useClient();
  const [operationId, setOperationId] = useState<string | null>(null);
  const [callError, setCallError] = useState<WireError | null>(null);
  const [checked, setChecked] = useState(false);
  const { op, cancel } = useOperation(operationId);
  const running = op !== null && (op.state === 'running' || op.state === 'queued');

  async function run(acceptHostKeys?: string[]) {
    setCallError(null);
    setChecked(false);
    const r = await client.call(method, { ...(cluster ? { cluster } : {}), node, ...(acceptHostKeys ? { acceptHostKeys } : {}) });
    if (r.ok) setOperationId(r.value.operationId);
    else setCallError(r.error);
  }

  const error = callError ?? (op?.state === 'failed' || op?.state === 'timed-out' ? (op.error ?? null) : null);
  const fingerprint = error?.code === 'HOST_KEY_UNKNOWN' ? fingerprintIn(error.message) : null;

  return (
    <div className="refresh-probes">
      <span className="node-action">
        <button
          type="button"
          className="secondary"
          disabled={disabledReason !== null || running}
          aria-describedby={disabledReason ? reasonId : undefined}
          onClick={() => void run()}
        >
          {running ? text.busy : text.idle}
        </button>
        {disabledReason && (
          <span id={reasonId} className="reason">
            {disabledReason}
          </span>
        )}
      </span>
      {running && op && (
        <div className="inline-progress" role="status">
          <ProgressBar fraction={op.fraction} label={`${text.busy.replace('…', '')} ${node}`} />
          <span>{op.message ?? op.step.title}</span>
          <button type="button" className="secondary small" onClick={() => void cancel()}>
            Cancel
          </button>
        </div>
      )}
      {op?.state === 'succeeded' && (
        <p className="muted" role="status">
          {text.done}
        </p>
      )}
      {op?.state === 'cancelled' && <p className="muted">Cancelled.</p>}
      {error && !fingerprint && <ErrorNotice error={error} onRetry={() => void run()} compact />}
      {error && fingerprint && (
        <div className="notice notice-error" role="alert">
          <p>
            <strong>Unknown host key.</strong> {node} presented <code>{fingerprint}</code>, which Windeck has never seen. Nothing was sent.
          </p>
          <p>
            On the node, run <code>ssh-keygen -lf C:\ProgramData\ssh\ssh_host_ed25519_key.pub</code> (or the key type shown) and compare. Trust it only if it
            matches.
          </p>
          <label>
            <input type="checkbox" checked={checked} onChange={(e) => setChecked(e.target.checked)} /> I compared the fingerprint on the node and it matches
          </label>{' '}
          <button type="button" disabled={!checked} onClick={() => void run([fingerprint])}>
            Trust this key and retry
          </button>
        </div>
      )}
    </div>
  );
}
