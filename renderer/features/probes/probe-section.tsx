import type { ReactNode } from 'react';
import { ErrorNotice } from '../../components/error-notice';
import type { ProbeView } from './probe-data';

/** One probe's block: its data, or why there is none (not collected, failed, unreadable with the raw output). */
export function ProbeSection<T>({ title, view, children, absent }: { title: string; view: ProbeView<T>; children: (value: T) => ReactNode; absent?: string }) {
  return (
    <section className="panel probe-section" aria-label={title}>
      <h3>{title}</h3>
      {view.state === 'absent' && <p className="muted">{absent ?? 'This probe has not been collected on this node yet.'}</p>}
      {view.state === 'failed' &&
        (view.error ? <ErrorNotice error={view.error} compact /> : <p className="muted">The probe failed without an error message.</p>)}
      {view.state === 'unreadable' && <p className="muted">Windeck could not read this probe's parsed result; the raw output is below.</p>}
      {view.state === 'ok' && children(view.value)}
      {view.state !== 'absent' && view.raw !== null && (
        <details className="raw">
          <summary>Raw output ({view.raw.length.toLocaleString()} characters)</summary>
          <pre>{view.raw}</pre>
        </details>
      )}
    </section>
  );
}
