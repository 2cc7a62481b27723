import { useState, type FormEvent } from 'react';
import type { WireError } from '../../../shared/contract/errors';
import type { KubeContext } from '../../../shared/contract/methods/clusters';
import type { ClusterSummary } from '../../../shared/domain/cluster';
import { useClient } from '../../api/client-context';
import { useQuery } from '../../api/use-query';
import { Age } from '../../components/age';
import { ErrorNotice } from '../../components/error-notice';
import { SyncBadge } from '../../components/status-badge';
import { useOperation } from '../operations/use-operation';

/** One row: a stored cluster, a kubeconfig context, or both (same id). */
export interface ClusterRow {
  id: string;
  name: string;
  server: string | null;
  kubeconfigPath: string | null;
  stored: ClusterSummary | null;
  context: KubeContext | null;
}

/** Stored clusters first (in the store's order), then contexts not stored yet. */
export function clusterRows(clusters: readonly ClusterSummary[], contexts: readonly KubeContext[]): ClusterRow[] {
  const byId = new Map(contexts.map((c) => [c.clusterId, c]));
  const rows: ClusterRow[] = clusters.map((c) => ({
    id: c.id,
    name: c.name,
    server: c.server,
    kubeconfigPath: c.kubeconfigPath,
    stored: c,
    context: byId.get(c.id) ?? null,
  }));
  const seen = new Set(rows.map((r) => r.id));
  for (const c of contexts) {
    if (seen.has(c.clusterId)) continue;
    rows.push({ id: c.clusterId, name: c.name, server: c.server, kubeconfigPath: c.kubeconfigPath, stored: null, context: c });
  }
  return rows;
}

type Pending = { kind: 'select' | 'sync' | 'remove'; id: string } | null;
type RowError = { id: string; action: 'select' | 'sync' | 'remove'; error: WireError } | null;

/**
 * Stored clusters and kubeconfig contexts with their sync state and age; switch the live source, sync now, forget
 * stored data, add a kubeconfig file by path. Errors show in the row (or the form) with a retry.
 */
export function ClustersPanel({ clusters, onSelect }: { clusters: readonly ClusterSummary[]; onSelect: (id: string) => void }) {
  const client = useClient();
  // Contexts change when files are added or removed (settings) and on a switch (settings too); not on every sync tick.
  const contexts = useQuery('clusters:contexts', {}, { scopes: ['settings'] });
  const [pending, setPending] = useState<Pending>(null);
  const [rowError, setRowError] = useState<RowError>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [syncOp, setSyncOp] = useState<{ id: string; operationId: string } | null>(null);
  const op = useOperation(syncOp?.operationId ?? null);
  const source = contexts.data?.source ?? null;
  const rows = clusterRows(clusters, contexts.data?.contexts ?? []);

  const run = async (kind: 'select' | 'sync' | 'remove', row: ClusterRow) => {
    setPending({ kind, id: row.id });
    setRowError(null);
    try {
      if (kind === 'select') {
        const r = await client.call('clusters:select', { cluster: row.id });
        if (!r.ok) return setRowError({ id: row.id, action: kind, error: r.error });
        onSelect(r.value.cluster.id);
      } else if (kind === 'sync') {
        const r = await client.call('clusters:sync', { cluster: row.id });
        if (!r.ok) return setRowError({ id: row.id, action: kind, error: r.error });
        setSyncOp({ id: row.id, operationId: r.value.operationId });
      } else {
        const r = await client.call('clusters:remove', { cluster: row.id, confirm: row.name });
        if (!r.ok) return setRowError({ id: row.id, action: kind, error: r.error });
        setConfirming(null);
      }
      contexts.refetch();
    } finally {
      setPending(null);
    }
  };

  return (
    <div className="clusters-panel">
      <h2 id="clusters-panel-title" className="clusters-panel-title">
        Clusters and kubeconfig contexts
      </h2>
      {source && (
        <p className="muted clusters-source" aria-live="polite">
          {source.message}
        </p>
      )}
      {contexts.status === 'error' && contexts.error && <ErrorNotice error={contexts.error} onRetry={contexts.refetch} compact />}
      <ul className="clusters-list" aria-labelledby="clusters-panel-title">
        {rows.length === 0 && <li className="muted">No stored clusters and no kubeconfig contexts yet. Add a kubeconfig file below.</li>}
        {rows.map((row) => {
          const isLive = source?.clusterId === row.id;
          const busy = pending?.id === row.id ? pending.kind : null;
          const err = rowError?.id === row.id ? rowError : null;
          const opHere = syncOp?.id === row.id ? op.op : null;
          const canReach = row.context !== null || row.kubeconfigPath !== null;
          return (
            <li key={row.id} className="clusters-row" aria-label={`Cluster ${row.name}`}>
              <div className="clusters-row-head">
                <strong className="clusters-row-name">{row.name}</strong>
                {row.stored?.simulated && <span className="badge simulated-tag">simulated</span>}
                {isLive && <span className="badge sync-live">live source</span>}
                {row.stored ? (
                  <span className="cluster-sync" role="group" aria-label={`${row.name}: sync state`}>
                    <SyncBadge state={row.stored.syncState} />
                    <Age at={row.stored.syncedAt} />
                  </span>
                ) : (
                  <span className="muted">not synced yet</span>
                )}
              </div>
              <div className="clusters-row-meta muted">
                {row.server ?? 'no server'}
                {row.context && (
                  <>
                    {' · '}user {row.context.user ?? '(none)'} · namespace {row.context.namespace}
                    {row.context.current ? ' · current context' : ''}
                  </>
                )}
                {row.kubeconfigPath && (
                  <>
                    {' · '}
                    <code className="clusters-path">{row.kubeconfigPath}</code>
                  </>
                )}
              </div>
              {row.stored?.syncError && row.stored.syncState !== 'live' && <p className="clusters-row-error">Last error: {row.stored.syncError}</p>}
              {row.context?.problem && <p className="clusters-row-error">Cannot use this context: {row.context.problem}</p>}
              {row.context?.exec && !row.context.exec.approved && (
                <p className="muted">
                  Needs the credential plugin <code>{row.context.exec.command}</code>, not approved yet: run{' '}
                  <code>windeck nodes --approve-exec --context {row.name}</code>
                  {row.context.origin === 'added' ? (
                    <>
                      {' '}
                      <code>--kubeconfig {row.context.kubeconfigPath}</code>
                    </>
                  ) : null}{' '}
                  once in a terminal.
                </p>
              )}
              {opHere && (
                <p className="muted" aria-live="polite">
                  Sync now: {opHere.state}
                  {opHere.message ? ` (${opHere.message})` : ''}
                  {opHere.error ? `: ${opHere.error.message}` : ''}
                </p>
              )}
              <div className="clusters-row-actions">
                <button type="button" className="small" disabled={isLive || busy !== null || !canReach} onClick={() => void run('select', row)}>
                  {busy === 'select' ? 'Switching…' : isLive ? 'Live now' : 'Switch to'}
                  <span className="visually-hidden"> {row.name}</span>
                </button>
                <button type="button" className="small" disabled={busy !== null || !canReach} onClick={() => void run('sync', row)}>
                  {busy === 'sync' ? 'Starting…' : 'Sync now'}
                  <span className="visually-hidden"> {row.name}</span>
                </button>
                {row.stored && confirming !== row.id && (
                  <button type="button" className="small" disabled={busy !== null} onClick={() => setConfirming(row.id)}>
                    Forget…<span className="visually-hidden"> stored data of {row.name}</span>
                  </button>
                )}
              </div>
              {row.stored && confirming === row.id && (
                <div className="clusters-confirm" role="group" aria-label={`Confirm forgetting ${row.name}`}>
                  <p>
                    Forget the stored nodes, pods, events, findings and probe results of <strong>{row.name}</strong>? The activity history stays.
                  </p>
                  <button type="button" className="small danger" disabled={busy !== null} onClick={() => void run('remove', row)}>
                    Forget {row.name}
                  </button>{' '}
                  <button type="button" className="small" onClick={() => setConfirming(null)}>
                    Cancel
                  </button>
                </div>
              )}
              {err && (
                <div className="clusters-row-failure">
                  <ErrorNotice error={err.error} compact />
                  <button type="button" className="small" onClick={() => void run(err.action, row)}>
                    Retry
                    <span className="visually-hidden">
                      {' '}
                      {err.action === 'select' ? 'switching to' : err.action === 'sync' ? 'syncing' : 'forgetting'} {row.name}
                    </span>
                  </button>
                </div>
              )}
            </li>
          );
        })}
      </ul>
      <AddKubeconfigForm onAdded={() => contexts.refetch()} />
      {contexts.data && contexts.data.files.some((f) => f.error) && (
        <ul className="clusters-files" aria-label="Kubeconfig files with problems">
          {contexts.data.files
            .filter((f) => f.error)
            .map((f) => (
              <li key={f.path}>
                <code className="clusters-path">{f.path}</code>: {f.error}
                {f.origin === 'added' && <ForgetFileButton path={f.path} onDone={() => contexts.refetch()} />}
              </li>
            ))}
        </ul>
      )}
    </div>
  );
}

function ForgetFileButton({ path, onDone }: { path: string; onDone: () => void }) {
  const client = useClient();
  return (
    <button type="button" className="small" onClick={() => void client.call('clusters:remove-kubeconfig', { path }).then(onDone)}>
      Forget file<span className="visually-hidden"> {path}</span>
    </button>
  );
}

/** A path field (the backend runs on this machine and reads the file; the file is not copied). */
export function AddKubeconfigForm({ onAdded }: { onAdded?: () => void }) {
  const client = useClient();
  const [path, setPath] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<WireError | null>(null);
  const [added, setAdded] = useState<{ path: string; contexts: number } | null>(null);

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!path.trim()) return;
    setBusy(true);
    setError(null);
    setAdded(null);
    try {
      const r = await client.call('clusters:add-kubeconfig', { path: path.trim() });
      if (!r.ok) return setError(r.error);
      setAdded({ path: r.value.path, contexts: r.value.contexts.length });
      setPath('');
      onAdded?.();
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="add-kubeconfig" onSubmit={(e) => void submit(e)} aria-labelledby="add-kubeconfig-title">
      <h3 id="add-kubeconfig-title">Add kubeconfig…</h3>
      <label htmlFor="kubeconfig-path">Kubeconfig file path</label>
      <div className="add-kubeconfig-row">
        <input
          id="kubeconfig-path"
          type="text"
          value={path}
          spellCheck={false}
          autoComplete="off"
          placeholder="/home/me/.kube/prod.yaml"
          aria-describedby="kubeconfig-path-help"
          onChange={(e) => setPath(e.target.value)}
        />
        <button type="submit" disabled={busy || path.trim() === ''}>
          {busy ? 'Checking…' : 'Add kubeconfig'}
        </button>
      </div>
      <p id="kubeconfig-path-help" className="muted">
        The full path on the machine Windeck runs on. Windeck remembers the path and reads the file when it connects; it does not copy it. Credential plugins
        (exec) still need approval with <code>windeck nodes --approve-exec</code>.
      </p>
      {added && (
        <p role="status">
          Added <code className="clusters-path">{added.path}</code>: {added.contexts} context{added.contexts === 1 ? '' : 's'}. Pick one above with “Switch to”.
        </p>
      )}
      {error && (
        <div className="clusters-row-failure">
          <ErrorNotice error={error} compact />
          <button type="button" className="small" onClick={() => void submit()}>
            Retry<span className="visually-hidden"> adding the kubeconfig</span>
          </button>
        </div>
      )}
    </form>
  );
}
