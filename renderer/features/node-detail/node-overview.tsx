import type { NodeModel } from '../../../shared/domain/node';
import { TableWrap } from '../../components/table-wrap';
import { windowsLabel } from '../nodes/fleet-model';
import { NodeLayoutPanel } from './node-layout';

function Row({ label, value }: { label: string; value: string | null | undefined }) {
  return (
    <div className="kv-row">
      <dt>{label}</dt>
      <dd>{value === null || value === undefined || value === '' ? <span className="muted">unknown</span> : value}</dd>
    </div>
  );
}

/** What the cluster says about the node (conditions, versions, addresses, taints, labels) and its detected layout. */
export function NodeOverview({ node }: { node: NodeModel }) {
  const labels = Object.entries(node.labels).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div className="overview-grid">
      <section className="panel wide" aria-labelledby="conditions-title">
        <h3 id="conditions-title">Conditions</h3>
        {node.conditions.length === 0 ? (
          <p className="muted">The node reports no conditions.</p>
        ) : (
          <TableWrap label="Conditions">
            <table className="plain-table">
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Status</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Message</th>
                  <th scope="col">Since</th>
                </tr>
              </thead>
              <tbody>
                {node.conditions.map((c) => {
                  const bad = c.type === 'Ready' ? c.status !== 'True' : c.status === 'True';
                  return (
                    <tr key={c.type} className={bad ? 'condition-bad' : undefined}>
                      <th scope="row">{c.type}</th>
                      <td>{c.status}</td>
                      <td>{c.reason ?? '—'}</td>
                      <td className="wrap">{c.message ?? '—'}</td>
                      <td>{c.lastTransitionTime ?? '—'}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
      {node.os === 'windows' && <NodeLayoutPanel node={node.name} />}
      <section className="panel" aria-labelledby="versions-title">
        <h3 id="versions-title">System</h3>
        <dl className="kv">
          <Row label="OS" value={node.os} />
          <Row label="Windows" value={node.os === 'windows' ? windowsLabel(node) : 'not a Windows node'} />
          <Row label="OS image" value={node.osImage} />
          <Row label="Kernel" value={node.kernelVersion} />
          <Row label="Architecture" value={node.architecture} />
          <Row label="Kubelet" value={node.kubeletVersion} />
          <Row label="Kube-proxy" value={node.kubeProxyVersion} />
          <Row label="Container runtime" value={node.containerRuntime} />
          <Row label="Pod CIDR" value={node.podCIDR} />
          <Row label="Provider ID" value={node.providerID} />
          <Row label="Schedulable" value={node.unschedulable ? 'no (cordoned)' : 'yes'} />
          <Row label="Pods" value={String(node.podCount)} />
          <Row label="Created" value={node.createdAt} />
        </dl>
      </section>
      <section className="panel" aria-labelledby="addresses-title">
        <h3 id="addresses-title">Addresses</h3>
        {node.addresses.length === 0 ? (
          <p className="muted">No addresses reported.</p>
        ) : (
          <dl className="kv">
            {node.addresses.map((a) => (
              <Row key={`${a.type}-${a.address}`} label={a.type} value={a.address} />
            ))}
          </dl>
        )}
        <h3>Taints</h3>
        {node.taints.length === 0 ? (
          <p className="muted">No taints.</p>
        ) : (
          <ul className="chips">
            {node.taints.map((t) => (
              <li key={`${t.key}-${t.effect}`} className="chip">
                {t.key}
                {t.value ? `=${t.value}` : ''}:{t.effect}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="panel" aria-labelledby="labels-title">
        <h3 id="labels-title">Labels ({labels.length})</h3>
        <details>
          <summary>Show labels</summary>
          <dl className="kv small">
            {labels.map(([k, v]) => (
              <Row key={k} label={k} value={v} />
            ))}
          </dl>
        </details>
      </section>
    </div>
  );
}
