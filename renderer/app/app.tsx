import { useMemo, useState } from 'react';
import type { WindeckClient } from '../api/client';
import { ClientProvider, useConnection } from '../api/client-context';
import { useQuery } from '../api/use-query';
import { ConnectionBanner } from '../components/connection-banner';
import { ErrorNotice } from '../components/error-notice';
import { ClusterPicker, SimulatedBadge } from '../features/clusters/cluster-picker';
import { NoClusterState } from '../features/clusters/empty-state';
import { ActiveClusterContext } from '../features/clusters/live-context';
import { liveness } from '../features/clusters/liveness';
import { ActivityList } from '../features/operations/activity-list';
import { NodeDetail } from '../features/node-detail/node-detail';
import { DEFAULT_SORT, EMPTY_FILTER, type FindingCounts } from '../features/nodes/fleet-model';
import { FleetView, type FleetState } from '../features/nodes/fleet-view';
import { useNodeList } from '../features/nodes/use-node-list';
import { ThemeToggle } from '../features/settings/theme-toggle';
import { ImportView } from '../features/imports/import-view';
import { PodsView } from '../features/pods/pods-view';
import { CredentialsView } from '../features/access/credentials-view';
import { assertNever } from './assert-never';
import { ErrorBoundary } from './error-boundary';
import { routeHref, useRoute, type Route } from './router';
import { useTheme } from './theme';
import { useStoredString } from './use-stored-state';

export const CLUSTER_STORAGE_KEY = 'windeck.cluster';

/** Open findings per node, by severity; null until the findings are known. */
function countFindings(
  list: ReadonlyArray<{ node: string | null; severity: 'error' | 'warning' | 'info' }> | undefined,
): ReadonlyMap<string, FindingCounts> | null {
  if (!list) return null;
  const out = new Map<string, FindingCounts>();
  for (const f of list) {
    if (!f.node) continue;
    const c = out.get(f.node) ?? { error: 0, warning: 0, info: 0 };
    c[f.severity] += 1;
    out.set(f.node, c);
  }
  return out;
}

export function App({ client }: { client: WindeckClient }) {
  return (
    <ClientProvider client={client}>
      <ErrorBoundary area="The Windeck window">
        <Shell />
      </ErrorBoundary>
    </ClientProvider>
  );
}

function NavLink({ route, current, children }: { route: Route; current: Route; children: string }) {
  const active = route.name === current.name;
  return (
    <a href={routeHref(route)} aria-current={active ? 'page' : undefined} className={active ? 'active' : undefined}>
      {children}
    </a>
  );
}

function Shell() {
  const { choice, setChoice } = useTheme();
  const route = useRoute();
  const connection = useConnection();
  const [chosenCluster, setChosenCluster] = useStoredString(CLUSTER_STORAGE_KEY);
  const info = useQuery('app:info', {}, { scopes: ['settings', 'clusters'] });
  const clusters = useQuery('clusters:list', {}, { scopes: ['clusters', 'nodes'] });
  const known = clusters.data?.some((c) => c.id === chosenCluster) ?? false;
  const nodes = useNodeList(known && chosenCluster ? { cluster: chosenCluster } : {}, { enabled: clusters.status !== 'loading' });
  const findings = useQuery('findings:list', nodes.data?.cluster ? { cluster: nodes.data.cluster.id } : {}, {
    scopes: ['findings'],
    enabled: nodes.data?.cluster != null,
  });
  const findingCounts = useMemo(() => countFindings(findings.data), [findings.data]);
  const [fleet, setFleet] = useState<FleetState>({ filter: EMPTY_FILTER, sort: DEFAULT_SORT, activeName: null });

  // The cluster the node list is for (the backend resolves "active" when none is chosen); fresher from clusters:list.
  const cluster = useMemo(() => {
    const id = nodes.data?.cluster?.id ?? (known ? chosenCluster : null);
    return clusters.data?.find((c) => c.id === id) ?? nodes.data?.cluster ?? null;
  }, [nodes.data, clusters.data, known, chosenCluster]);
  const live = useMemo(() => liveness(connection, cluster), [connection, cluster]);

  const noCluster = clusters.status === 'ok' && (clusters.data?.length ?? 0) === 0;

  return (
    <ActiveClusterContext.Provider value={{ cluster, liveness: live }}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <div className="brand">
          <span className="logo" aria-hidden="true">
            ◧
          </span>
          <span className="product">Windeck</span>
        </div>
        <ClusterPicker
          clusters={clusters.data ?? []}
          active={cluster}
          onSelect={(id) => {
            setChosenCluster(id);
            setFleet((f) => ({ ...f, activeName: null }));
          }}
        />
        {cluster?.simulated && <SimulatedBadge />}
        <nav className="main-nav" aria-label="Main">
          <NavLink route={{ name: 'fleet' }} current={route.name === 'node' ? { name: 'fleet' } : route}>
            Fleet
          </NavLink>
          <NavLink route={{ name: 'pods' }} current={route}>
            Pods
          </NavLink>
          <NavLink route={{ name: 'activity' }} current={route}>
            Activity
          </NavLink>
          <NavLink route={{ name: 'import' }} current={route}>
            Import
          </NavLink>
          <NavLink route={{ name: 'credentials' }} current={route}>
            Credentials
          </NavLink>
        </nav>
        <ThemeToggle choice={choice} onChoice={setChoice} />
      </header>
      <ConnectionBanner />
      {info.data?.storeNotice && (
        <div className="banner banner-warning" role="status">
          {info.data.storeNotice}
        </div>
      )}
      {cluster && !live.live && connection.status === 'open' && cluster.syncState !== 'live' && (
        <div className={`banner ${['offline', 'auth-failed', 'error'].includes(cluster.syncState) ? 'banner-error' : 'banner-warning'}`} role="status">
          {live.reason} Showing the last stored state with its age; actions that need a live session are disabled.
        </div>
      )}
      <main id="main" tabIndex={-1}>
        <ErrorBoundary area="This screen" resetKey={routeHref(route)}>
          {clusters.status === 'error' && clusters.error ? (
            <ErrorNotice error={clusters.error} onRetry={clusters.refetch} />
          ) : noCluster && (route.name === 'fleet' || route.name === 'node') ? (
            <NoClusterState info={info.data} />
          ) : (
            <Screen route={route} fleet={fleet} onFleet={setFleet} nodes={nodes} findings={findingCounts} />
          )}
        </ErrorBoundary>
      </main>
    </ActiveClusterContext.Provider>
  );
}

type FleetProps = Parameters<typeof FleetView>[0];

function Screen({
  route,
  fleet,
  onFleet,
  nodes,
  findings,
}: {
  route: Route;
  fleet: FleetState;
  onFleet: (s: FleetState) => void;
  nodes: FleetProps['nodes'];
  findings: FleetProps['findings'];
}) {
  switch (route.name) {
    case 'fleet':
      return <FleetView nodes={nodes} findings={findings} state={fleet} onState={onFleet} />;
    case 'node':
      return <NodeDetail node={route.node} tab={route.tab} action={route.action} />;
    case 'activity':
      return <ActivityList />;
    case 'import':
      return <ImportView />;
    case 'pods':
      return <PodsView />;
    case 'credentials':
      return <CredentialsView />;
    default:
      return assertNever(route, 'route');
  }
}
