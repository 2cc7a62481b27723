import { useState } from 'react';
import type { WireError } from '../../../shared/contract/errors';
import type { ComponentLayout } from '../../../shared/contract/methods/nodes';
import type { RestartMethod } from '../../../shared/logic/restart-plan';
import { useClient } from '../../api/client-context';
import { useQuery } from '../../api/use-query';
import { Age } from '../../components/age';
import { ErrorNotice } from '../../components/error-notice';
import { TableWrap } from '../../components/table-wrap';
import { useActiveCluster } from '../clusters/live-context';
import { useOperation } from '../operations/use-operation';
import { actionBlocker } from './node-actions';

/** The probes the layout detection reads; a refresh runs only these. */
const LAYOUT_PROBES = ['services', 'service-config', 'processes'] as const;

const METHOD_LABEL: Record<RestartMethod, string> = {
  service: 'Windows service',
  'nssm-service': 'nssm service',
  'daemonset-pod': 'DaemonSet pod',
  'bare-process': 'bare process',
  supervised: 'supervised process',
  absent: 'not found',
};

function MethodCell({ c }: { c: ComponentLayout }) {
  const cls = c.method === 'absent' ? 'health-unknown' : c.refusal ? 'health-warning' : 'health-healthy';
  return (
    <>
      <span className={`badge ${cls}`}>{METHOD_LABEL[c.method]}</span>
      {c.realName && <code className="real-name"> {c.realName}</code>}
    </>
  );
}

/**
 * "Layout detected": how kubelet, kube-proxy, flanneld, containerd and hns run on the node (service, nssm,
 * HostProcess DaemonSet pod, bare or supervised process), from the stored probes through the restart engine's own
 * detection (`nodes:layout`), with the age of what it rests on. Never probed: says so, with a way to probe now.
 */
export function NodeLayoutPanel({ node }: { node: string }) {
  const client = useClient();
  const { cluster, liveness } = useActiveCluster();
  const q = useQuery(
    'nodes:layout',
    { ...(cluster ? { cluster: cluster.id } : {}), name: node },
    { scopes: ['probes', 'pods'], node, enabled: cluster !== null },
  );
  const [operationId, setOperationId] = useState<string | null>(null);
  const [callError, setCallError] = useState<WireError | null>(null);
  const { op } = useOperation(operationId);
  const running = op !== null && (op.state === 'queued' || op.state === 'running');
  const blocker = actionBlocker({ needs: ['probes:run'], live: true }, (m) => client.has(m), liveness);
  const data = q.data;
  const never = data !== undefined && data.probedAt === null;

  async function refresh() {
    setCallError(null);
    const r = await client.call('probes:run', { ...(cluster ? { cluster: cluster.id } : {}), node, probes: [...LAYOUT_PROBES] });
    if (r.ok) setOperationId(r.value.operationId);
    else setCallError(r.error);
  }
  const opError = op && (op.state === 'failed' || op.state === 'timed-out') ? (op.error ?? null) : null;
  const label = never ? 'Probe now to detect the layout' : 'Detect the layout again';

  return (
    <section className="panel wide" aria-labelledby="layout-title">
      <h3 id="layout-title">Layout detected</h3>
      {q.status === 'loading' && <p role="status">Reading the stored probes…</p>}
      {q.error && <ErrorNotice error={q.error} onRetry={q.refetch} compact={data !== undefined} />}
      {never && (
        <p className="muted" role="status">
          Not probed yet: Windeck has no services probe of {node}, so it cannot tell how its components are installed.
        </p>
      )}
      {data && data.probedAt !== null && (
        <>
          <p className="muted">
            From probes taken <Age at={data.probedAt} label="" />
            {data.oldestAt !== null && data.probedAt - data.oldestAt > 60_000 && (
              <>
                {' '}
                (the oldest <Age at={data.oldestAt} label="" />)
              </>
            )}{' '}
            and the pods stored for the node
            {data.podsSyncedAt !== null && (
              <>
                {' '}
                (synced <Age at={data.podsSyncedAt} label="" />)
              </>
            )}
            . A snapshot, not live.
            {data.missing.length > 0 &&
              ` Not stored yet: the ${data.missing.join(', ')} probe${data.missing.length === 1 ? '' : 's'}, so nssm services or processes may not be told apart.`}
          </p>
          <TableWrap label="Detected layout per component">
            <table className="plain-table layout-table">
              <thead>
                <tr>
                  <th scope="col">Component</th>
                  <th scope="col">Runs as</th>
                  <th scope="col">Details</th>
                  <th scope="col">Restart by Windeck</th>
                </tr>
              </thead>
              <tbody>
                {data.components.map((c) => (
                  <tr key={c.component}>
                    <th scope="row">{c.component}</th>
                    <td>
                      <MethodCell c={c} />
                    </td>
                    <td className="wrap">{c.layout}</td>
                    <td className="wrap">{c.refusal ?? 'supported'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </>
      )}
      {data && (
        <p className="node-action">
          <button type="button" className="secondary" disabled={blocker !== null || running} title={blocker ?? undefined} onClick={() => void refresh()}>
            {running ? 'Probing…' : label}
          </button>
          {blocker && <span className="reason">{blocker}</span>}
        </p>
      )}
      {(callError ?? opError) && <ErrorNotice error={(callError ?? opError)!} onRetry={() => void refresh()} compact />}
    </section>
  );
}
