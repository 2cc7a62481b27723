import { useId, useRef, useState, type FormEvent } from 'react';
import type { WireError } from '../../../shared/contract/errors';
import { CREDENTIAL_KINDS, type CredentialInfo, type CredentialKind, type CredentialScope } from '../../../shared/contract/methods/access';
import { useClient } from '../../api/client-context';
import { useQuery } from '../../api/use-query';
import { ErrorNotice } from '../../components/error-notice';
import { TableWrap } from '../../components/table-wrap';
import { useActiveCluster } from '../clusters/live-context';
import { KIND_LABEL, SCOPE_LABEL, addressableName, scopeText } from './access-model';
import './access.css';

/**
 * Settings › Credentials: the credential sets Windeck signs in to Windows nodes with (per cluster, node group or
 * node). Secrets are typed once, sent once to `credentials:set` (sealed by the host's secret store) and never shown.
 */
export function CredentialsView() {
  const { cluster } = useActiveCluster();
  // The active cluster is known a moment after the app opens (none at all when no cluster is stored): wait for it,
  // so the list and the form are not reset under the user.
  const clusters = useQuery('clusters:list', {}, { scopes: ['clusters'] });
  const settled = cluster !== null || clusters.data?.length === 0;
  if (!settled) {
    if (clusters.error) return <ErrorNotice error={clusters.error} onRetry={clusters.refetch} />;
    return <p role="status">Loading the active cluster…</p>;
  }
  return <CredentialsScreen cluster={cluster} />;
}

function CredentialsScreen({ cluster }: { cluster: { id: string; name: string } | null }) {
  const list = useQuery('credentials:list', cluster ? { cluster: cluster.id } : {}, { scopes: ['settings', 'clusters'] });
  return (
    <section className="access-settings" aria-labelledby="credentials-title">
      <h2 id="credentials-title">Credentials</h2>
      <p className="muted">
        How Windeck signs in to Windows nodes over SSH or WinRM{cluster ? ` in ${cluster.name}` : ''}. The most specific credential that applies to a node is
        used (node, then node group, then cluster-wide). Passwords and passphrases are sealed by this host’s secret store and never shown again.
      </p>
      {list.status === 'loading' && <p role="status">Loading credentials…</p>}
      {list.error && <ErrorNotice error={list.error} onRetry={list.refetch} compact={list.data !== undefined} />}
      {list.data && <CredentialsTable credentials={list.data} onRemoved={list.refetch} />}
      <AddCredentialForm cluster={cluster?.id ?? null} onAdded={list.refetch} />
    </section>
  );
}

function CredentialsTable({ credentials, onRemoved }: { credentials: readonly CredentialInfo[]; onRemoved: () => void }) {
  if (credentials.length === 0)
    return (
      <p className="panel" role="status">
        No credentials yet. Without one, SSH still uses your ~/.ssh/config and ssh-agent; WinRM needs one. Add one below.
      </p>
    );
  return (
    <TableWrap label="Credential sets">
      <table className="plain-table access-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">User</th>
            <th scope="col">Scope</th>
            <th scope="col">Secret</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {credentials.map((c) => (
            <CredentialRow key={c.id} credential={c} onRemoved={onRemoved} />
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function CredentialRow({ credential: c, onRemoved }: { credential: CredentialInfo; onRemoved: () => void }) {
  const client = useClient();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<WireError | null>(null);

  const remove = async (force: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const r = await client.call('credentials:remove', { name: c.name, ...(force ? { force: true } : {}) });
      if (!r.ok) return setError(r.error);
      setConfirming(false);
      onRemoved();
    } finally {
      setBusy(false);
    }
  };

  return (
    <tr>
      <th scope="row" className="wrap">
        {c.name}
      </th>
      <td className="wrap">
        {KIND_LABEL[c.kind]}
        {c.keyPath && (
          <>
            <br />
            <code className="access-path">{c.keyPath}</code>
          </>
        )}
      </td>
      <td className="wrap">{c.username}</td>
      <td className="wrap">{scopeText(c)}</td>
      <td>{c.hasSecret ? `Stored (${c.secretStoreKind ?? 'sealed'})` : c.kind === 'ssh-agent' ? 'Not needed' : 'None stored'}</td>
      <td>
        {!addressableName(c.name) ? (
          <span className="muted">Cannot be removed here: the name has characters the contract refuses (written directly to the store, e.g. by the demo).</span>
        ) : !confirming ? (
          <button type="button" className="small secondary" onClick={() => setConfirming(true)}>
            Remove…<span className="visually-hidden"> credential {c.name}</span>
          </button>
        ) : (
          <div className="access-confirm" role="group" aria-label={`Confirm removing credential ${c.name}`}>
            <p>Remove the credential {c.name}? Its sealed secret is deleted too.</p>
            <button type="button" className="small danger" disabled={busy} onClick={() => void remove(false)}>
              {busy ? 'Removing…' : `Remove ${c.name}`}
            </button>{' '}
            <button
              type="button"
              className="small secondary"
              onClick={() => {
                setConfirming(false);
                setError(null);
              }}
            >
              Cancel
            </button>
          </div>
        )}
        {error && (
          <div className="access-failure">
            <ErrorNotice error={error} onRetry={() => void remove(false)} compact />
            {error.code === 'CONFLICT' && (
              <button type="button" className="small danger" disabled={busy} onClick={() => void remove(true)}>
                Remove anyway<span className="visually-hidden"> {c.name}</span> and clear it from those endpoints
              </button>
            )}
          </div>
        )}
      </td>
    </tr>
  );
}

interface Draft {
  name: string;
  kind: CredentialKind;
  username: string;
  scope: CredentialScope;
  selector: string;
  anyCluster: boolean;
  keyPath: string;
}

const EMPTY: Draft = { name: '', kind: 'ssh-password', username: '', scope: 'cluster', selector: '', anyCluster: false, keyPath: '' };

function secretLabel(kind: CredentialKind): string | null {
  if (kind === 'ssh-agent') return null;
  if (kind === 'ssh-key') return 'Key passphrase (optional)';
  return 'Password';
}

/** Add (or replace, by name) a credential set. The secret field is cleared as soon as it was sent. */
export function AddCredentialForm({ cluster, onAdded }: { cluster: string | null; onAdded: () => void }) {
  const client = useClient();
  const id = useId();
  const [d, setD] = useState<Draft>(EMPTY);
  const secretRef = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<WireError | null>(null);
  const [savedWithout, setSavedWithout] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const set = (patch: Partial<Draft>) => setD((x) => ({ ...x, ...patch }));
  const sLabel = secretLabel(d.kind);

  const send = async (withSecret: boolean) => {
    // The secret lives only in the (uncontrolled) field; it is read here, sent once, and the field is cleared.
    const secret = withSecret && sLabel && secretRef.current ? secretRef.current.value : '';
    if (secretRef.current) secretRef.current.value = '';
    setBusy(true);
    setError(null);
    setDone(null);
    setSavedWithout(false);
    try {
      const r = await client.call('credentials:set', {
        ...(cluster && !d.anyCluster ? { cluster } : {}),
        ...(d.anyCluster && d.scope !== 'node' ? { anyCluster: true } : {}),
        name: d.name.trim(),
        kind: d.kind,
        scope: d.scope,
        ...(d.scope !== 'cluster' ? { selector: d.selector.trim() } : {}),
        username: d.username.trim(),
        ...(d.kind === 'ssh-key' && d.keyPath.trim() ? { keyPath: d.keyPath.trim() } : {}),
        ...(secret ? { secret } : {}),
      });
      if (!r.ok) return setError(r.error);
      setDone(`Saved ${r.value.name}: ${KIND_LABEL[r.value.kind]}, ${scopeText(r.value)}, ${r.value.hasSecret ? 'secret sealed' : 'no secret stored'}.`);
      setSavedWithout(!withSecret);
      setD(EMPTY);
      onAdded();
    } finally {
      setBusy(false);
    }
  };

  // A retry never saves without the secret by accident: with the field empty (it was cleared), it asks for it again.
  const retry = () => {
    if (sLabel && d.kind !== 'ssh-key' && secretRef.current && secretRef.current.value === '') {
      secretRef.current.focus();
      return;
    }
    void send(true);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void send(true);
  };

  const storeUnavailable = error?.code === 'STORE_UNAVAILABLE';
  return (
    <form className="panel access-section access-form" onSubmit={submit} aria-labelledby={`${id}-title`} noValidate>
      <h3 id={`${id}-title`}>Add a credential</h3>
      <p className="muted">Saving a name that exists replaces that credential.</p>
      <div className="access-grid">
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            id={`${id}-name`}
            value={d.name}
            required
            spellCheck={false}
            autoComplete="off"
            placeholder="win-admin"
            onChange={(e) => set({ name: e.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-kind`}>Kind</label>
          <select id={`${id}-kind`} value={d.kind} onChange={(e) => set({ kind: e.target.value as CredentialKind })}>
            {CREDENTIAL_KINDS.map((k) => (
              <option key={k} value={k}>
                {KIND_LABEL[k]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-user`}>User</label>
          <input
            id={`${id}-user`}
            value={d.username}
            required
            spellCheck={false}
            autoComplete="off"
            placeholder={'Administrator or CORP\\svc-windeck'}
            onChange={(e) => set({ username: e.target.value })}
          />
        </div>
        {d.kind === 'ssh-key' && (
          <div className="field">
            <label htmlFor={`${id}-key`}>Private key file</label>
            <input
              id={`${id}-key`}
              value={d.keyPath}
              required
              spellCheck={false}
              autoComplete="off"
              placeholder="/home/me/.ssh/id_ed25519"
              onChange={(e) => set({ keyPath: e.target.value })}
            />
          </div>
        )}
        {sLabel && (
          <div className="field">
            <label htmlFor={`${id}-secret`}>{sLabel}</label>
            <input id={`${id}-secret`} ref={secretRef} type="password" autoComplete="new-password" spellCheck={false} aria-describedby={`${id}-secret-help`} />
          </div>
        )}
      </div>
      {sLabel && (
        <p id={`${id}-secret-help`} className="muted">
          Sent once and sealed by this host’s secret store; the field is cleared after saving and the secret is never shown again.
        </p>
      )}
      <fieldset className="access-fieldset">
        <legend>Applies to</legend>
        <div className="radio-row">
          {(['cluster', 'node-group', 'node'] as const).map((s) => (
            <label key={s}>
              <input type="radio" name={`${id}-scope`} value={s} checked={d.scope === s} onChange={() => set({ scope: s })} /> {SCOPE_LABEL[s]}
            </label>
          ))}
        </div>
        {d.scope !== 'cluster' && (
          <div className="field">
            <label htmlFor={`${id}-selector`}>{d.scope === 'node' ? 'Node name' : 'Node-name pattern (win-*) or label key=value'}</label>
            <input
              id={`${id}-selector`}
              value={d.selector}
              required
              spellCheck={false}
              autoComplete="off"
              placeholder={d.scope === 'node' ? 'win-1' : 'win-*'}
              onChange={(e) => set({ selector: e.target.value })}
            />
          </div>
        )}
        {d.scope !== 'node' && (
          <label className="access-check-row">
            <input type="checkbox" checked={d.anyCluster} onChange={(e) => set({ anyCluster: e.target.checked })} /> Every cluster, not only the active one
          </label>
        )}
      </fieldset>
      <div className="button-row">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save credential'}
        </button>
      </div>
      <div aria-live="polite">
        {done && (
          <p role="status">
            {done}
            {savedWithout ? ' Give the secret at run time (the prompt, or WINDECK_NODE_PASSWORD / WINDECK_SSH_PASSPHRASE).' : ''}
          </p>
        )}
      </div>
      {storeUnavailable && error ? (
        <div className="notice notice-error access-store-unavailable" role="alert">
          <p className="notice-title">
            <strong>No secret store on this host: nothing was saved</strong> <span className="code">{error.code}</span>
          </p>
          <p>{error.message}</p>
          <p className="muted">The secret field was cleared. Type it again after setting up the secret store, or save without it.</p>
          <div className="button-row">
            <button type="button" className="small secondary" disabled={busy} onClick={() => void send(false)}>
              Save without the secret
            </button>
          </div>
        </div>
      ) : error ? (
        <div className="access-failure">
          <ErrorNotice error={error} onRetry={retry} />
          {sLabel && <p className="muted">The secret field was cleared; type it again before saving once more.</p>}
        </div>
      ) : null}
    </form>
  );
}
