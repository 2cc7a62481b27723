import type { AppInfo } from '../../../shared/contract/methods/app';

/** No cluster in the store yet: say exactly what to do next. */
export function NoClusterState({ info }: { info: AppInfo | undefined }) {
  return (
    <section className="panel empty-state" aria-labelledby="empty-title">
      <h2 id="empty-title">No cluster yet</h2>
      {info?.demo && !info.demo.running && <p>The demo cluster is registered in this data directory but is not running right now.</p>}
      <p>Windeck shows what it has stored. Nothing is stored yet. Either:</p>
      <ol>
        <li>
          run <code>windeck demo</code> in a terminal to start a simulated cluster with Windows nodes (it appears here by itself), or
        </li>
        <li>
          add a kubeconfig: open <strong>Add cluster · switch context</strong> at the top, give the file&apos;s path, then switch to one of its contexts (or
          start Windeck with <code>KUBECONFIG</code> set).
        </li>
      </ol>
      {info && (
        <p className="muted">
          Data directory: <code>{info.home}</code>
        </p>
      )}
    </section>
  );
}
