import type { BundleError, BundlePreview, RedactionLevel } from '../../../shared/contract/methods/bundles';
import type { BundleStage } from './stage';

/**
 * The preview shown before export (issue 6 item 2): per file what redaction found (kinds, line and column, a
 * hint that never holds the value) and the totals. Built from the staging area, so it describes exactly what
 * an export of this preview writes.
 */
export function buildPreview(input: {
  previewId: string;
  stage: BundleStage;
  level: RedactionLevel;
  nodes: string[];
  errors: BundleError[];
  expiresAt: number;
  maxFindingsPerFile?: number;
}): BundlePreview {
  const max = input.maxFindingsPerFile ?? 200;
  const files = [...input.stage.records.values()]
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((r) => ({
      path: r.path,
      size: r.size,
      counts: Object.fromEntries(Object.entries(r.counts).filter(([, n]) => n > 0)),
      findings: r.findings.slice(0, max).map((f) => ({ kind: f.kind, line: f.line, column: f.column, encoding: f.encoding, hint: f.hint })),
      findingsTruncated: r.findingsTruncated || r.findings.length > max,
    }));
  return {
    previewId: input.previewId,
    status: input.errors.length > 0 ? 'incomplete' : 'complete',
    nodes: input.nodes,
    errors: input.errors,
    redaction: { level: input.level, counts: Object.fromEntries(Object.entries(input.stage.counts).filter(([, n]) => n > 0)) },
    files,
    totalBytes: files.reduce((n, f) => n + f.size, 0),
    expiresAt: input.expiresAt,
  };
}

/** Plain-text preview for the CLI: one line per file with something redacted, then the totals. */
export function formatPreview(preview: BundlePreview): string {
  const lines: string[] = [];
  for (const f of preview.files) {
    const kinds = Object.entries(f.counts);
    if (kinds.length === 0) continue;
    lines.push(`${f.path}: ${kinds.map(([k, n]) => `${k} x${n}`).join(', ')}`);
    for (const x of f.findings.slice(0, 5)) lines.push(`  line ${x.line}:${x.column} ${x.kind} ${x.hint}`);
  }
  const totals = Object.entries(preview.redaction.counts)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  lines.push(`redacted (${preview.redaction.level}): ${totals || 'nothing'}`);
  return lines.join('\n');
}
