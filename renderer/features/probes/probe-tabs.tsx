import { useDeferredValue, useMemo, useState } from 'react';
import { formatTimestamp } from '../../app/format';
import { TableWrap } from '../../components/table-wrap';
import type { ProbeReport } from '../../../shared/domain/probe';
import {
  grepLines,
  hnsField,
  hnsSubnets,
  probeView,
  DnsParsed,
  FilesParsed,
  HnsObjects,
  NetAdaptersParsed,
  ProcessesParsed,
  ServiceConfigParsed,
  ServicesParsed,
} from './probe-data';
import { ProbeSection } from './probe-section';

/** A time from the node (ISO text) in local time, or the text itself when it does not parse. */
function localTime(text: string | null | undefined): string {
  if (!text) return '—';
  const at = Date.parse(text);
  return Number.isNaN(at) ? text : formatTimestamp(at);
}

const SERVICE_CLASS: Record<string, string> = {
  Running: 'health-healthy',
  Stopped: 'health-error',
  StartPending: 'health-warning',
  StopPending: 'health-warning',
  Paused: 'health-warning',
};

/** Services: state, start type and since when (from the service's process start time). */
export function ServicesTab({ report }: { report: ProbeReport | undefined }) {
  const services = probeView(report, 'services', ServicesParsed);
  const config = probeView(report, 'service-config', ServiceConfigParsed);
  const processes = probeView(report, 'processes', ProcessesParsed);
  const since = useMemo(() => {
    const byPid = new Map<number, string | null | undefined>();
    if (processes.state === 'ok') for (const p of processes.value) byPid.set(p.pid, p.startedAt);
    const out = new Map<string, string>();
    if (config.state === 'ok') {
      for (const c of config.value) {
        const started = c.processId ? byPid.get(c.processId) : null;
        if (started) out.set(c.name.toLowerCase(), started);
      }
    }
    return out;
  }, [config, processes]);
  return (
    <>
      <ProbeSection title="Services" view={services}>
        {(v) => (
          <>
            <TableWrap label="Services">
              <table className="plain-table">
                <thead>
                  <tr>
                    <th scope="col">Service</th>
                    <th scope="col">State</th>
                    <th scope="col">Start type</th>
                    <th scope="col">Running since</th>
                  </tr>
                </thead>
                <tbody>
                  {v.services.map((s) => (
                    <tr key={s.name}>
                      <th scope="row">
                        {s.name}
                        {s.displayName && s.displayName !== s.name ? <span className="muted"> ({s.displayName})</span> : null}
                      </th>
                      <td>
                        <span className={`badge ${SERVICE_CLASS[s.status] ?? 'health-unknown'}`}>{s.status}</span>
                      </td>
                      <td>{s.startType ?? '—'}</td>
                      <td>{localTime(since.get(s.name.toLowerCase()))}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
            {v.missing.length > 0 && <p className="muted">Not installed on this node: {v.missing.join(', ')}.</p>}
          </>
        )}
      </ProbeSection>
      <ProbeSection title="Service configuration" view={config}>
        {(v) => (
          <dl className="kv">
            {v.map((c) => (
              <div className="kv-row" key={c.name}>
                <dt>{c.name}</dt>
                <dd>
                  <code>{c.commandLine || '—'}</code>
                  {c.dependOnService.length > 0 && <div className="muted">depends on {c.dependOnService.join(', ')}</div>}
                </dd>
              </div>
            ))}
          </dl>
        )}
      </ProbeSection>
    </>
  );
}

const CNI_FILE = /\\(cni|net\.d|azurecni)\\|subnet\.env|net-conf\.json|SourceVip/i;

/** Network: HNS networks and endpoints, load balancers, adapters and addresses, CNI config files. */
export function NetworkTab({ report }: { report: ProbeReport | undefined }) {
  const networks = probeView(report, 'hns-networks', HnsObjects);
  const endpoints = probeView(report, 'hns-endpoints', HnsObjects);
  const policies = probeView(report, 'hns-policies', HnsObjects);
  const adapters = probeView(report, 'net-adapters', NetAdaptersParsed);
  const files = probeView(report, 'files', FilesParsed);
  return (
    <>
      <ProbeSection title="HNS networks" view={networks}>
        {(v) =>
          v.length === 0 ? (
            <p>No HNS networks: the CNI has not created its network (or HNS lost it).</p>
          ) : (
            <TableWrap label="HNS networks">
              <table className="plain-table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Type</th>
                    <th scope="col">Subnets</th>
                    <th scope="col">Management IP</th>
                    <th scope="col">Adapter</th>
                  </tr>
                </thead>
                <tbody>
                  {v.map((n, i) => (
                    <tr key={hnsField(n, 'Id', 'ID') ?? i}>
                      <th scope="row">{hnsField(n, 'Name') ?? '—'}</th>
                      <td>{hnsField(n, 'Type') ?? '—'}</td>
                      <td>{hnsSubnets(n).join(', ') || '—'}</td>
                      <td>{hnsField(n, 'ManagementIP', 'ManagementIp', 'ManagementIPv4') ?? '—'}</td>
                      <td>{hnsField(n, 'NetworkAdapterName') ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )
        }
      </ProbeSection>
      <ProbeSection title="HNS endpoints" view={endpoints}>
        {(v) => (
          <>
            <p>
              {v.length} endpoints ({v.filter((e) => e.IsRemoteEndpoint === true).length} remote).
            </p>
            {v.length > 0 && (
              <details>
                <summary>Show endpoints</summary>
                <TableWrap label="HNS endpoints">
                  <table className="plain-table">
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">IP</th>
                        <th scope="col">Network</th>
                        <th scope="col">Remote</th>
                      </tr>
                    </thead>
                    <tbody>
                      {v.map((e, i) => (
                        <tr key={hnsField(e, 'Id', 'ID') ?? i}>
                          <th scope="row">{hnsField(e, 'Name') ?? '—'}</th>
                          <td>{hnsField(e, 'IPAddress') ?? '—'}</td>
                          <td>{hnsField(e, 'VirtualNetworkName') ?? '—'}</td>
                          <td>{e.IsRemoteEndpoint === true ? 'yes' : 'no'}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableWrap>
              </details>
            )}
          </>
        )}
      </ProbeSection>
      <ProbeSection title="Load balancers (HNS policy lists)" view={policies}>
        {(v) => (
          <p>{v.length} policy lists. kube-proxy creates one per Service endpoint set; none at all usually means kube-proxy is not programming this node.</p>
        )}
      </ProbeSection>
      <ProbeSection title="Network adapters" view={adapters}>
        {(v) => (
          <TableWrap label="Network adapters">
            <table className="plain-table">
              <thead>
                <tr>
                  <th scope="col">Adapter</th>
                  <th scope="col">Status</th>
                  <th scope="col">MAC</th>
                  <th scope="col">Addresses</th>
                </tr>
              </thead>
              <tbody>
                {v.adapters.map((a, i) => (
                  <tr key={`${a.name ?? ''}-${i}`}>
                    <th scope="row">
                      {a.name ?? '—'}
                      {a.interfaceDescription ? <div className="muted">{a.interfaceDescription}</div> : null}
                    </th>
                    <td>{a.status ?? '—'}</td>
                    <td>{a.macAddress ?? '—'}</td>
                    <td>
                      {v.ipAddresses
                        .filter((ip) => ip.interfaceAlias === a.name)
                        .map((ip) => `${ip.ipAddress ?? '?'}/${String(ip.prefixLength ?? '?')}`)
                        .join(', ') || '—'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </ProbeSection>
      <ProbeSection title="CNI configuration" view={files}>
        {(v) => {
          const cni = v.filter((f) => CNI_FILE.test(f.path));
          if (cni.length === 0) return <p className="muted">No CNI configuration file was found in the well-known places.</p>;
          return cni.map((f) => (
            <figure key={f.path} className="evidence">
              <figcaption>
                {f.path}
                {!f.exists && ' (missing)'}
                {f.truncated && ' (tail only)'}
              </figcaption>
              {f.exists && <pre>{f.text ?? '(binary content not shown)'}</pre>}
            </figure>
          ));
        }}
      </ProbeSection>
    </>
  );
}

/** DNS: each name the probe resolved on the node, and what came back. */
export function DnsTab({ report }: { report: ProbeReport | undefined }) {
  const dns = probeView(report, 'dns', DnsParsed);
  return (
    <ProbeSection title="DNS from the node" view={dns}>
      {(v) => (
        <>
          <TableWrap label="DNS results">
            <table className="plain-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Result</th>
                  <th scope="col">Answer</th>
                </tr>
              </thead>
              <tbody>
                {v.results.map((r) => (
                  <tr key={r.query}>
                    <th scope="row">{r.query}</th>
                    <td>
                      <span className={`badge ${r.succeeded ? 'health-healthy' : 'health-error'}`}>{r.succeeded ? 'resolved' : 'failed'}</span>
                    </td>
                    <td className="wrap">{r.succeeded ? r.addresses.join(', ') || r.answerName || '(no address)' : (r.error ?? 'no answer')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <p className="muted">DNS suffix search list: {v.suffixSearchList.length ? v.suffixSearchList.join(', ') : '(empty)'}</p>
        </>
      )}
    </ProbeSection>
  );
}

/** Logs: the tails the probe collected, with a search box. */
export function LogsTab({ report }: { report: ProbeReport | undefined }) {
  const logs = probeView(report, 'logs', FilesParsed);
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query);
  return (
    <ProbeSection title="Logs" view={logs}>
      {(v) => (
        <>
          <div className="field">
            <label htmlFor="log-search">Search the logs</label>
            <input id="log-search" type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="error, 0x803b0013, HNS…" />
          </div>
          {v.filter((f) => f.exists).length === 0 && <p className="muted">None of the known log files exist on this node.</p>}
          {v
            .filter((f) => f.exists)
            .map((f) => {
              const lines = grepLines(f.text ?? '', deferred);
              return (
                <figure key={f.path} className="evidence">
                  <figcaption>
                    {f.path} ({f.length.toLocaleString()} bytes{f.truncated ? ', tail' : ''}
                    {deferred ? `, ${lines.length} matching lines` : ''})
                  </figcaption>
                  <pre className="log">{lines.map((l) => `${String(l.n).padStart(5)}  ${l.line}`).join('\n')}</pre>
                </figure>
              );
            })}
        </>
      )}
    </ProbeSection>
  );
}
