import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { creator as recommendedPreset } from '@secretlint/secretlint-rule-preset-recommend';
import { findSecrets, type RedactionCounts } from '../../../shared/logic/redact';

/**
 * The final secret scan of every bundle entry before it is written (issue 6, DESIGN.md section 6): an
 * independent second look after redaction, by two detectors:
 * - our own patterns again (`findSecrets`): anything still found means the first pass missed a shape; it is
 *   redacted now and counted as `rescan:<kind>`;
 * - secretlint's recommended rule preset (`@secretlint/secretlint-rule-preset-recommend`: AWS, GCP, private keys,
 *   npm, basic auth, Slack, SendGrid, Shopify, GitHub, OpenAI, Anthropic, Linear, 1Password, database
 *   connection strings): what it reports is redacted and counted as `secretlint:<rule>`.
 * The scan never lets a finding through: it returns the cleaned text.
 */

export interface ScanResult {
  text: string;
  counts: RedactionCounts;
  /** Human-readable notes for the preview (kind and offset, never the value). */
  notes: string[];
}

const SECRETLINT_CONFIG = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendedPreset }] };

/**
 * secretlint's profiler keeps every performance mark it makes, forever (and Node keeps the marks in its global
 * timeline): over the thousands of chunks of a large bundle that is a memory leak. Windeck never reads the
 * profile, so the profiler makes no marks at all.
 */
(secretLintProfiler as unknown as { mark: (marker: unknown) => void }).mark = () => undefined;

/** Replace [start, end) ranges (may overlap) with `[REDACTED:<label>]`. */
function replaceRanges(text: string, ranges: Array<{ start: number; end: number; label: string }>): string {
  const sorted = [...ranges].sort((a, b) => a.start - b.start || b.end - a.end);
  let out = '';
  let pos = 0;
  for (const r of sorted) {
    if (r.end <= pos) continue;
    const start = Math.max(r.start, pos);
    out += text.slice(pos, start) + `[REDACTED:${r.label}]`;
    pos = r.end;
  }
  return out + text.slice(pos);
}

/**
 * Scan one already-redacted text (a whole small file or one chunk of a streamed one). `ownPatterns: false` skips
 * our own patterns (used for streamed log chunks: the redactor is deterministic and idempotent, tested so, and a
 * second pass would double the cost on gigabytes of logs); secretlint always runs.
 */
export async function finalScan(text: string, name: string, options: { ownPatterns?: boolean } = {}): Promise<ScanResult> {
  const counts: RedactionCounts = {};
  const notes: string[] = [];
  let current = text;
  const ours = options.ownPatterns === false ? [] : findSecrets(current);
  if (ours.length > 0) {
    for (const f of ours) {
      counts[`rescan:${f.kind}`] = (counts[`rescan:${f.kind}`] ?? 0) + 1;
      notes.push(`final scan: ${f.kind} at offset ${f.start} (${f.encoding})`);
    }
    current = replaceRanges(
      current,
      ours.map((f) => ({ start: f.start, end: f.end, label: f.kind })),
    );
  }
  const result = await lintSource({
    source: { filePath: `/${name}`, content: current, ext: name.includes('.') ? name.slice(name.lastIndexOf('.')) : '', contentType: 'text' },
    options: { config: SECRETLINT_CONFIG, maskSecrets: true },
  });
  const ranges: Array<{ start: number; end: number; label: string }> = [];
  for (const m of result.messages) {
    const rule = m.ruleId.replace(/^@secretlint\/secretlint-rule-/, '');
    const [start, end] = m.range;
    const slice = current.slice(start, end);
    // Our own markers and placeholders are not secrets.
    if (/^\[REDACTED/.test(slice) || slice.includes('[REDACTED:')) continue;
    ranges.push({ start, end, label: `secretlint-${rule}` });
    counts[`secretlint:${rule}`] = (counts[`secretlint:${rule}`] ?? 0) + 1;
    notes.push(`secretlint ${rule} (${m.messageId}) at offset ${start}`);
  }
  if (ranges.length) current = replaceRanges(current, ranges);
  return { text: current, counts, notes };
}
