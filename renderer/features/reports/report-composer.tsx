import { useEffect, useRef, useState } from 'react';
import type { WireError } from '../../../shared/contract/errors';
import type { ReportResult } from '../../../shared/contract/methods/bundles';
import { FORM_LABELS } from '../../../shared/report/render';
import { useClient } from '../../api/client-context';
import { CopyButton } from '../../components/copy-button';
import { ErrorNotice } from '../../components/error-notice';
import { MarkdownView } from '../../components/markdown-view';
import { useActiveCluster } from '../clusters/live-context';
import { UI_REPORT_RENDER_DEBOUNCE_MS } from '../../../shared/domain/limits';
import { saveTextFile } from './report-io';

const USER_FIELDS = ['problem', 'expected', 'repro', 'additional'] as const;
type UserField = (typeof USER_FIELDS)[number];
type UserText = Record<UserField, string> & { title: string };

const EMPTY: UserText = { title: '', problem: '', expected: '', repro: '', additional: '' };

/**
 * The bug report composer: the Kubernetes bug-report form drafted from stored evidence, the user's own words for
 * what happened, what was expected and how to reproduce, a live preview, copy, save and a prefilled GitHub URL.
 */
export function ReportComposer({ node }: { node: string }) {
  const client = useClient();
  const { cluster } = useActiveCluster();
  const [text, setText] = useState<UserText>(EMPTY);
  const [result, setResult] = useState<ReportResult | null>(null);
  const [error, setError] = useState<WireError | null>(null);
  const [view, setView] = useState<'rendered' | 'source'>('rendered');
  const [saveNote, setSaveNote] = useState<string | null>(null);
  const prefilled = useRef(false);
  const seq = useRef(0);

  useEffect(() => {
    const mine = ++seq.current;
    const timer = setTimeout(
      () => {
        const user = Object.fromEntries(Object.entries(text).filter(([, v]) => v.trim() !== '')) as Partial<UserText>;
        void client.call('reports:render', { ...(cluster ? { cluster: cluster.id } : {}), node, format: 'md', ...user }).then((r) => {
          if (mine !== seq.current) return;
          if (!r.ok) {
            setError(r.error);
            return;
          }
          setError(null);
          setResult(r.value);
          if (!prefilled.current) {
            // First draft: put the drafted text into the boxes so the user edits it rather than starts blank.
            prefilled.current = true;
            const f = r.value.report.fields;
            setText((t) => ({
              title: t.title || r.value.report.title,
              problem: t.problem || (f.problem?.value ?? ''),
              expected: t.expected || (f.expected?.value ?? ''),
              repro: t.repro || (f.repro?.value ?? ''),
              additional: t.additional || (f.additional?.value ?? ''),
            }));
          }
        });
      },
      prefilled.current ? UI_REPORT_RENDER_DEBOUNCE_MS : 0,
    );
    return () => clearTimeout(timer);
  }, [client, cluster, node, text]);

  const report = result?.report;
  return (
    <section className="panel report-composer" aria-labelledby="report-title">
      <h3 id="report-title">Bug report for {node}</h3>
      <p className="muted">
        Drafted from what Windeck stored about this node for the <code>kubernetes/kubernetes</code> bug-report form. Text marked
        <code> [draft - please edit]</code> was guessed from the findings: check it before filing.
      </p>
      {error && <ErrorNotice error={error} />}
      <div className="report-grid">
        <form className="report-fields" onSubmit={(e) => e.preventDefault()} aria-label="Report fields">
          <div className="field">
            <label htmlFor="report-title-input">Title</label>
            <input id="report-title-input" value={text.title} onChange={(e) => setText({ ...text, title: e.target.value })} maxLength={256} />
          </div>
          {USER_FIELDS.map((id) => (
            <div className="field" key={id}>
              <label htmlFor={`report-${id}`}>{FORM_LABELS[id]}</label>
              <textarea
                id={`report-${id}`}
                rows={id === 'additional' ? 3 : 5}
                value={text[id]}
                maxLength={20_000}
                onChange={(e) => setText({ ...text, [id]: e.target.value })}
              />
            </div>
          ))}
          {report?.suggestion && (
            <p className="notice notice-info">
              Consider filing at <strong>{report.suggestion.repository}</strong> instead: {report.suggestion.reason}.
            </p>
          )}
        </form>
        <div className="report-preview">
          <div className="button-row" role="group" aria-label="Report actions">
            <button type="button" className="secondary" aria-pressed={view === 'rendered'} onClick={() => setView(view === 'rendered' ? 'source' : 'rendered')}>
              {view === 'rendered' ? 'Show Markdown source' : 'Show preview'}
            </button>
            {report && <CopyButton text={report.body} what="report Markdown" />}
            {report && (
              <button
                type="button"
                className="secondary small"
                onClick={() => {
                  const name = `windeck-report-${node}.md`;
                  saveTextFile(name, report.body);
                  setSaveNote(`Saved as ${name} (your browser's download folder).`);
                }}
              >
                Save .md
              </button>
            )}
            {report && (
              <a className="button small" href={report.url} target="_blank" rel="noopener noreferrer">
                Open in GitHub
              </a>
            )}
          </div>
          {saveNote && (
            <p className="muted" role="status">
              {saveNote}
            </p>
          )}
          {report && report.urlOmitted.length > 0 && (
            <p className="muted">
              The GitHub link leaves out {report.urlOmitted.map((f) => FORM_LABELS[f]).join(', ')} (too long for a URL): paste the copied text there.
            </p>
          )}
          {report?.truncated && <p className="muted">The body was shortened to GitHub's limit.</p>}
          {!report && !error && <p role="status">Drafting the report…</p>}
          {report &&
            (view === 'rendered' ? <MarkdownView source={report.body} label="Report preview" /> : <pre aria-label="Report Markdown source">{report.body}</pre>)}
        </div>
      </div>
    </section>
  );
}
