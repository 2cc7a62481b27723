import { useId, useState, type FormEvent } from 'react';
import type { WireError } from '../../../shared/contract/errors';
import type { CredentialInfo, EndpointInfo } from '../../../shared/contract/methods/access';
import { useClient } from '../../api/client-context';
import { ErrorNotice } from '../../components/error-notice';
import { ACCESS_TRANSPORTS, TRANSPORT_LABEL, addressableName, kindTransport, parsePort, winrmHttps, type AccessTransport } from './access-model';

interface Fields {
  transport: AccessTransport;
  host: string;
  port: string;
  credential: string;
  username: string;
  https: boolean;
  caPath: string;
  thumbprint: string;
}

function fieldsFrom(transport: AccessTransport, e: EndpointInfo | undefined): Fields {
  const o = e?.options ?? {};
  return {
    transport,
    host: e?.host ?? '',
    port: e ? String(e.port) : '',
    // A name the contract refuses (written by the demo) cannot be sent back; the form then says so.
    credential: e?.credential && addressableName(e.credential) ? e.credential : '',
    username: typeof o.username === 'string' ? o.username : '',
    https: e ? winrmHttps(e) : false,
    caPath: typeof o.caPath === 'string' ? o.caPath : '',
    thumbprint: typeof o.pinnedSha256 === 'string' ? o.pinnedSha256 : '',
  };
}

/** Set a node's address over one transport (an override stored in Windeck): host, port, credential, WinRM TLS. */
export function EndpointForm({
  node,
  cluster,
  endpoints,
  credentials,
  onSaved,
}: {
  node: string;
  cluster: string | null;
  endpoints: readonly EndpointInfo[];
  credentials: readonly CredentialInfo[];
  onSaved: () => void;
}) {
  const client = useClient();
  const id = useId();
  const [f, setF] = useState<Fields>(() =>
    fieldsFrom(
      'ssh',
      endpoints.find((e) => e.transport === 'ssh'),
    ),
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<WireError | null>(null);
  const [localError, setLocalError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const set = (patch: Partial<Fields>) => setF((x) => ({ ...x, ...patch }));
  const usable = credentials.filter((c) => kindTransport(c.kind) === f.transport && addressableName(c.name));
  const current = endpoints.find((x) => x.transport === f.transport);
  const unaddressable = current?.credential && !addressableName(current.credential) ? current.credential : null;

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    setError(null);
    setSaved(null);
    const port = parsePort(f.port);
    if (!port.ok) return setLocalError(port.message);
    if (f.host.trim() === '') return setLocalError('Give the host: a DNS name or an IP address.');
    setLocalError(null);
    setBusy(true);
    try {
      const winrm =
        f.transport === 'winrm'
          ? {
              ...(f.https ? { https: true } : {}),
              ...(f.caPath.trim() ? { caPath: f.caPath.trim() } : {}),
              ...(f.thumbprint.trim() ? { pinnedSha256: f.thumbprint.trim() } : {}),
            }
          : null;
      const r = await client.call('endpoints:set', {
        ...(cluster ? { cluster } : {}),
        node,
        transport: f.transport,
        host: f.host.trim(),
        ...(port.port !== undefined ? { port: port.port } : {}),
        ...(f.credential ? { credential: f.credential } : {}),
        ...(f.transport === 'ssh' && f.username.trim() ? { ssh: { username: f.username.trim() } } : {}),
        ...(winrm && Object.keys(winrm).length > 0 ? { winrm } : {}),
      });
      if (!r.ok) return setError(r.error);
      setSaved(
        `Saved: ${TRANSPORT_LABEL[r.value.transport]} to ${r.value.url ?? `${r.value.host}:${r.value.port}`}${r.value.credential ? ` with ${r.value.credential}` : ''}.`,
      );
      onSaved();
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="panel access-section access-form" onSubmit={(e) => void submit(e)} aria-labelledby={`${id}-title`} noValidate>
      <h3 id={`${id}-title`}>Set an endpoint override</h3>
      <p className="muted">Where Windeck connects for {node}, instead of what it would find by itself. Saving replaces the override of that transport.</p>
      <div className="access-grid">
        <div className="field">
          <label htmlFor={`${id}-transport`}>Transport</label>
          <select
            id={`${id}-transport`}
            value={f.transport}
            onChange={(e) => {
              const t = e.target.value as AccessTransport;
              setF(
                fieldsFrom(
                  t,
                  endpoints.find((x) => x.transport === t),
                ),
              );
            }}
          >
            {ACCESS_TRANSPORTS.map((t) => (
              <option key={t} value={t}>
                {TRANSPORT_LABEL[t]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-host`}>Host</label>
          <input
            id={`${id}-host`}
            value={f.host}
            required
            spellCheck={false}
            autoComplete="off"
            placeholder="10.0.0.12 or win-1.corp.example"
            onChange={(e) => set({ host: e.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-port`}>Port (optional)</label>
          <input
            id={`${id}-port`}
            value={f.port}
            inputMode="numeric"
            autoComplete="off"
            placeholder={f.transport === 'ssh' ? '22' : f.https ? '5986' : '5985'}
            onChange={(e) => set({ port: e.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-credential`}>Credential</label>
          <select
            id={`${id}-credential`}
            value={f.credential}
            onChange={(e) => set({ credential: e.target.value })}
            {...(unaddressable ? { 'aria-describedby': `${id}-credential-note` } : {})}
          >
            <option value="">Automatic (the most specific that applies)</option>
            {usable.map((c) => (
              <option key={c.id} value={c.name}>
                {c.name} ({c.username})
              </option>
            ))}
            {f.credential && !usable.some((c) => c.name === f.credential) && <option value={f.credential}>{f.credential}</option>}
          </select>
          {unaddressable && (
            <p id={`${id}-credential-note`} className="muted">
              The stored override names “{unaddressable}”, which cannot be chosen here (its name has characters the contract refuses). Saving with “Automatic”
              uses the most specific credential that applies.
            </p>
          )}
        </div>
        {f.transport === 'ssh' && (
          <div className="field">
            <label htmlFor={`${id}-user`}>User without a credential (optional)</label>
            <input id={`${id}-user`} value={f.username} spellCheck={false} autoComplete="off" onChange={(e) => set({ username: e.target.value })} />
          </div>
        )}
      </div>
      {f.transport === 'winrm' && (
        <fieldset className="access-fieldset">
          <legend>WinRM transport security</legend>
          <label className="access-check-row">
            <input type="checkbox" checked={f.https} onChange={(e) => set({ https: e.target.checked })} /> Use HTTPS (port 5986 by default)
          </label>
          <div className="access-grid">
            <div className="field">
              <label htmlFor={`${id}-ca`}>CA certificate file (PEM, optional)</label>
              <input
                id={`${id}-ca`}
                value={f.caPath}
                spellCheck={false}
                autoComplete="off"
                placeholder="/etc/windeck/corp-ca.pem"
                onChange={(e) => set({ caPath: e.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-thumb`}>Pinned certificate SHA-256 thumbprint (optional)</label>
              <input id={`${id}-thumb`} value={f.thumbprint} spellCheck={false} autoComplete="off" onChange={(e) => set({ thumbprint: e.target.value })} />
            </div>
          </div>
          <p className="muted">A CA file or a pinned thumbprint implies HTTPS. Basic authentication is only allowed over HTTPS.</p>
        </fieldset>
      )}
      <div className="button-row">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save endpoint'}
        </button>
      </div>
      <div aria-live="polite">
        {saved && <p role="status">{saved}</p>}
        {localError && (
          <p className="access-error-text" role="alert">
            {localError}
          </p>
        )}
      </div>
      {error && <ErrorNotice error={error} onRetry={() => void submit()} />}
    </form>
  );
}

/** Remove a stored endpoint, after an inline confirmation. */
export function RemoveEndpointButton({
  node,
  cluster,
  endpoint,
  onRemoved,
}: {
  node: string;
  cluster: string | null;
  endpoint: EndpointInfo;
  onRemoved: () => void;
}) {
  const client = useClient();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<WireError | null>(null);
  const label = TRANSPORT_LABEL[endpoint.transport as AccessTransport] ?? endpoint.transport;

  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      const r = await client.call('endpoints:remove', { ...(cluster ? { cluster } : {}), node, transport: endpoint.transport });
      if (!r.ok) return setError(r.error);
      setConfirming(false);
      onRemoved();
    } finally {
      setBusy(false);
    }
  };

  if (!confirming)
    return (
      <button type="button" className="small secondary" onClick={() => setConfirming(true)}>
        Remove…
        <span className="visually-hidden">
          {' '}
          the {label} endpoint of {node}
        </span>
      </button>
    );
  return (
    <div className="access-confirm" role="group" aria-label={`Confirm removing the ${label} endpoint of ${node}`}>
      <p>
        Remove the {label} endpoint <code>{endpoint.url ?? `${endpoint.host}:${endpoint.port}`}</code>? Windeck then finds the address by itself
        {endpoint.transport === 'winrm' ? ' (WinRM is not configured without one)' : ''}.
      </p>
      <button type="button" className="small danger" disabled={busy} onClick={() => void remove()}>
        {busy ? 'Removing…' : `Remove ${label} endpoint`}
      </button>{' '}
      <button type="button" className="small secondary" onClick={() => setConfirming(false)}>
        Cancel
      </button>
      {error && <ErrorNotice error={error} onRetry={() => void remove()} compact />}
    </div>
  );
}
