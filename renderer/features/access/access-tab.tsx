import { useState } from 'react';
import type { WireError } from '../../../shared/contract/errors';
import type { CredentialInfo, EndpointInfo, HostKeyInfo } from '../../../shared/contract/methods/access';
import { useClient } from '../../api/client-context';
import { useQuery } from '../../api/use-query';
import { routeHref } from '../../app/router';
import { Age } from '../../components/age';
import { ErrorNotice } from '../../components/error-notice';
import { TableWrap } from '../../components/table-wrap';
import { AccessCheckPanel } from './access-check';
import { ACCESS_TRANSPORTS, KIND_LABEL, TRANSPORT_LABEL, credentialFor, scopeText, sourceText, winrmHttps, type AccessTransport } from './access-model';
import { EndpointForm, RemoveEndpointButton } from './endpoint-form';
import './access.css';

/**
 * The node-detail "Access" tab: how Windeck reaches the node per transport (endpoint and where it came from, the
 * credential that applies, never a secret), the SSH host keys known for it, the capability check, and the form to
 * set or remove an endpoint override.
 */
export function AccessTab({ node, cluster }: { node: string; cluster: string | null }) {
  // The active cluster is known a moment after the screen opens; wait for it, so forms are not reset under the user.
  if (cluster === null) return <p role="status">Loading the active cluster…</p>;
  return <AccessTabFor node={node} cluster={cluster} />;
}

function AccessTabFor({ node, cluster }: { node: string; cluster: string }) {
  const target = { cluster };
  const endpoints = useQuery('endpoints:list', { ...target, node }, { scopes: ['nodes'], node });
  const credentials = useQuery('credentials:list', { ...target, node }, { scopes: ['settings'] });
  const allCredentials = useQuery('credentials:list', { ...target }, { scopes: ['settings'] });
  const hostKeys = useQuery('hostkeys:list', {}, { scopes: ['settings'] });
  const model = useQuery('nodes:get', { ...target, name: node }, { scopes: ['nodes'], node });
  const refetchAll = () => {
    endpoints.refetch();
    credentials.refetch();
    allCredentials.refetch();
    hostKeys.refetch();
  };

  const eps = endpoints.data ?? [];
  const internalIP = model.data?.internalIP ?? null;
  const hosts = new Set([...eps.map((e) => e.host.toLowerCase()), ...(internalIP ? [internalIP.toLowerCase()] : []), node.toLowerCase()]);
  const keys = (hostKeys.data ?? []).filter((k) => k.node === node || hosts.has(k.host));

  return (
    <div className="access-tab">
      <section className="panel access-section" aria-labelledby="access-how-title">
        <h3 id="access-how-title">How Windeck reaches {node}</h3>
        {endpoints.status === 'loading' && <p role="status">Loading endpoints…</p>}
        {endpoints.error && <ErrorNotice error={endpoints.error} onRetry={endpoints.refetch} compact={endpoints.data !== undefined} />}
        {credentials.error && <ErrorNotice error={credentials.error} onRetry={credentials.refetch} compact={credentials.data !== undefined} />}
        {endpoints.data && (
          <ul className="access-transports" aria-label={`Transports of ${node}`}>
            {ACCESS_TRANSPORTS.map((t) => (
              <TransportCard
                key={t}
                node={node}
                cluster={cluster}
                transport={t}
                endpoint={eps.find((e) => e.transport === t)}
                applying={credentials.data ?? null}
                internalIP={internalIP}
                onChanged={refetchAll}
              />
            ))}
          </ul>
        )}
        <p className="muted">
          Credentials are managed on the <a href={routeHref({ name: 'credentials' })}>Credentials</a> screen; secrets are never shown.
        </p>
      </section>

      <AccessCheckPanel node={node} cluster={cluster} onHostKeyAccepted={hostKeys.refetch} />

      <HostKeys node={node} keys={keys} state={hostKeys} />

      {endpoints.data && <EndpointForm node={node} cluster={cluster} endpoints={eps} credentials={allCredentials.data ?? []} onSaved={refetchAll} />}
    </div>
  );
}

function TransportCard({
  node,
  cluster,
  transport,
  endpoint,
  applying,
  internalIP,
  onChanged,
}: {
  node: string;
  cluster: string | null;
  transport: AccessTransport;
  endpoint: EndpointInfo | undefined;
  applying: readonly CredentialInfo[] | null;
  internalIP: string | null;
  onChanged: () => void;
}) {
  const label = TRANSPORT_LABEL[transport];
  const cred = applying ? credentialFor(transport, endpoint, applying) : null;
  const opts = endpoint?.options ?? {};
  return (
    <li className="access-transport" aria-labelledby={`access-transport-${transport}`}>
      <h4 id={`access-transport-${transport}`}>{label}</h4>
      <dl className="kv access-kv">
        <div className="kv-row">
          <dt>Endpoint</dt>
          <dd>
            {endpoint ? (
              <>
                <code>{endpoint.url ?? `${endpoint.host}:${endpoint.port}`}</code> <span className="badge access-source">{sourceText(endpoint.source)}</span>
              </>
            ) : transport === 'ssh' ? (
              <>
                No override: the node name in <code>~/.ssh/config</code> if it is there, else the InternalIP
                {internalIP ? (
                  <>
                    {' '}
                    <code>{internalIP}</code>
                  </>
                ) : null}
                , port 22.
              </>
            ) : (
              <>Not configured: WinRM is used only with an endpoint set for the node.</>
            )}
          </dd>
        </div>
        {endpoint && transport === 'winrm' && (
          <div className="kv-row">
            <dt>Transport security</dt>
            <dd>
              {winrmHttps(endpoint) ? 'HTTPS' : 'HTTP (NTLM message encryption)'}
              {typeof opts.caPath === 'string' && (
                <>
                  , CA file <code>{opts.caPath}</code>
                </>
              )}
              {typeof opts.pinnedSha256 === 'string' && (
                <>
                  , pinned certificate <code className="access-fingerprint">{opts.pinnedSha256}</code>
                </>
              )}
            </dd>
          </div>
        )}
        {endpoint && transport === 'ssh' && typeof opts.username === 'string' && (
          <div className="kv-row">
            <dt>User</dt>
            <dd>{opts.username}</dd>
          </div>
        )}
        <div className="kv-row">
          <dt>Credential</dt>
          <dd>
            {applying === null ? (
              <span className="muted">loading…</span>
            ) : cred ? (
              <>
                <strong>{cred.name}</strong> · {KIND_LABEL[cred.kind]} · user {cred.username} · {scopeText(cred)}
                {endpoint?.credential === cred.name ? ' · named by the endpoint' : ''} ·{' '}
                {cred.hasSecret
                  ? 'secret stored'
                  : cred.kind === 'ssh-agent'
                    ? 'uses the ssh-agent'
                    : cred.kind === 'ssh-key'
                      ? 'key file, no passphrase stored'
                      : 'no secret stored'}
              </>
            ) : endpoint?.credential ? (
              <>
                <strong>{endpoint.credential}</strong> (named by the endpoint)
              </>
            ) : (
              <>None from Windeck{transport === 'ssh' ? ' (ssh uses ~/.ssh/config and the ssh-agent, if any)' : ''}.</>
            )}
          </dd>
        </div>
      </dl>
      {endpoint && <RemoveEndpointButton node={node} cluster={cluster} endpoint={endpoint} onRemoved={onChanged} />}
    </li>
  );
}

function HostKeys({
  node,
  keys,
  state,
}: {
  node: string;
  keys: readonly HostKeyInfo[];
  state: { status: string; error: WireError | null; refetch: () => void; data: unknown };
}) {
  const client = useClient();
  const [confirm, setConfirm] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ fingerprint: string; error: WireError } | null>(null);

  const forget = async (fingerprint: string) => {
    setBusy(true);
    setError(null);
    try {
      const r = await client.call('hostkeys:forget', { fingerprint });
      if (!r.ok) return setError({ fingerprint, error: r.error });
      setConfirm(null);
      state.refetch();
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel access-section" aria-labelledby="access-keys-title">
      <h3 id="access-keys-title">Known host keys</h3>
      {state.error && <ErrorNotice error={state.error} onRetry={state.refetch} compact={state.data !== undefined} />}
      {state.status === 'loading' && <p role="status">Loading host keys…</p>}
      {state.status === 'ok' && keys.length === 0 && (
        <p className="muted">
          No SSH host key of {node} is accepted in Windeck yet. Keys in your ~/.ssh/known_hosts are trusted too; they are not listed here.
        </p>
      )}
      {keys.length > 0 && (
        <TableWrap label={`Host keys of ${node}`}>
          <table className="plain-table">
            <thead>
              <tr>
                <th scope="col">Host</th>
                <th scope="col">Type</th>
                <th scope="col">Fingerprint</th>
                <th scope="col">Accepted</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={`${k.host}:${k.port}:${k.fingerprint}`}>
                  <th scope="row" className="wrap">
                    {k.host}:{k.port}
                  </th>
                  <td>{k.keyType}</td>
                  <td className="wrap">
                    <code className="access-fingerprint">{k.fingerprint}</code>
                  </td>
                  <td>
                    <Age at={k.acceptedAt} label="" /> <span className="muted">({k.source})</span>
                  </td>
                  <td>
                    {confirm === k.fingerprint ? (
                      <div role="group" aria-label={`Confirm forgetting the host key ${k.fingerprint}`} className="access-confirm">
                        <button type="button" className="small danger" disabled={busy} onClick={() => void forget(k.fingerprint)}>
                          Forget this key
                        </button>{' '}
                        <button type="button" className="small secondary" onClick={() => setConfirm(null)}>
                          Cancel
                        </button>
                      </div>
                    ) : (
                      <button type="button" className="small secondary" onClick={() => setConfirm(k.fingerprint)}>
                        Forget…<span className="visually-hidden"> the host key {k.fingerprint}</span>
                      </button>
                    )}
                    {error?.fingerprint === k.fingerprint && <ErrorNotice error={error.error} onRetry={() => void forget(k.fingerprint)} compact />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}
