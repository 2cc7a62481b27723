import { findSecrets, type Latin1Pieces, type RedactionCounts } from '../../../shared/logic/redact';
import { LiteralScanner } from '../../../shared/logic/redact-scan';

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

type LintSource = (typeof import('@secretlint/core'))['lintSource'];
let secretlint: Promise<{ lintSource: LintSource; config: unknown }> | null = null;

/**
 * secretlint and its preset, loaded on first use (they cost a few hundred ms of start-up, and most Windeck
 * processes never make a bundle).
 *
 * secretlint's profiler keeps every performance mark it makes, forever (and Node keeps the marks in its global
 * timeline): over the thousands of chunks of a large bundle that is a memory leak. Windeck never reads the
 * profile, so the profiler makes no marks at all.
 */
function loadSecretlint(): Promise<{ lintSource: LintSource; config: unknown }> {
  secretlint ??= (async () => {
    const [core, profiler, preset] = await Promise.all([
      import('@secretlint/core'),
      import('@secretlint/profiler'),
      import('@secretlint/secretlint-rule-preset-recommend'),
    ]);
    (profiler.secretLintProfiler as unknown as { mark: (marker: unknown) => void }).mark = () => undefined;
    return { lintSource: core.lintSource, config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: preset.creator }] } };
  })();
  return secretlint;
}

/**
 * Literal words at least one of which occurs on every line a rule of the recommended preset (version 12.0.0,
 * `test/integration/bundle/parallel-stage.test.ts` checks the version and a sample of every rule) can report:
 * key prefixes (`ghp_`, `AKIA`, `xoxb-`, `sk-`, `glpat-` ...), the key words of the AWS secret and account rules,
 * `://` for basic auth and connection strings, npm's `_authToken`. Lines of a streamed
 * log without any of them are not given to secretlint (its ~40 Unicode regular expressions over every byte of a
 * gigabyte of logs cost more than the whole rest of the bundle).
 */
const SECRETLINT_LINE_ANCHORS = [
  'a3t',
  'akia',
  'agpa',
  'aida',
  'aroa',
  'aipa',
  'anpa',
  'anva',
  'asia',
  'secret',
  'account',
  '://',
  'x-oauth-basic',
  '_authtoken',
  'npm_',
  'xoxb',
  'xoxp',
  'xapp',
  'xoxa',
  'xoxo',
  'xoxr',
  'sk-',
  'gsk_',
  'hf_',
  'lin_api_',
  'ntn_',
  'sg.',
  'shppa_',
  'shpca_',
  'shpat_',
  'shpss_',
  'ghp_',
  'gho_',
  'ghu_',
  'ghs_',
  'ghr_',
  'github_pat_',
  'glpat-',
  'glc_',
  'glsa_',
  'ops_',
  'hvs.',
  'hvb.',
  'hvr.',
  'vcp_',
  'vci_',
  'vca_',
  'vcr_',
  'vck_',
  'dapi',
  'dckr_pat_',
  'figd_',
];
/** Multi-line shapes (private keys), comment directives (they act on following lines) and file types with
 * whole-file rules (GCP keys): scanned whole. */
const SECRETLINT_WHOLE_TEXT_WORDS = ['-----begin', 'private key', 'private_key', 'secretlint-'];
/** The anchor words' scanner. Streamed entries hand it to their StreamRedactor, which finds the anchors of the
 * redacted text in its own pass (`anchors` of `finalScan`), so a gigabyte of logs is read once, not twice. */
export const SECRETLINT_SCANNER = new LiteralScanner([...SECRETLINT_WHOLE_TEXT_WORDS, ...SECRETLINT_LINE_ANCHORS]);
const WHOLE_FILE_EXTS = new Set(['.json', '.p12']);

/**
 * The lines of `text` secretlint must see: null when the whole text must be scanned, else [start, end) ranges of
 * whole lines (without their line break) holding an anchor.
 */
export function secretlintLines(text: string, ext: string, anchors?: Array<[number, number]>): Array<[number, number]> | null {
  if (WHOLE_FILE_EXTS.has(ext.toLowerCase())) return null;
  const ranges: Array<[number, number]> = [];
  let coveredTo = -1;
  for (const [at, wordIndex] of anchors ?? SECRETLINT_SCANNER.findAll(text)) {
    if (wordIndex < SECRETLINT_WHOLE_TEXT_WORDS.length) return null;
    if (at < coveredTo) continue;
    const start = text.lastIndexOf('\n', at) + 1;
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    ranges.push([start, end]);
    coveredTo = end;
  }
  return ranges;
}

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
 * second pass would double the cost on gigabytes of logs); secretlint always runs. `prefilter: true` (streamed log
 * chunks) gives secretlint only the lines holding one of its anchors (see SECRETLINT_LINE_ANCHORS); `anchors`, when
 * given, are `SECRETLINT_SCANNER.findAll(text)` already found.
 */
export async function finalScan(
  text: string,
  name: string,
  options: { ownPatterns?: boolean; prefilter?: boolean; anchors?: Array<[number, number]> } = {},
): Promise<ScanResult> {
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
  const ext = extOf(name);
  // Streamed chunks: only the lines with an anchor, joined by line breaks; offsets are mapped back.
  // `anchors` (SECRETLINT_SCANNER.findAll of `text`, found by the stream redactor) only hold while `text` is as given.
  const lines = options.prefilter ? secretlintLines(current, ext, current === text ? options.anchors : undefined) : null;
  if (lines && lines.length === 0) return { text: current, counts, notes };
  const ranges = await lintLines(current, current.length, lines, name, ext, counts, notes);
  if (ranges.length) current = replaceRanges(current, ranges);
  return { text: current, counts, notes };
}

function extOf(name: string): string {
  return name.includes('.') ? name.slice(name.lastIndexOf('.')) : '';
}

/**
 * secretlint over a text (`text.slice` of its `length` characters: a string or Latin-1 pieces; an object, not a
 * closure made per call, which optimized code would inline and then be thrown away with): whole, or only `lines`
 * joined by line breaks (the offsets mapped back). Returns the ranges to replace; counts and notes are added to.
 */
async function lintLines(
  text: { slice(a: number, b: number): string },
  length: number,
  lines: Array<[number, number]> | null,
  name: string,
  ext: string,
  counts: RedactionCounts,
  notes: string[],
): Promise<Array<{ start: number; end: number; label: string }>> {
  let content: string;
  const map: Array<[number, number]> = [];
  if (lines) {
    const parts: string[] = [];
    let at = 0;
    for (const [a, b] of lines) {
      parts.push(text.slice(a, b));
      map.push([at, a]);
      at += b - a + 1;
    }
    content = parts.join('\n');
  } else content = text.slice(0, length);
  const toSource = (offset: number): number => {
    if (!lines) return offset;
    let lo = 0;
    let hi = map.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((map[mid] as [number, number])[0] <= offset) lo = mid;
      else hi = mid - 1;
    }
    const [joined, source] = map[lo] as [number, number];
    return source + (offset - joined);
  };
  const lint = await loadSecretlint();
  const result = await lint.lintSource({
    source: { filePath: `/${name}`, content, ext, contentType: 'text' },
    options: { config: lint.config as Parameters<LintSource>[0]['options']['config'], maskSecrets: true },
  });
  const ranges: Array<{ start: number; end: number; label: string }> = [];
  for (const m of result.messages) {
    const rule = m.ruleId.replace(/^@secretlint\/secretlint-rule-/, '');
    // A finding never spans two selected lines (the joined text has a break between them): map both ends.
    const start = toSource(m.range[0]);
    const end = toSource(m.range[0]) + (m.range[1] - m.range[0]);
    const found = text.slice(Math.min(start, length), Math.min(Math.max(start, end), length));
    // Our own markers and placeholders are not secrets.
    if (/^\[REDACTED/.test(found) || found.includes('[REDACTED:')) continue;
    ranges.push({ start, end, label: `secretlint-${rule}` });
    counts[`secretlint:${rule}`] = (counts[`secretlint:${rule}`] ?? 0) + 1;
    notes.push(`secretlint ${rule} (${m.messageId}) at offset ${start}`);
  }
  return ranges;
}

/**
 * `finalScan(text, name, { ownPatterns: false, prefilter: true, anchors })` for Latin-1 text held as pieces of
 * bytes (the byte path of streamed logs, `Latin1Pieces`): the same counts and notes, and the output's pieces (the
 * same pieces when nothing changed). Only the lines secretlint must see are decoded; a whole-text scan (a `.json`
 * entry, a private-key word) or a replacement decodes all.
 */
export async function finalScanLatin1(
  text: Latin1Pieces,
  name: string,
  anchors: Array<[number, number]>,
): Promise<{ pieces: readonly Uint8Array[]; counts: RedactionCounts; notes: string[] }> {
  const ext = extOf(name);
  const counts: RedactionCounts = {};
  const notes: string[] = [];
  const lines = secretlintLinesLatin1(text, ext, anchors);
  if (lines && lines.length === 0) return { pieces: text.pieces, counts, notes };
  if (!lines) {
    const whole = text.decode(0, text.length);
    const r = await finalScan(whole, name, { ownPatterns: false, prefilter: true, anchors });
    return { pieces: r.text === whole ? text.pieces : [Buffer.from(r.text, 'latin1')], counts: r.counts, notes: r.notes };
  }
  const ranges = await lintLines(text, text.length, lines, name, ext, counts, notes);
  if (ranges.length === 0) return { pieces: text.pieces, counts, notes };
  return { pieces: [Buffer.from(replaceRanges(text.decode(0, text.length), ranges), 'latin1')], counts, notes };
}

/** secretlintLines on Latin-1 pieces with the anchors given. */
function secretlintLinesLatin1(text: Latin1Pieces, ext: string, anchors: Array<[number, number]>): Array<[number, number]> | null {
  if (WHOLE_FILE_EXTS.has(ext.toLowerCase())) return null;
  const ranges: Array<[number, number]> = [];
  let coveredTo = -1;
  for (const [at, wordIndex] of anchors) {
    if (wordIndex < SECRETLINT_WHOLE_TEXT_WORDS.length) return null;
    if (at < coveredTo) continue;
    const start = text.lastLineBreak(at) + 1;
    let end = text.nextLineBreak(at);
    if (end < 0) end = text.length;
    ranges.push([start, end]);
    coveredTo = end;
  }
  return ranges;
}
