import { useState } from 'react';
import type { WireError } from '../../../shared/contract/errors';
import type { AccessCheck, AccessCheckResult } from '../../../shared/contract/methods/access';
import { useClient } from '../../api/client-context';
import { ErrorNotice } from '../../components/error-notice';
import { TableWrap } from '../../components/table-wrap';
import { OUTCOME_VIEW, TRANSPORT_LABEL, outcomeAdvice } from './access-model';

/** The outcome as a badge: icon and word, coloured by tone (never colour alone). */
export function OutcomeBadge({ check }: { check: Pick<AccessCheck, 'outcome'> }) {
  const v = OUTCOME_VIEW[check.outcome];
  return (
    <span className={`badge access-outcome access-tone-${v.tone}`}>
      <span aria-hidden="true">{v.icon}</span> {v.label}
    </span>
  );
}

/**
 * "Check access": every transport is tried with a fresh connection (`nodes:access-check`); a table says which works
 * and exactly why each other does not. An unknown SSH host key can be accepted here, by its exact fingerprint.
 */
export function AccessCheckPanel({ node, cluster, onHostKeyAccepted }: { node: string; cluster: string | null; onHostKeyAccepted?: () => void }) {
  const client = useClient();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<AccessCheckResult | null>(null);
  const [error, setError] = useState<WireError | null>(null);
  const [accepting, setAccepting] = useState<string | null>(null);
  const [acceptError, setAcceptError] = useState<{ fingerprint: string; error: WireError } | null>(null);
  const [accepted, setAccepted] = useState<string | null>(null);
  const target = cluster ? { cluster } : {};

  const check = async () => {
    setBusy(true);
    setError(null);
    try {
      const r = await client.call('nodes:access-check', { ...target, node });
      if (!r.ok) {
        setResult(null);
        return setError(r.error);
      }
      setResult(r.value);
    } finally {
      setBusy(false);
    }
  };

  const accept = async (fingerprint: string) => {
    setAccepting(fingerprint);
    setAcceptError(null);
    setAccepted(null);
    try {
      const r = await client.call('hostkeys:accept', { ...target, node, fingerprint });
      if (!r.ok) return setAcceptError({ fingerprint, error: r.error });
      setAccepted(`Trusted the ${r.value.keyType} host key ${r.value.fingerprint} of ${r.value.host}:${r.value.port}.`);
      onHostKeyAccepted?.();
    } finally {
      setAccepting(null);
    }
    await check();
  };

  return (
    <section className="panel access-section" aria-labelledby="access-check-title">
      <h3 id="access-check-title">Check access</h3>
      <p className="muted">Tries every transport with a fresh connection and runs one read-only command. Nothing on the node is changed.</p>
      <div className="button-row">
        <button type="button" onClick={() => void check()} disabled={busy}>
          {busy ? 'Checking…' : result || error ? 'Check access again' : 'Check access'}
        </button>
      </div>
      <div aria-live="polite">
        {busy && <p role="status">Checking how Windeck reaches {node}…</p>}
        {accepted && <p role="status">{accepted}</p>}
      </div>
      {error && <ErrorNotice error={error} onRetry={() => void check()} />}
      {result && !busy && (
        <>
          <p className={`access-summary ${result.works ? 'access-summary-ok' : 'access-summary-bad'}`} role="status">
            {result.works ? `${node} is reachable over ${TRANSPORT_LABEL[result.works]}.` : `No transport reaches ${node}.`}
          </p>
          <TableWrap label={`Access check of ${node}`}>
            <table className="plain-table access-table">
              <caption className="visually-hidden">Access check result per transport</caption>
              <thead>
                <tr>
                  <th scope="col">Transport</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Credential</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {result.checks.map((c) => (
                  <tr key={c.transport} className={c.outcome === 'host-key-changed' ? 'access-row-danger' : undefined}>
                    <th scope="row">{TRANSPORT_LABEL[c.transport]}</th>
                    <td>
                      <OutcomeBadge check={c} />
                      {c.durationMs > 0 && <span className="muted access-duration"> {c.durationMs} ms</span>}
                    </td>
                    <td className="wrap">
                      <code>{c.endpoint}</code>
                    </td>
                    <td className="wrap">{c.credential ? `${c.credential} (${c.username ?? '?'})` : (c.username ?? 'none')}</td>
                    <td className="wrap access-reason">
                      <p>{c.message}</p>
                      {c.outcome !== 'works' && <p className="muted">{outcomeAdvice(c.outcome, c.transport)}</p>}
                      {c.fingerprint && (
                        <p>
                          {c.outcome === 'host-key-changed' ? 'Presented key:' : 'Fingerprint:'} <code className="access-fingerprint">{c.fingerprint}</code>
                        </p>
                      )}
                      {c.outcome === 'host-key-unknown' && c.fingerprint && (
                        <button type="button" className="small" disabled={accepting !== null} onClick={() => void accept(c.fingerprint!)}>
                          {accepting === c.fingerprint ? 'Accepting…' : 'Accept this key'}
                          <span className="visually-hidden">
                            {' '}
                            {c.fingerprint} for {node}
                          </span>
                        </button>
                      )}
                      {acceptError && acceptError.fingerprint === c.fingerprint && (
                        <div className="access-failure">
                          <ErrorNotice error={acceptError.error} compact />
                          <button type="button" className="small" disabled={accepting !== null} onClick={() => void accept(acceptError.fingerprint)}>
                            Retry<span className="visually-hidden"> accepting the host key of {node}</span>
                          </button>
                        </div>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </>
      )}
    </section>
  );
}
