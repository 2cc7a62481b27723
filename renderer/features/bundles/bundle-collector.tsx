import { useEffect, useState } from 'react';
import type { WireError } from '../../../shared/contract/errors';
import { BundleExportResult, BundlePreview, type RedactionLevel } from '../../../shared/contract/methods/bundles';
import { useClient } from '../../api/client-context';
import { useQuery } from '../../api/use-query';
import { formatTimestamp } from '../../app/format';
import { CopyButton } from '../../components/copy-button';
import { TableWrap } from '../../components/table-wrap';
import { ErrorNotice } from '../../components/error-notice';
import { ProgressBar } from '../../components/progress-bar';
import { useActiveCluster } from '../clusters/live-context';
import { useOperation } from '../operations/use-operation';
import type { OperationView } from '../operations/operation-view';

const SINCE_CHOICES = [
  { value: '30m', label: 'last 30 minutes' },
  { value: '2h', label: 'last 2 hours' },
  { value: '1d', label: 'last day' },
] as const;

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function stamp(at: number): string {
  return formatTimestamp(at).replace(/[-: ]/g, '').slice(0, 13);
}

/** The outcome of a finished operation parsed with `schema`, or the operation's error. */
function outcome<T>(
  op: OperationView | null,
  parse: (v: unknown) => { success: true; data: T } | { success: false },
): { value: T | null; error: WireError | null } {
  if (!op || !['succeeded', 'failed', 'cancelled', 'timed-out'].includes(op.state)) return { value: null, error: null };
  if (op.state !== 'succeeded') return { value: null, error: op.error ?? { code: 'INTERNAL', message: `${op.title} ended ${op.state}.`, retryable: false } };
  if (op.result === undefined) return { value: null, error: null }; // the stored outcome is still being read
  const p = parse(op.result);
  return p.success
    ? { value: p.data, error: null }
    : { value: null, error: { code: 'PARSE_FAILED', message: 'The backend answer does not match the contract.', retryable: false } };
}

function Progress({ op, label, onCancel }: { op: OperationView | null; label: string; onCancel: () => void }) {
  if (!op || !['queued', 'running'].includes(op.state)) return null;
  return (
    <div className="inline-progress" role="status">
      <ProgressBar fraction={op.fraction} label={label} />
      <span>{op.message ?? op.step.title}</span>
      <button type="button" className="secondary small" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

/** Collect a redacted bundle: options, a preview of what redaction found where, then save it to a path. */
export function BundleCollector({ node }: { node: string }) {
  const client = useClient();
  const { cluster, liveness } = useActiveCluster();
  const info = useQuery('app:info', {}, { scopes: ['settings'] });
  const [since, setSince] = useState<string>('2h');
  const [redact, setRedact] = useState<RedactionLevel>('standard');
  const [storeOnly, setStoreOnly] = useState(!liveness.live);
  const [previewOpId, setPreviewOpId] = useState<string | null>(null);
  const [exportOpId, setExportOpId] = useState<string | null>(null);
  const [output, setOutput] = useState('');
  const [callError, setCallError] = useState<WireError | null>(null);
  const previewOp = useOperation(previewOpId);
  const exportOp = useOperation(exportOpId);
  const preview = outcome(previewOp.op, (v) => BundlePreview.safeParse(v));
  const exported = outcome(exportOp.op, (v) => BundleExportResult.safeParse(v));
  const offline = storeOnly || !liveness.live;

  useEffect(() => {
    if (output === '' && info.data) setOutput(`${info.data.home.replace(/[\\/]$/, '')}/bundles/windeck-${node}-${stamp(Date.now())}.zip`);
  }, [info.data, node, output]);

  async function collect() {
    setCallError(null);
    setExportOpId(null);
    const r = await client.call('bundles:preview', {
      ...(cluster ? { cluster: cluster.id } : {}),
      nodes: [node],
      since,
      redact,
      ...(offline ? { offline: true } : {}),
    });
    if (r.ok) setPreviewOpId(r.value.operationId);
    else setCallError(r.error);
  }

  async function save(previewId: string) {
    setCallError(null);
    const r = await client.call('bundles:export', { previewId, output });
    if (r.ok) setExportOpId(r.value.operationId);
    else setCallError(r.error);
  }

  const p = preview.value;
  const redactedTotal = p ? Object.values(p.redaction.counts).reduce((a, b) => a + b, 0) : 0;
  return (
    <section className="panel bundle-collector" aria-labelledby="bundle-title">
      <h3 id="bundle-title">Collect a bundle for {node}</h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void collect();
        }}
      >
        <div className="toolbar">
          <div className="field">
            <label htmlFor="bundle-since">Logs from the</label>
            <select id="bundle-since" value={since} onChange={(e) => setSince(e.target.value)}>
              {SINCE_CHOICES.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </div>
          <fieldset>
            <legend>Redaction</legend>
            <div className="radio-row">
              <label>
                <input type="radio" name="redact" checked={redact === 'standard'} onChange={() => setRedact('standard')} /> standard (secrets)
              </label>
              <label>
                <input type="radio" name="redact" checked={redact === 'strict'} onChange={() => setRedact('strict')} /> strict (also IPs, host names, MACs as
                pseudonyms)
              </label>
            </div>
          </fieldset>
          <label className="check-row">
            <input type="checkbox" checked={offline} disabled={!liveness.live} onChange={(e) => setStoreOnly(e.target.checked)} /> From the store only (contact
            nothing)
          </label>
        </div>
        {!liveness.live && <p className="muted">Collecting from the store only: {liveness.reason}</p>}
        <button type="submit" disabled={previewOp.op?.state === 'running'}>
          Collect and preview
        </button>
      </form>
      {callError && <ErrorNotice error={callError} />}
      <Progress op={previewOp.op} label="Collecting" onCancel={() => void previewOp.cancel()} />
      {preview.error && <ErrorNotice error={preview.error} onRetry={() => void collect()} />}
      {p && (
        <div className="bundle-preview">
          <h4>Preview: what redaction found</h4>
          <p>
            {p.status === 'complete' ? 'Complete.' : 'Incomplete:'} {p.files.length} files, {formatBytes(p.totalBytes)}, {redactedTotal} values redacted (
            {p.redaction.level}).
            {Object.entries(p.redaction.counts).length > 0 &&
              ` ${Object.entries(p.redaction.counts)
                .map(([k, n]) => `${k}: ${n}`)
                .join(', ')}.`}
          </p>
          {p.errors.length > 0 && (
            <ul className="reasons-list" aria-label="What could not be collected">
              {p.errors.map((e, i) => (
                <li key={i}>
                  {e.node ?? 'cluster'} / {e.step}: {e.message}
                </li>
              ))}
            </ul>
          )}
          <TableWrap label="Files in the bundle">
            <table className="plain-table">
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col">Size</th>
                  <th scope="col">Redacted</th>
                </tr>
              </thead>
              <tbody>
                {p.files.map((f) => {
                  const n = Object.values(f.counts).reduce((a, b) => a + b, 0);
                  return (
                    <tr key={f.path}>
                      <th scope="row">{f.path}</th>
                      <td>{formatBytes(f.size)}</td>
                      <td>
                        {n === 0 ? (
                          <span className="muted">nothing</span>
                        ) : (
                          <details>
                            <summary>
                              {n}:{' '}
                              {Object.entries(f.counts)
                                .map(([k, c]) => `${k} ${c}`)
                                .join(', ')}
                            </summary>
                            <ul>
                              {f.findings.map((x, i) => (
                                <li key={i}>
                                  line {x.line}:{x.column} {x.kind} ({x.encoding}) {x.hint}
                                </li>
                              ))}
                              {f.findingsTruncated && <li className="muted">more not listed</li>}
                            </ul>
                          </details>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
          <p className="muted">The previewed data is kept until {formatTimestamp(p.expiresAt)}.</p>
          <form
            className="toolbar"
            onSubmit={(e) => {
              e.preventDefault();
              void save(p.previewId);
            }}
          >
            <div className="field grow">
              <label htmlFor="bundle-output">Save as (a .zip path, or a folder ending in /, on the machine running Windeck)</label>
              <input id="bundle-output" value={output} onChange={(e) => setOutput(e.target.value)} spellCheck={false} />
            </div>
            <button type="submit" disabled={output.trim() === '' || exportOp.op?.state === 'running'}>
              Save bundle
            </button>
          </form>
        </div>
      )}
      <Progress op={exportOp.op} label="Writing the bundle" onCancel={() => void exportOp.cancel()} />
      {exported.error && <ErrorNotice error={exported.error} />}
      {exported.value && (
        <div className="notice notice-info" role="status">
          <p>
            <strong>Bundle written</strong> ({exported.value.manifest.status}, {exported.value.manifest.files.length} files):
          </p>
          <ul>
            {exported.value.paths.map((path) => (
              <li key={path}>
                <code>{path}</code> <CopyButton text={path} what={`path ${path}`} />
              </li>
            ))}
          </ul>
          {exported.value.retryJobs.length > 0 && <p>Windeck will retry {exported.value.retryJobs.map((j) => j.node).join(', ')} when reachable again.</p>}
        </div>
      )}
    </section>
  );
}
