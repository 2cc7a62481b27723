import type { MethodOutput } from '../../../shared/contract/methods';
import { useQuery, type QueryState } from '../../api/use-query';
import { DnsTab, LogsTab, NetworkTab, ServicesTab } from '../probes/probe-tabs';
import { assertNever } from '../../app/assert-never';
import type { NodeAction, NodeTab } from '../../app/router';
import { Age } from '../../components/age';
import { ErrorNotice } from '../../components/error-notice';
import { HealthBadge, ReadyBadge } from '../../components/status-badge';
import { useActiveCluster } from '../clusters/live-context';
import { ActivityList } from '../operations/activity-list';
import { BundleCollector } from '../bundles/bundle-collector';
import { ReportComposer } from '../reports/report-composer';
import { RestartWizard } from '../restarts/restart-wizard';
import { FindingsTab } from '../diagnostics/findings-tab';
import { RestartHistory } from '../restarts/restart-history';
import { AccessTab } from '../access/access-tab';
import { NodeActions } from './node-actions';
import { NodeOverview } from './node-overview';
import { NodeTabs, TAB_PANEL_ID, tabId } from './node-tabs';

const PROBE_TABS: ReadonlySet<NodeTab> = new Set(['services', 'network', 'dns', 'logs']);

function TabPanel({ tab, node, cluster, probes }: { tab: NodeTab; node: string; cluster: string | null; probes: QueryState<MethodOutput<'probes:latest'>> }) {
  switch (tab) {
    case 'overview':
      return null; // rendered by the caller, which has the node model
    case 'findings':
      return <FindingsTab node={node} cluster={cluster} />;
    case 'services':
    case 'network':
    case 'dns':
    case 'logs':
      return <ProbePanel tab={tab} probes={probes} />;
    case 'access':
      return <AccessTab node={node} cluster={cluster} />;
    case 'activity':
      return (
        <>
          <RestartHistory node={node} cluster={cluster} />
          <ActivityList node={node} title={`What Windeck did on ${node}`} />
        </>
      );
    default:
      return assertNever(tab, 'node tab');
  }
}

/** Probe-backed tabs: stored results with their age; "nothing stored yet" is a state, not an error. */
function ProbePanel({ tab, probes }: { tab: 'services' | 'network' | 'dns' | 'logs'; probes: QueryState<MethodOutput<'probes:latest'>> }) {
  if (probes.status === 'loading') return <p role="status">Loading stored probe results…</p>;
  if (!probes.data) {
    if (probes.error?.code === 'NOT_FOUND')
      return (
        <p className="panel">
          No probe results are stored for this node yet. Use <strong>Refresh probes</strong> while the node is reachable.
        </p>
      );
    if (probes.error) return <ErrorNotice error={probes.error} onRetry={probes.refetch} />;
    return null;
  }
  const report = probes.data;
  return (
    <>
      <p className="muted">
        Probed over {report.transport}, <Age at={report.at} label="" />. Probe results are snapshots, never live.
      </p>
      {probes.error && <ErrorNotice error={probes.error} onRetry={probes.refetch} compact />}
      {tab === 'services' && <ServicesTab report={report} />}
      {tab === 'network' && <NetworkTab report={report} />}
      {tab === 'dns' && <DnsTab report={report} />}
      {tab === 'logs' && <LogsTab report={report} />}
    </>
  );
}

function ActionPanel({ node, action }: { node: string; action: NodeAction }) {
  switch (action) {
    case 'restart':
      return <RestartWizard node={node} />;
    case 'collect':
      return <BundleCollector node={node} />;
    case 'report':
      return <ReportComposer node={node} />;
    default:
      return assertNever(action, 'node action');
  }
}

/** One node: header with health and age, tabs for overview, findings, services, network, DNS, logs, activity. */
export function NodeDetail({ node, tab, action }: { node: string; tab: NodeTab; action: NodeAction | null }) {
  const { cluster, liveness } = useActiveCluster();
  // Wait for the active cluster: reading first without it and again with it would drop the screen's state.
  const q = useQuery('nodes:get', { ...(cluster ? { cluster: cluster.id } : {}), name: node }, { scopes: ['nodes'], node, enabled: cluster !== null });
  const model = q.data;
  const probes = useQuery(
    'probes:latest',
    { ...(cluster ? { cluster: cluster.id } : {}), node },
    { scopes: ['probes'], node, enabled: cluster !== null && PROBE_TABS.has(tab) },
  );
  return (
    <section className="node-detail" aria-labelledby="node-title">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <a href="#/">Fleet</a> <span aria-hidden="true">›</span> <span>{node}</span>
      </nav>
      <header className="node-head">
        <h2 id="node-title">{node}</h2>
        {model && (
          <>
            <HealthBadge health={model.health} /> <ReadyBadge ready={model.ready} /> <Age at={model.syncedAt} live={liveness.live} />
          </>
        )}
      </header>
      {model && model.reasons.length > 0 && (
        <ul className="reasons-list" aria-label="Health reasons">
          {model.reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      )}
      {model?.health === 'unreachable' && (
        <p className="banner banner-error" role="status">
          {node} is unreachable{model.reasons.length ? `: ${model.reasons.join('; ')}` : ''}. What you see is the last stored state.
        </p>
      )}
      {!liveness.live && model && <p className="stale-note">Stored data, not live: {liveness.reason}</p>}
      {model && <NodeActions node={node} current={action} />}
      {model && action && <ActionPanel node={node} action={action} />}
      {q.status === 'loading' && <p role="status">Loading {node} from the local store…</p>}
      {q.error && <ErrorNotice error={q.error} onRetry={q.refetch} compact={model !== undefined} />}
      {q.status === 'error' && (
        <p>
          <a href="#/">Back to the fleet</a>
        </p>
      )}
      {(model || q.status !== 'error') && (
        <>
          <NodeTabs node={node} current={tab} />
          <div className="tab-panel" role="tabpanel" id={TAB_PANEL_ID} aria-labelledby={tabId(tab)} tabIndex={0}>
            {tab === 'overview' ? (
              model ? (
                <NodeOverview node={model} />
              ) : null
            ) : (
              <TabPanel tab={tab} node={node} cluster={cluster?.id ?? null} probes={probes} />
            )}
          </div>
        </>
      )}
    </section>
  );
}
