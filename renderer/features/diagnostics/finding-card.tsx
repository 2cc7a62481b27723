import type { Finding } from '../../../shared/domain/finding';
import { CopyButton } from '../../components/copy-button';
import { SeverityBadge } from '../../components/status-badge';

function safeHref(link: string): string | null {
  try {
    const u = new URL(link);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

/** One finding: severity, what is wrong, the evidence excerpt it rests on, and how to fix it. All text, no markup. */
export function FindingCard({ finding, headingLevel = 3 }: { finding: Finding; headingLevel?: 3 | 4 }) {
  const H = headingLevel === 3 ? 'h3' : 'h4';
  return (
    <article className={`finding finding-${finding.severity}`} aria-label={`${finding.severity}: ${finding.title}`}>
      <header className="finding-head">
        <SeverityBadge severity={finding.severity} />
        <H className="finding-title">{finding.title}</H>
        <code className="rule-id" title="Rule id">
          {finding.ruleId}
        </code>
        {finding.node && <span className="muted">node {finding.node}</span>}
      </header>
      {finding.evidence.length > 0 && (
        <section aria-label="Evidence">
          <h5>Evidence</h5>
          {finding.evidence.map((e, i) => (
            <figure key={`${e.source}-${e.line ?? 'x'}-${i}`} className="evidence">
              <figcaption>
                {e.source}
                {e.line !== null ? `, line ${e.line}` : ''}
              </figcaption>
              <pre className="excerpt">{e.excerpt}</pre>
            </figure>
          ))}
        </section>
      )}
      <section aria-label="Remediation">
        <h5>What to do</h5>
        <p>{finding.remediation.summary}</p>
        {finding.remediation.steps.length > 0 && (
          <ol className="steps">
            {finding.remediation.steps.map((s, i) => (
              <li key={i}>{s}</li>
            ))}
          </ol>
        )}
        {finding.remediation.commands.map((c, i) => (
          <div key={i} className="command">
            <pre>
              <code>{c}</code>
            </pre>
            <CopyButton text={c} what={`command ${i + 1} of ${finding.title}`} />
          </div>
        ))}
        {finding.remediation.links.length > 0 && (
          <ul className="links">
            {finding.remediation.links.map((l) => {
              const href = safeHref(l);
              return (
                <li key={l}>
                  {href ? (
                    <a href={href} target="_blank" rel="noopener noreferrer">
                      {l}
                    </a>
                  ) : (
                    <span>{l}</span>
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </section>
    </article>
  );
}

const ORDER = { error: 0, warning: 1, info: 2 } as const;

/** Findings, worst first. */
export function FindingList({ findings, empty }: { findings: readonly Finding[]; empty: string }) {
  if (findings.length === 0) return <p className="muted">{empty}</p>;
  const sorted = [...findings].sort((a, b) => ORDER[a.severity] - ORDER[b.severity] || a.title.localeCompare(b.title));
  return (
    <div className="findings">
      {sorted.map((f, i) => (
        <FindingCard key={`${f.ruleId}-${f.node ?? ''}-${i}`} finding={f} />
      ))}
    </div>
  );
}
