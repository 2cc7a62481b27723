import type { StoredFinding } from '../../../shared/contract/methods/diagnose';
import { useQuery } from '../../api/use-query';
import { Age } from '../../components/age';
import { ErrorNotice } from '../../components/error-notice';
import { FindingList } from './finding-card';

/** Stored findings for one node, worst first, with when and by which diagnosis they were found. */
export function FindingsTab({ node, cluster }: { node: string; cluster: string | null }) {
  const q = useQuery('findings:list', { ...(cluster ? { cluster } : {}), node }, { scopes: ['findings'], node, enabled: cluster !== null });
  if (q.status === 'loading') return <p role="status">Loading stored findings…</p>;
  if (!q.data) return q.error ? <ErrorNotice error={q.error} onRetry={q.refetch} /> : null;
  const findings: StoredFinding[] = q.data;
  const newest = findings.reduce<number | null>((m, f) => (m === null || f.foundAt > m ? f.foundAt : m), null);
  const sources = [...new Set(findings.map((f) => f.source))];
  return (
    <>
      {q.error && <ErrorNotice error={q.error} onRetry={q.refetch} compact />}
      {findings.length > 0 && (
        <p className="muted">
          {findings.length} open findings from {sources.join(', ')}; newest found <Age at={newest} label="" />. Run diagnosis again to refresh them.
        </p>
      )}
      <FindingList findings={findings} empty="No findings are stored for this node. Run diagnosis while it is reachable, or import a bundle." />
    </>
  );
}
