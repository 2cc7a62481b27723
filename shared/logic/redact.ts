import { base64Decode, looksUtf16le, percentDecode, percentEncode, printableRatio, utf16leDecode, utf16leEncode, utf8Decode } from './redact-codec';
import { KIND_PRIORITY, LAST_APPLIED_ANNOTATION, SECRET_PATTERNS, TRIGGER_WORDS, type RedactionKind, type SecretKind } from './redact-patterns';
import { PseudonymTable } from './redact-pseudonyms';
import { LiteralScanner, foldTable, slotOf } from './redact-scan';
import { kernelCount, kernelScan, kernelText } from './redact-scan-wasm';

/**
 * Redaction of text before anything is written into a bundle (DESIGN.md section 6, issue 6). Pure: strings and
 * byte arrays in, redacted strings and byte arrays out, with counts per kind and the places found (for the
 * preview). No node:*, no DOM.
 *
 * - `standard` replaces secrets: private keys and certificates (PEM and base64 PEM), JWTs and service-account
 *   tokens, bootstrap tokens, bearer/basic/NTLM/Negotiate authorization values, kubeconfig credentials, passwords
 *   in URLs, command lines, PowerShell and config files, Azure SAS signatures, storage keys and client secrets,
 *   AWS keys, GitHub tokens, WinRM/SSH credentials, registry auths, the `last-applied-configuration`
 *   annotation, and Secret `data`/`stringData` values (replaced by their length). Secrets are also found when
 *   base64-, percent- (URL) or UTF-16LE-encoded (also UTF-16LE inside base64, as in `powershell -EncodedCommand`).
 * - `strict` adds consistent pseudonyms for IPv4/IPv6 addresses, MAC addresses and host names through a
 *   `PseudonymTable` shared by every file of one bundle (see redact-pseudonyms.ts for what stays readable).
 *
 * A secret becomes `[REDACTED:<kind>]`; Secret data and the annotation become `[REDACTED:<kind> len=<n>]`.
 * Known limits: secrets inside gzip-compressed base64 blobs (Helm release Secrets) are only caught by the
 * Secret-data rule; a bare secret with no recognisable shape or key next to it cannot be recognised.
 */

export type RedactionLevel = 'standard' | 'strict';
export type RedactionEncoding = 'plain' | 'base64' | 'url' | 'utf16le';
export type { RedactionKind, SecretKind };

/** Counts per kind (`private-key`, `ipv4`, `secretlint:...`). */
export type RedactionCounts = Record<string, number>;

/** One place where something was redacted: 1-based line and column in the text as given. */
export interface RedactionFinding {
  kind: RedactionKind;
  line: number;
  column: number;
  /** Characters replaced. */
  length: number;
  encoding: RedactionEncoding;
  /** A non-secret hint for the preview: a public prefix (`ghp_`, `AKIA`, `eyJ`) and the length, never the value. */
  hint: string;
}

export interface RedactResult {
  text: string;
  counts: RedactionCounts;
  findings: RedactionFinding[];
  /** True when more findings existed than `maxFindings` (the counts are still complete). */
  findingsTruncated: boolean;
}

export interface RedactOptions {
  level: RedactionLevel;
  /** Needed for `strict`: one table per bundle. */
  pseudonyms?: PseudonymTable | null;
  /** Keep at most this many findings per call (default 500); counts are never capped. */
  maxFindings?: number;
  /**
   * How detection reads a text (default: the fast scans of this module). The equivalence tests give the first,
   * separate scans here (`test/unit/shared/logic/reference-scanners.ts`) to prove both redact the same.
   */
  scanner?: TextScanner;
}

/** What one pass over a text finds: trigger words, base64 runs, and a companion scanner's words (see scanText). */
export interface TextScan {
  /** `[offset, index in TRIGGER_WORDS]`, leftmost first, not overlapping (as `LiteralScanner.findAll`). */
  triggers: Array<[number, number]>;
  /** Base64 runs `[start, end)`: 20+ characters counting up to two `=`, both letter cases, not inside a word. */
  runs: Array<[number, number]>;
  /** The companion scanner's matches (`[offset, wordIndex]`), or none without one. */
  extra: Array<[number, number]>;
}

/**
 * A replacement for the scans detection makes: `scan` as `scanText` (the companion's words in `extra`), `find` as
 * `LiteralScanner.findAll`. With one, nothing is reused between the parts of a stream (every part is read whole).
 */
export interface TextScanner {
  scan(text: string, companion: LiteralScanner | null): TextScan;
  find(scanner: LiteralScanner, text: string): Array<[number, number]>;
}

interface Span {
  /** A span that began in already-emitted context: redacted, but counted where it began. */
  continued: boolean;
  start: number;
  end: number;
  /** Every secret this span stands for (an encoded blob may hold several). */
  kinds: RedactionKind[];
  encoding: RedactionEncoding;
  /** Encoded and structural spans own what they contain. */
  container: boolean;
  /** Undefined: `[REDACTED:kind]` (replacementOf). */
  replacement: string | undefined;
}

/**
 * Every span is made here, with all its fields in one order: V8 then sees one map (object shape) wherever spans
 * are read. Spans made by spreads (`{ ...s, start }`) and `delete` had several maps, some short-lived, which cost
 * the byte path's `redactLatin1` "wrong map" and "weak objects" deopts and recompiles in every worker.
 */
function makeSpan(
  start: number,
  end: number,
  kinds: RedactionKind[],
  encoding: RedactionEncoding,
  container: boolean,
  replacement: string | undefined,
  continued = false,
): Span {
  return { continued, start, end, kinds, encoding, container, replacement };
}

const MAX_DEPTH = 2;
// eslint-disable-next-line no-control-regex
const UTF16_RUN = /(?:[\t\n\r\x20-\x7e]\x00){8,}/g;
const MAX_ENCODED_RUN_CHARS = 4 * 1024 * 1024;

function jwtKind(token: string): SecretKind {
  const payload = token.split('.')[1] ?? '';
  const bytes = base64Decode(payload);
  const text = bytes ? utf8Decode(bytes) : '';
  return /kubernetes\/serviceaccount|"kubernetes\.io"|system:serviceaccount/.test(text) ? 'service-account-token' : 'jwt';
}

function base64PemKind(value: string): SecretKind {
  const bytes = base64Decode(value);
  const text = bytes ? utf8Decode(bytes.subarray(0, 200)) : '';
  return /PRIVATE KEY/.test(text) ? 'private-key' : 'certificate';
}

function better(a: RedactionKind, b: RedactionKind): RedactionKind {
  const pa = (KIND_PRIORITY as Record<string, number>)[a] ?? 999;
  const pb = (KIND_PRIORITY as Record<string, number>)[b] ?? 999;
  return pb < pa ? b : a;
}

/** Texts up to this size are searched whole; larger ones only around trigger words (see triggerWindows). */
const SMALL_TEXT_CHARS = 16 * 1024;
/** The trigger words, searched case-insensitively in one pass (see redact-scan.ts). */
const TRIGGER = new LiteralScanner(TRIGGER_WORDS);

/**
 * Line ranges of a large text worth searching: every line holding a trigger word, with one line before and two
 * after (multi-line shapes such as `- name: X_PASSWORD` / `value: ...`), and PEM / PuTTY blocks to their end.
 * Log lines without any trigger (nearly all of them) are never run through the 25 patterns.
 */
function triggerWindows(text: string, triggers: Array<[number, number]>): Array<[number, number]> {
  const windows: Array<[number, number]> = [];
  // U+0130 lower-cases to two characters: such texts are searched whole, as before.
  if (text.includes('\u0130')) return [[0, text.length]];
  for (const [at, wordIndex] of triggers) {
    const word = TRIGGER_WORDS[wordIndex] as string;
    // Every trigger extends the window to its own lines, also one inside an earlier window: a second secret
    // right below the first (`- name: API_TOKEN` / value / `- name: DB_PASSWD` / value) or a block opener
    // (to the block's end) would otherwise fall outside it.
    const opener = word === '-----begin' || word === 'putty-user-key-file';
    let start = text.lastIndexOf('\n', at - 1) + 1;
    if (start > 0) start = text.lastIndexOf('\n', start - 2) + 1;
    let end = windowEnd(text, at);
    if (opener) {
      const close = text.indexOf(word === 'putty-user-key-file' ? 'Private-MAC' : '-----END', at);
      const closeEnd = close < 0 ? text.length : text.indexOf('\n', close);
      end = Math.max(end, closeEnd < 0 ? text.length : closeEnd);
    }
    const last = windows[windows.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else windows.push([start, end]);
  }
  return windows;
}

/** Lines after a trigger's own line that its window covers; blank lines between do not count (up to a limit). */
const WINDOW_LINES_AFTER = 2;
const WINDOW_BLANK_LINES_MAX = 16;

/** A line of only spaces, tabs and a carriage return. */
function isBlankLine(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/**
 * Where the window of a trigger at `at` ends: the line break after the trigger's line and WINDOW_LINES_AFTER
 * more lines, not counting blank lines (a value may sit under blank lines: `- name: DB_PASSWORD`, two empty
 * lines, `value: ...`; the patterns' `\s*` crosses them), or the text's end.
 */
function windowEnd(text: string, at: number): number {
  const lineEnd = text.indexOf('\n', at);
  let end = lineEnd;
  let counted = 0;
  let blanks = 0;
  while (end >= 0 && counted < WINDOW_LINES_AFTER) {
    const next = text.indexOf('\n', end + 1);
    if (blanks < WINDOW_BLANK_LINES_MAX && isBlankLine(text, end + 1, next < 0 ? text.length : next)) blanks++;
    else counted++;
    end = next;
  }
  end = end < 0 ? text.length : end;
  if (lineEnd < 0) return end;
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  if (!mayOpenYamlBlock((i) => text.charCodeAt(i), lineStart, lineEnd) || !YAML_BLOCK_OPENER.test(text.slice(lineStart, lineEnd))) return end;
  return Math.max(
    end,
    yamlBlockEnd(text.length, (i) => text.charCodeAt(i), lineStart, lineEnd),
  );
}

/** A YAML key line whose value is on the lines below: `password:`, `password: |`, `token: >-`, `key: |2`. */
const YAML_BLOCK_OPENER = /:[ \t]*(?:[|>][-+1-9]{0,2}[ \t]*)?\r?$/;
/** A cheap first test for YAML_BLOCK_OPENER: the line's last character that is not white space. */
function mayOpenYamlBlock(code: (i: number) => number, lineStart: number, lineEnd: number): boolean {
  let i = lineEnd - 1;
  while (i >= lineStart && (code(i) === 32 || code(i) === 9 || code(i) === 13)) i--;
  if (i < lineStart) return false;
  const c = code(i);
  return c === 58 || c === 124 || c === 62 || c === 45 || c === 43 || (c >= 49 && c <= 57);
}

/** The most lines of a YAML block a trigger's window covers. */
const YAML_BLOCK_LINES_MAX = 64;

/**
 * The end of the YAML block under the key line [lineStart, lineEnd) (a line break at lineEnd): the lines after it
 * that are blank or indented deeper than it, up to YAML_BLOCK_LINES_MAX; a block scalar's value (`password: |`)
 * can be longer than a window's two lines. `code(i)`: the character code at i (a string or Latin-1 bytes).
 */
function yamlBlockEnd(n: number, code: (i: number) => number, lineStart: number, lineEnd: number): number {
  let indent = 0;
  while (lineStart + indent < lineEnd && (code(lineStart + indent) === 32 || code(lineStart + indent) === 9)) indent++;
  let end = lineEnd;
  for (let lines = 0; lines < YAML_BLOCK_LINES_MAX && end < n; lines++) {
    let i = end + 1;
    let depth = 0;
    while (i < n && (code(i) === 32 || code(i) === 9)) {
      i++;
      depth++;
    }
    const c = i < n ? code(i) : 10;
    const blank = c === 10 || (c === 13 && (i + 1 >= n || code(i + 1) === 10));
    if (!blank && depth <= indent) break;
    while (i < n && code(i) !== 10) i++;
    end = i;
  }
  return end;
}

function runPatterns(text: string, offset: number, spans: Span[]): void {
  for (const p of SECRET_PATTERNS) {
    if (!p.hint.test(text)) continue;
    // The pattern's own (global) regex, from 0, as matchAll iterates its copy (a RegExp built per call cost a
    // compile-cache lookup and more in every trigger window); nothing in the loop runs patterns (detection recurses
    // into encoded runs only after), and lastIndex is 0 again when it ends.
    const re = p.regex;
    re.lastIndex = 0;
    try {
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        if (m[0].length === 0) {
          re.lastIndex = advanceStringIndex(text, re.lastIndex, re.unicode || (re as { unicodeSets?: boolean }).unicodeSets === true);
          continue;
        }
        matched(p, m, text, offset, spans);
      }
    } finally {
      re.lastIndex = 0;
    }
  }
}

/** The spec's AdvanceStringIndex (how matchAll steps over an empty match). */
function advanceStringIndex(text: string, index: number, unicode: boolean): number {
  if (!unicode || index + 1 >= text.length) return index + 1;
  const c = text.charCodeAt(index);
  const d = text.charCodeAt(index + 1);
  return c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff ? index + 2 : index + 1;
}

/** One match of pattern `p` in `text` (at `offset` of the whole text): its span, unless skipped. */
function matched(p: (typeof SECRET_PATTERNS)[number], m: RegExpExecArray, text: string, offset: number, spans: Span[]): void {
  const gi = m.indices?.groups;
  const g = m.groups;
  const range = gi?.v ?? gi?.v2 ?? gi?.v3 ?? gi?.v4 ?? m.indices?.[0];
  const value = g?.v ?? g?.v2 ?? g?.v3 ?? g?.v4 ?? m[0];
  const key = g?.k ?? g?.k2;
  if (!range || range[1] <= range[0]) return;
  if (value.startsWith('[REDACTED') || p.skip?.(value, key)) return;
  // Classification looks at the neighbourhood only (a kubeconfig elsewhere in a log says nothing here).
  const near = p.classify ? text.slice(Math.max(0, m.index - 2000), m.index + m[0].length + 2000) : '';
  let kind: SecretKind = p.classify ? (p.classify(value, key, near) ?? p.kind) : p.kind;
  if (p.id === 'jwt') kind = jwtKind(value);
  else if (p.id === 'base64-pem') kind = base64PemKind(value);
  spans.push(makeSpan(offset + range[0], offset + range[1], [kind], 'plain', false, undefined));
}

/** Run every secret pattern over `text`; then the structural rules; then look inside encoded runs. */
function detect(
  text: string,
  depth: number,
  scanner: TextScanner | undefined,
  companion?: Companion,
  reuse?: ScanReuse,
  bytes?: readonly Uint8Array[],
): Span[] {
  const spans: Span[] = [];
  // A regex run flattens a concatenated string in place; the scans below then read a flat string.
  // eslint-disable-next-line no-control-regex
  const hasNul = /\u0000/.test(text);
  // One pass over the characters finds the trigger words and the base64 runs (see scanText), and the words of a
  // companion scanner when asked.
  const scan = scanner
    ? scanner.scan(text, companion?.scanner ?? null)
    : reuse?.prior
      ? joinScans(reuse.prior.scan, scanText(text, companion?.scanner ?? null, reuse.prior.upTo, bytes))
      : scanText(text, companion?.scanner ?? null, 0, bytes);
  if (companion) companion.matches = scan.extra;
  if (reuse && !scanner) reuse.result = scan;
  if (text.length <= SMALL_TEXT_CHARS) runPatterns(text, 0, spans);
  else for (const [a, b] of triggerWindows(text, scan.triggers)) runPatterns(text.slice(a, b), a, spans);
  detectStructural(text, spans);
  if (depth < MAX_DEPTH) detectEncoded(text, depth, spans, hasNul, scan.runs, scanner);
  return mergeSpans(spans);
}

/** Secret data and last-applied annotations in YAML and JSON text. */
function detectStructural(text: string, spans: Span[]): void {
  if (text.includes(LAST_APPLIED_ANNOTATION)) {
    const json = /"kubectl\.kubernetes\.io\/last-applied-configuration"\s*:\s*"(?<v>(?:[^"\\]|\\.)*)"/dg;
    for (const m of text.matchAll(json)) {
      const r = m.indices?.groups?.v;
      if (r && r[1] > r[0] && !text.startsWith('[REDACTED', r[0])) spans.push(structural(r[0], r[1], 'last-applied-configuration', r[1] - r[0]));
    }
    const escaped = /\\"kubectl\.kubernetes\.io\/last-applied-configuration\\"\s*:\s*\\"(?<v>(?:[^"\\]|\\[^"])*)\\"/dg;
    for (const m of text.matchAll(escaped)) {
      const r = m.indices?.groups?.v;
      if (r && r[1] > r[0] && !text.startsWith('[REDACTED', r[0])) spans.push(structural(r[0], r[1], 'last-applied-configuration', r[1] - r[0]));
    }
    const yaml = /^([ \t]*)["']?kubectl\.kubernetes\.io\/last-applied-configuration["']?:[ \t]*(.*)$/gm;
    for (const m of text.matchAll(yaml)) {
      const indent = (m[1] ?? '').length;
      const inline = m[2] ?? '';
      const valueStart = m.index + m[0].length - inline.length;
      if (/^[|>][-+]?\s*$/.test(inline)) {
        const end = blockEnd(text, m.index + m[0].length, indent);
        if (end > valueStart) spans.push(structural(valueStart, end, 'last-applied-configuration', end - valueStart));
      } else if (inline.trim() !== '') {
        // A quoted value (JSON, or YAML with quotes) keeps its quotes: only the content is replaced.
        const quoted = /^(["'])((?:[^"'\\]|\\.|(?!\1)["'])*)\1/.exec(inline);
        const start = quoted ? valueStart + 1 : valueStart;
        const content = quoted ? (quoted[2] as string) : inline;
        if (content.trim() !== '' && !content.startsWith('[REDACTED'))
          spans.push(structural(start, start + content.length, 'last-applied-configuration', content.length));
      }
    }
  }
  // `includes` first: a plain substring search skips through a log far faster than the expression.
  if (text.includes('Secret') && /kind["']?\s*:\s*["']?Secret\b/.test(text)) {
    detectYamlSecretData(text, spans);
    detectJsonSecretData(text, spans);
  }
}

function structural(start: number, end: number, kind: SecretKind, length: number): Span {
  return makeSpan(start, end, [kind], 'plain', true, `[REDACTED:${kind} len=${length}]`);
}

/** End offset of a YAML block whose lines are indented deeper than `indent`, starting after `from` (a line end). */
function blockEnd(text: string, from: number, indent: number): number {
  let pos = from;
  let end = from;
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos + 1);
    const lineStart = pos + 1;
    const lineEnd = nl < 0 ? text.length : nl;
    if (lineStart >= text.length) break;
    const line = text.slice(lineStart, lineEnd).replace(/\r$/, '');
    const lead = /^[ \t]*/.exec(line)?.[0].length ?? 0;
    if (line.trim() !== '' && lead <= indent) break;
    if (line.trim() !== '') end = lineStart + line.length;
    pos = lineEnd;
    if (nl < 0) break;
  }
  return end;
}

function decodedLength(value: string): number {
  const v = value.trim().replace(/^["']|["']$/g, '');
  const bytes = /^[A-Za-z0-9+/]*={0,2}$/.test(v) ? base64Decode(v) : null;
  return bytes ? bytes.length : v.length;
}

function detectYamlSecretData(text: string, spans: Span[]): void {
  // Documents are split on `---`; only documents whose top-level kind is Secret are touched.
  const docRe = /(?:^|\n)---[^\n]*(?=\n|$)/g;
  const bounds: number[] = [0];
  for (const m of text.matchAll(docRe)) bounds.push(m.index + m[0].length);
  bounds.push(text.length);
  for (let d = 0; d + 1 < bounds.length; d++) {
    const start = bounds[d] as number;
    const end = bounds[d + 1] as number;
    const doc = text.slice(start, end);
    const kindLine = /^([ \t]*)kind:[ \t]*["']?Secret["']?[ \t]*\r?$/m.exec(doc);
    if (!kindLine) continue;
    const baseIndent = (kindLine[1] ?? '').length;
    const section = /^([ \t]*)(data|stringData):[ \t]*\r?$/gm;
    for (const s of doc.matchAll(section)) {
      if ((s[1] ?? '').length !== baseIndent) continue;
      const isData = s[2] === 'data';
      let pos = s.index + s[0].length;
      while (pos < doc.length) {
        const lineStart = pos + 1;
        if (lineStart >= doc.length) break;
        const nl = doc.indexOf('\n', lineStart);
        const lineEnd = nl < 0 ? doc.length : nl;
        const line = doc.slice(lineStart, lineEnd).replace(/\r$/, '');
        const lead = /^[ \t]*/.exec(line)?.[0].length ?? 0;
        if (line.trim() === '') {
          pos = lineEnd;
          continue;
        }
        if (lead <= baseIndent) break;
        const kv = /^[ \t]*["']?[^:"'\n]+["']?:[ \t]*(.*)$/.exec(line);
        if (kv) {
          const value = kv[1] ?? '';
          const valueStart = lineStart + line.length - value.length;
          if (/^[|>][-+]?\s*$/.test(value)) {
            const bEnd = blockEnd(doc, lineEnd, lead);
            if (bEnd > valueStart) {
              const body = doc.slice(lineEnd + 1, bEnd);
              const len = body
                .split('\n')
                .map((l) => l.trim())
                .join(isData ? '' : '\n').length;
              spans.push(structural(start + valueStart, start + bEnd, 'secret-data', isData ? decodedLength(body.replace(/\s+/g, '')) : len));
              pos = bEnd;
              continue;
            }
          } else if (value.trim() !== '' && !/^\[REDACTED/.test(value)) {
            spans.push(
              structural(
                start + valueStart,
                start + valueStart + value.length,
                'secret-data',
                isData ? decodedLength(value) : value.trim().replace(/^["']|["']$/g, '').length,
              ),
            );
          }
        }
        pos = lineEnd;
      }
    }
  }
}

function detectJsonSecretData(text: string, spans: Span[]): void {
  const section = /"(data|stringData)"\s*:\s*\{/g;
  for (const s of text.matchAll(section)) {
    // Only inside an object that says kind Secret nearby (same object: look back a bounded window).
    const window = text.slice(Math.max(0, s.index - 20000), s.index + 20000);
    if (!/"kind"\s*:\s*"Secret"/.test(window)) continue;
    const isData = s[1] === 'data';
    const entry = /\s*"(?:[^"\\]|\\.)*"\s*:\s*"(?<v>(?:[^"\\]|\\.)*)"\s*,?/dy;
    entry.lastIndex = s.index + s[0].length;
    for (let e = entry.exec(text); e; e = entry.exec(text)) {
      const range = e.indices?.groups?.v;
      const value = e.groups?.v ?? '';
      if (range && value !== '' && !/^\[REDACTED/.test(value))
        spans.push(structural(range[0], range[1], 'secret-data', isData ? decodedLength(value) : value.length));
    }
  }
}

/** Bit 1 = base64 alphabet (digits, `+`, `/`), 2 = upper-case letter, 4 = lower-case letter (char code < 128). */
const B64_BITS = (() => {
  const t = new Uint8Array(128);
  for (let c = 48; c <= 57; c++) t[c] = 1;
  t[43] = 1;
  t[47] = 1;
  for (let c = 65; c <= 90; c++) t[c] = 2;
  for (let c = 97; c <= 122; c++) t[c] = 4;
  return t;
})();

/** Is a base64 run [start, end) (padding included) kept: long enough, both letter cases, not inside a word? */
function keepRun(text: string, start: number, end: number, bits: number, checkAfter: boolean): boolean {
  if (end - start < 20 || (bits & 6) !== 6 || end - start > MAX_ENCODED_RUN_CHARS) return false;
  const before = start > 0 ? text.charCodeAt(start - 1) : 32;
  if (before === 45 || before === 95) return false;
  if (!checkAfter) return true;
  const after = end < text.length ? text.charCodeAt(end) : 32;
  return after !== 45 && after !== 95;
}

/**
 * The trigger words (as `TRIGGER.findAll`), the words of `extraScanner` and the base64 runs (see `TextScan`) of a
 * text: this runs over every byte of every log of a bundle, and reading a string's characters is most of its cost.
 * The words take one pass with table lookups (every character); the runs are found by probing every 18th character
 * only (`base64Runs`). `redact-scan.test.ts` proves both equal to the first, separate scans (kept in
 * `test/unit/shared/logic/reference-scanners.ts`) on hostile random texts.
 */
function scanText(text: string, extraScanner: LiteralScanner | null = null, from = 0, bytes?: readonly Uint8Array[]): Scan {
  const triggers: Array<[number, number]> = [];
  const extra: Array<[number, number]> = [];
  const fold = foldTable();
  const starts = TRIGGER.starts;
  // A scanner with no words never hits (its table is all zero).
  const extraStarts = extraScanner ? extraScanner.starts : NO_STARTS;
  // Non-zero where a trigger word or an extra word may start (one load per character for both).
  const either = startsUnion(extraStarts);
  const n = text.length;
  // The hot loop only notes where a word may end its first three characters (about one character in a hundred
  // of log text); the words are compared after it, so the loop stays small enough to run fast.
  // A Latin-1 text given with its bytes goes through the WebAssembly kernel (the same two loops; see
  // redact-scan-wasm.ts), which also finds the base64 runs. With the byte path's table (GATE's starts too, skipped
  // below): one table, so the kernel's memory is not reloaded (`writeSlotSets`) when a stream changes paths.
  const kernel = bytes ? kernelScan(bytes, n, from, gateUnion(extraStarts), [TRIGGER, extraScanner, GATE]) : null;
  let hits = kernel ? kernel.hits : hitScratch;
  let count = kernel ? kernel.count : 0;
  let key = 0;
  for (let i = kernel ? n : from; i < n; i++) {
    key = ((key << 7) | (fold[text.charCodeAt(i)] as number)) & 0x1fffff;
    if (either[slotOf(key)] !== 0) {
      if (count === hits.length) {
        const grown = new Int32Array(hits.length * 2);
        grown.set(hits);
        hits = hitScratch = grown;
      }
      hits[count++] = i;
    }
  }
  let free = from;
  let extraFree = from;
  for (let h = 0; h < count; h++) {
    const i = hits[h] as number;
    if (i < from + 2) continue;
    const at = i - 2;
    const slot = slotOf(
      ((fold[text.charCodeAt(at)] as number) << 14) | ((fold[text.charCodeAt(at + 1)] as number) << 7) | (fold[text.charCodeAt(i)] as number),
    );
    if (starts[slot] !== 0 && at >= free) {
      const hit = TRIGGER.matchAt(text, at, starts[slot] as number);
      if (hit >= 0) {
        triggers.push([at, hit >> 8]);
        free = at + (hit & 255);
      }
    }
    if (extraStarts[slot] !== 0 && at >= extraFree) {
      const hit = (extraScanner as LiteralScanner).matchAt(text, at, extraStarts[slot] as number);
      if (hit >= 0) {
        extra.push([at, hit >> 8]);
        extraFree = at + (hit & 255);
      }
    }
  }
  // A hostile text (a word start at every character) grows the scratch to its length: do not keep that.
  if (hitScratch.length > HIT_SCRATCH_KEPT) hitScratch = new Int32Array(HIT_SCRATCH_KEPT);
  return { triggers, runs: kernel ? kernel.runs : base64Runs(text, from), extra };
}

/** Offsets noted by scanText's hot loop (reused across calls; grown when a text has more). */
const HIT_SCRATCH_KEPT = 64 * 1024;
let hitScratch = new Int32Array(16 * 1024);

/** Base64 alphabet characters a kept run needs at least (20 with up to two `=` of padding). */
const RUN_MIN_CHARS = 18;

/** The base64 bits of a character code (0: not in the alphabet). */
function b64Bits(c: number): number {
  return c < 128 ? (B64_BITS[c] as number) : 0;
}

/**
 * The base64 runs of text[from, n) (see `TextScan`), reading few characters. A run of 18+
 * alphabet characters covers one of the probed offsets (every 18th from `from + 17`; after a run, 18 past its end).
 * A probe on a separator skips 18 characters. A probe in a word reads back to the word's start (at most 17
 * characters: the offset 18 before a probe is never inside a run); when the character 17 after that start is a
 * separator, the run is short and the next run that may be long starts after that separator.
 */
function base64Runs(text: string, from: number): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  const n = text.length;
  let p = from + RUN_MIN_CHARS - 1;
  while (p < n) {
    let bits = b64Bits(text.charCodeAt(p));
    if (bits === 0) {
      p += RUN_MIN_CHARS;
      continue;
    }
    let start = p;
    for (; start > from; start--) {
      const k = b64Bits(text.charCodeAt(start - 1));
      if (k === 0) break;
      bits |= k;
    }
    const last = start + RUN_MIN_CHARS - 1;
    if (last >= n) break;
    if (last > p && b64Bits(text.charCodeAt(last)) === 0) {
      // The run ends before `last`: too short. Runs starting before `last` end before it too.
      p = last + RUN_MIN_CHARS;
      continue;
    }
    let end = p + 1;
    for (; end < n; end++) {
      const k = b64Bits(text.charCodeAt(end));
      if (k === 0) break;
      bits |= k;
    }
    if (end - start >= RUN_MIN_CHARS) {
      if (end < n) {
        let stop = end;
        while (stop < n && stop - end < 2 && text.charCodeAt(stop) === 61) stop++;
        if (keepRun(text, start, stop, bits, true)) runs.push([start, stop]);
      } else if (end - start >= 20 && keepRun(text, start, n, bits, false)) runs.push([start, n]);
    }
    // The next run starts after `end` (a separator): 18 past it is an offset every such run of 18+ covers.
    p = end + RUN_MIN_CHARS;
  }
  return runs;
}

type Scan = TextScan;

/**
 * Reusing a scan of the text's first lines (the stream redactor's context, scanned with the previous part):
 * `prior.scan` is what scanText finds in text[0, upTo), which must end with a line break (nothing a scan finds
 * spans one: no word holds a line break and base64 runs stop at it). `result` receives the whole text's scan.
 */
interface ScanReuse {
  prior?: { upTo: number; scan: Scan };
  result?: Scan;
}

function joinScans(a: Scan, b: Scan): Scan {
  return { triggers: a.triggers.concat(b.triggers), runs: a.runs.concat(b.runs), extra: a.extra.concat(b.extra) };
}

/** The part of a scan at or after `from`, shifted to start there. */
function scanFrom(scan: Scan, from: number): Scan {
  return { triggers: pairsFrom(scan.triggers, from, false), runs: pairsFrom(scan.runs, from, true), extra: pairsFrom(scan.extra, from, false) };
}

/**
 * scanFrom's part of one list. A module-level function, not a closure made per call: V8 optimized each new
 * closure on its own (45 Turbofan compiles of it on a 1 GiB bundle).
 */
function pairsFrom(list: Array<[number, number]>, from: number, shiftBoth: boolean): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < list.length; i++) {
    const pair = list[i] as [number, number];
    const a = pair[0];
    if (a >= from) out.push([a - from, shiftBoth ? pair[1] - from : pair[1]]);
  }
  return out;
}

const NO_STARTS = new Uint8Array(4096);
const UNIONS = new WeakMap<Uint8Array, Uint8Array>();

/** The slots where a trigger word or a word of `extra` (another scanner's `starts`) may start. */
function startsUnion(extra: Uint8Array): Uint8Array {
  let u = UNIONS.get(extra);
  if (!u) {
    const t = TRIGGER.starts;
    u = new Uint8Array(t.length);
    for (let i = 0; i < u.length; i++) u[i] = (t[i] !== 0 ? 1 : 0) | (extra[i] !== 0 ? 2 : 0);
    UNIONS.set(extra, u);
  }
  return u;
}

const GATE_UNIONS = new WeakMap<Uint8Array, Uint8Array>();

/** startsUnion with the slots where a GATE word may start (the byte path's scan, scanLatin1). */
function gateUnion(extra: Uint8Array): Uint8Array {
  let u = GATE_UNIONS.get(extra);
  if (!u) {
    const base = startsUnion(extra);
    const g = GATE.starts;
    u = new Uint8Array(base.length);
    for (let i = 0; i < u.length; i++) u[i] = (base[i] as number) | (g[i] !== 0 ? 4 : 0);
    GATE_UNIONS.set(extra, u);
  }
  return u;
}

/** A second word list searched in the same pass as the trigger words (the final scan's anchors); see StreamRedactor. */
interface Companion {
  scanner: LiteralScanner;
  /** Its matches in the text given to `detect` (set by detect). */
  matches: Array<[number, number]>;
}

/** What `detect` learns from one pass over a text (`scanText`); the equivalence tests compare it to the reference. */
export function scanForRedaction(text: string, bytes?: Uint8Array): { triggers: Array<[number, number]>; runs: Array<[number, number]> } {
  // With `bytes` (the text's Latin-1 bytes) through the WebAssembly kernel, as streamed logs are.
  const { triggers, runs } = scanText(text, null, 0, bytes ? [bytes] : undefined);
  return { triggers, runs };
}

const B64_VALUE = (() => {
  const t = new Int8Array(128).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i++) t[alphabet.charCodeAt(i)] = i;
  t[45] = 62;
  t[95] = 63;
  return t;
})();
let b64Scratch = new Uint8Array(1024);

/**
 * False when the base64 run text[start, end) certainly decodes to nothing `detectEncoded` would look into: under
 * 12 bytes, or UTF-8 text less than 85% printable (CamelCase words and hashes in logs decode to binary). The exact
 * mirror of `base64Decode` + `utf8Decode` + `printableRatio`, without allocating; UTF-16LE candidates and runs
 * that pass are decoded for real.
 */
function base64MayHoldText(text: string, start: number, end: number): boolean {
  let stop = end;
  while (stop > start && text.charCodeAt(stop - 1) === 61) stop--;
  const len = stop - start;
  if (len % 4 === 1) return false;
  const size = Math.floor((len * 3) / 4);
  if (size < 12) return false;
  if (b64Scratch.length < size) b64Scratch = new Uint8Array(size * 2);
  const bytes = b64Scratch;
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = start; i < stop; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? (B64_VALUE[c] as number) : -1;
    if (v < 0) return false;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[o++] = (acc >> bits) & 0xff;
    }
  }
  return decodedMayHoldText(bytes, o);
}

/** base64MayHoldText of the Latin-1 text held as bytes: b[start, end). */
function base64MayHoldLatin1(b: Uint8Array, start: number, end: number): boolean {
  let stop = end;
  while (stop > start && b[stop - 1] === 61) stop--;
  const len = stop - start;
  if (len % 4 === 1) return false;
  const size = Math.floor((len * 3) / 4);
  if (size < 12) return false;
  if (b64Scratch.length < size) b64Scratch = new Uint8Array(size * 2);
  const bytes = b64Scratch;
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = start; i < stop; i++) {
    const c = b[i] as number;
    const v = c < 128 ? (B64_VALUE[c] as number) : -1;
    if (v < 0) return false;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[o++] = (acc >> bits) & 0xff;
    }
  }
  return decodedMayHoldText(bytes, o);
}

/** The second half of base64MayHoldText: the `o` decoded bytes may be text. */
function decodedMayHoldText(bytes: Uint8Array, o: number): boolean {
  if (o < 12) return false;
  if (looksUtf16le(bytes.subarray(0, o))) return true;
  let units = 0;
  let ok = 0;
  for (let i = 0; i < o;) {
    const b = bytes[i] as number;
    let cp = 0xfffd;
    let n = 1;
    if (b < 0x80) cp = b;
    else if (b >= 0xc2 && b < 0xe0 && i + 1 < o && ((bytes[i + 1] as number) & 0xc0) === 0x80) {
      cp = ((b & 31) << 6) | ((bytes[i + 1] as number) & 63);
      n = 2;
    } else if (b >= 0xe0 && b < 0xf0 && i + 2 < o && ((bytes[i + 1] as number) & 0xc0) === 0x80 && ((bytes[i + 2] as number) & 0xc0) === 0x80) {
      cp = ((b & 15) << 12) | (((bytes[i + 1] as number) & 63) << 6) | ((bytes[i + 2] as number) & 63);
      n = 3;
      if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
    } else if (
      b >= 0xf0 &&
      b < 0xf5 &&
      i + 3 < o &&
      ((bytes[i + 1] as number) & 0xc0) === 0x80 &&
      ((bytes[i + 2] as number) & 0xc0) === 0x80 &&
      ((bytes[i + 3] as number) & 0xc0) === 0x80
    ) {
      cp = ((b & 7) << 18) | (((bytes[i + 1] as number) & 63) << 12) | (((bytes[i + 2] as number) & 63) << 6) | ((bytes[i + 3] as number) & 63);
      n = 4;
      if (cp < 0x10000 || cp > 0x10ffff) cp = 0xfffd;
    }
    if (cp >= 0x10000) {
      // Two surrogate code units, both counted printable by printableRatio.
      units += 2;
      ok += 2;
    } else {
      units++;
      if ((cp >= 0x20 && cp < 0x7f) || cp === 9 || cp === 10 || cp === 13 || (cp >= 0xa0 && cp !== 0xfffd)) ok++;
    }
    i += n;
  }
  return units > 0 && ok / units >= 0.85;
}

/** Runs of non-space characters around each `%XX` escape. */
function percentRuns(text: string): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  const stop = (c: number) => c <= 32 || c === 34 || c === 39 || c === 60 || c === 62 || c === 96;
  let from = 0;
  for (let at = text.indexOf('%', from); at >= 0; at = text.indexOf('%', from)) {
    from = at + 1;
    if (!/^[0-9A-Fa-f]{2}$/.test(text.slice(at + 1, at + 3))) continue;
    let a = at;
    while (a > 0 && !stop(text.charCodeAt(a - 1))) a--;
    let b = at;
    while (b < text.length && !stop(text.charCodeAt(b))) b++;
    const last = runs[runs.length - 1];
    if (last && a < last[1]) continue;
    if (b - a <= MAX_ENCODED_RUN_CHARS) runs.push([a, b]);
    from = b;
  }
  return runs;
}

/** The span of a base64 run text[start, end) holding a secret, or null. Reads only text[start, end). */
function base64Span(text: string, start: number, end: number, depth: number, scanner: TextScanner | undefined): Span | null {
  if (!base64MayHoldText(text, start, end)) return null;
  const run = text.slice(start, end);
  const bytes = base64Decode(run);
  if (!bytes || bytes.length < 12) return null;
  const decoded = looksUtf16le(bytes) ? utf16leDecode(bytes, bytes[0] === 0xff && bytes[1] === 0xfe ? 2 : 0) : utf8Decode(bytes);
  if (printableRatio(decoded) < 0.85) return null;
  const inner = detect(decoded, depth + 1, scanner);
  if (inner.length === 0) return null;
  const kinds = inner.flatMap((s) => s.kinds);
  return makeSpan(start, end, kinds, 'base64', true, `[REDACTED:${bestOf(kinds)} base64]`);
}

/** The span of a percent-encoded run text[start, end) holding a secret, or null. Reads only text[start, end). */
function percentSpan(text: string, start: number, end: number, depth: number, scanner: TextScanner | undefined): Span | null {
  const run = text.slice(start, end);
  const decoded = percentDecode(run);
  if (decoded === run) return null;
  const inner = detect(decoded, depth + 1, scanner);
  if (inner.length === 0) return null;
  const kinds = inner.flatMap((s) => s.kinds);
  return makeSpan(start, end, kinds, 'url', true, percentEncode(applySpans(decoded, inner)));
}

/** Look for secrets inside base64, percent-encoded and UTF-16LE runs. */
function detectEncoded(text: string, depth: number, spans: Span[], hasNul: boolean, runs: Array<[number, number]>, scanner: TextScanner | undefined): void {
  for (const [start, end] of runs) {
    const span = base64Span(text, start, end, depth, scanner);
    if (span) spans.push(span);
  }
  if (text.includes('%')) {
    for (const [start, end] of percentRuns(text)) {
      const span = percentSpan(text, start, end, depth, scanner);
      if (span) spans.push(span);
    }
  }
  if (hasNul) {
    for (const m of text.matchAll(UTF16_RUN)) {
      const run = m[0];
      let decoded = '';
      for (let i = 0; i < run.length; i += 2) decoded += run[i];
      const inner = detect(decoded, depth + 1, scanner);
      if (inner.length === 0) continue;
      const redacted = applySpans(decoded, inner);
      let back = '';
      for (const ch of redacted) back += ch + '\u0000';
      const kinds = inner.flatMap((s) => s.kinds);
      spans.push(makeSpan(m.index, m.index + run.length, kinds, 'utf16le', true, back));
    }
  }
}

function bestOf(kinds: RedactionKind[]): RedactionKind {
  return kinds.reduce((a, b) => better(a, b));
}

/** Resolve overlaps: containers own what they contain; two plain detections of one value count once. */
function mergeSpans(spans: Span[]): Span[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Span[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (!last || s.start >= last.end) {
      out.push(makeSpan(s.start, s.end, [...s.kinds], s.encoding, s.container, s.replacement, s.continued));
      continue;
    }
    if (s.end <= last.end) {
      if (!last.container && !s.container) last.kinds = [better(last.kinds[0] as RedactionKind, s.kinds[0] as RedactionKind)];
      else if (!last.container && s.container && s.start === last.start && s.end === last.end) {
        last.container = true;
        last.kinds = s.kinds;
        last.encoding = s.encoding;
        if (s.replacement !== undefined) last.replacement = s.replacement;
      }
      continue;
    }
    // Partial overlap: one span over both, named by the stronger side.
    last.end = s.end;
    if (!last.container && !s.container) last.kinds = [better(last.kinds[0] as RedactionKind, s.kinds[0] as RedactionKind)];
    else if (s.kinds.length > last.kinds.length) last.kinds = s.kinds;
    if (last.encoding === 'plain') last.encoding = s.encoding;
    last.container = last.container || s.container;
    last.replacement = undefined;
  }
  return out;
}

function replacementOf(s: Span): string {
  return s.replacement ?? `[REDACTED:${bestOf(s.kinds)}]`;
}

function applySpans(text: string, spans: Span[]): string {
  let out = '';
  let pos = 0;
  for (const s of spans) {
    out += text.slice(pos, s.start) + replacementOf(s);
    pos = s.end;
  }
  return out + text.slice(pos);
}

const PUBLIC_PREFIX: Partial<Record<RedactionKind, RegExp>> = {
  'github-token': /^(?:gh[pousr]_|github_pat_)/,
  'aws-access-key': /^A[A-Z]{3}/,
  jwt: /^eyJ/,
  'service-account-token': /^eyJ/,
  'private-key': /^-----BEGIN [A-Z ]*PRIVATE KEY-----|^PuTTY-User-Key-File-\d+/,
  certificate: /^-----BEGIN [A-Z ]*CERTIFICATE-----|^LS0tLS1CRUdJTi/,
};

function hintFor(kind: RedactionKind, value: string, encoding: RedactionEncoding): string {
  const prefix = encoding === 'plain' ? (PUBLIC_PREFIX[kind]?.exec(value)?.[0] ?? '') : '';
  return `${prefix}${prefix ? '…' : ''}(${value.length} chars${encoding === 'plain' ? '' : `, ${encoding}`})`;
}

/** Pseudonymize addresses and names in a stretch of text that holds no secret. */
function pseudonymize(text: string, table: PseudonymTable, counts: RedactionCounts): string {
  let out = text;
  if (/[0-9A-Fa-f]{2}[-:][0-9A-Fa-f]{2}[-:]/.test(out)) {
    out = out.replace(/(?<![\w:-])[0-9A-Fa-f]{2}([:-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}(?![\w:-])/g, (mac) => {
      const r = table.mac(mac);
      if (r !== mac) bump(counts, 'mac');
      return r;
    });
  }
  if (out.includes('::') || /[0-9A-Fa-f]:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:/.test(out)) out = pseudonymizeIpv6(out, table, counts);
  if (/\d\.\d/.test(out)) {
    out = out.replace(/(?<![\w.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:\/(\d{1,2}))?(?![\w]|\.\d)/g, (whole, a, b, c, d, len) => {
      if ([a, b, c, d].some((x) => Number(x) > 255 || (String(x).length > 1 && String(x).startsWith('0')))) return whole;
      const prefix = len === undefined ? undefined : Number(len);
      if (prefix !== undefined && prefix > 32) return whole;
      const addr = `${a}.${b}.${c}.${d}`;
      const r = table.ipv4(addr, prefix);
      if (r === addr) return whole;
      bump(counts, 'ipv4');
      return prefix !== undefined ? `${r}/${prefix}` : r;
    });
  }
  const hostRe = table.hostPattern();
  if (hostRe) {
    hostRe.lastIndex = 0;
    out = out.replace(hostRe, (name) => {
      const r = table.host(name);
      if (!r) return name;
      bump(counts, 'hostname');
      return r;
    });
  }
  return out;
}

function isV6Char(c: number): boolean {
  return (c >= 48 && c <= 58) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102) || c === 46;
}

/** IPv6 candidates are grown around each `:` by a plain scan, then validated (times and MACs are not IPv6). */
function pseudonymizeIpv6(text: string, table: PseudonymTable, counts: RedactionCounts): string {
  let out = '';
  let pos = 0;
  let from = 0;
  for (let at = text.indexOf(':', from); at >= 0; at = text.indexOf(':', from)) {
    let a = at;
    while (a > 0 && isV6Char(text.charCodeAt(a - 1))) a--;
    let b = at;
    while (b < text.length && isV6Char(text.charCodeAt(b))) b++;
    from = b + 1;
    if (a < pos) continue;
    const before = a > 0 ? text.charCodeAt(a - 1) : 32;
    if ((before >= 48 && before <= 57) || (before >= 65 && before <= 90) || (before >= 97 && before <= 122) || before === 95) continue;
    let cand = text.slice(a, b).replace(/[:.]+$/, (tail) => (tail.startsWith('::') ? tail.slice(0, 2) : ''));
    let end = a + cand.length;
    if (text[end] === '%') {
      const zone = /^%[\w.]+/.exec(text.slice(end))?.[0] ?? '';
      cand += zone;
      end += zone.length;
    }
    let prefix: number | undefined;
    const slash = /^\/(\d{1,3})(?![\w])/.exec(text.slice(end));
    if (slash) prefix = Number(slash[1]);
    const after = end < text.length ? text.charCodeAt(end) : 32;
    if (!slash && ((after >= 48 && after <= 57) || (after >= 65 && after <= 90) || (after >= 97 && after <= 122) || after === 95)) continue;
    const bare = cand.split('%')[0] as string;
    if (!bare.includes('::') && bare.split(':').length !== 8) continue;
    if (prefix !== undefined && prefix > 128) continue;
    const mapped = table.ipv6(cand, prefix);
    if (mapped === null || mapped === cand) continue;
    bump(counts, 'ipv6');
    out += text.slice(pos, a) + mapped;
    pos = end;
    from = Math.max(from, end);
  }
  return out + text.slice(pos);
}

const HOST_LEARNERS: Array<[RegExp, 'host' | 'domain']> = [
  [/Host Name[ .]*:[ \t]*([A-Za-z0-9][A-Za-z0-9-]*)/g, 'host'],
  [/"?CSName"?\s*[:=]\s*"?([A-Za-z0-9][A-Za-z0-9-]*)/g, 'host'],
  [/COMPUTERNAME=([A-Za-z0-9][A-Za-z0-9-]*)/gi, 'host'],
  [/kubernetes\.io\/hostname"?\s*[:=]\s*"?([A-Za-z0-9][A-Za-z0-9.-]*)/g, 'host'],
  [/--(?:hostname-override|node-name)[= ]"?([A-Za-z0-9][A-Za-z0-9.-]*)/g, 'host'],
  [/\bNODE_NAME=([A-Za-z0-9][A-Za-z0-9.-]*)/g, 'host'],
  [/"(?:hostname|nodeName|HostName|ComputerName)"\s*:\s*"([A-Za-z0-9][A-Za-z0-9.-]*)"/g, 'host'],
  [/(?:Primary Dns Suffix|Connection-specific DNS Suffix|DNS Suffix Search List)[ .]*:[ \t]*([A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z0-9-]+)/g, 'domain'],
];

/** Teach a pseudonym table the host names and DNS suffixes a text names (ipconfig, CIM, kubelet flags, labels). */
export function learnHostsFromText(text: string, table: PseudonymTable): void {
  for (const [re, what] of HOST_LEARNERS) {
    for (const m of text.matchAll(re)) {
      const value = m[1] as string;
      if (what === 'host') table.learnHost(value);
      else table.learnDomain(value);
    }
  }
}

function bump(counts: RedactionCounts, kind: string, by = 1): void {
  counts[kind] = (counts[kind] ?? 0) + by;
}

/** Add `from` into `into` (both count maps). */
export function mergeCounts(into: RedactionCounts, from: RedactionCounts): RedactionCounts {
  for (const [k, v] of Object.entries(from)) bump(into, k, v);
  return into;
}

/** Total of a count map, optionally only secret kinds (not pseudonyms). */
export function totalCount(counts: RedactionCounts, secretsOnly = false): number {
  return Object.entries(counts).reduce((n, [k, v]) => (secretsOnly && ['ipv4', 'ipv6', 'mac', 'hostname'].includes(k) ? n : n + v), 0);
}

/** Secrets still present in `text` (what the final scan asks); pseudonym kinds are not reported. */
export function findSecrets(text: string): Array<{ kind: RedactionKind; start: number; end: number; encoding: RedactionEncoding }> {
  return detect(text, 0, undefined).map((s) => ({ kind: bestOf(s.kinds), start: s.start, end: s.end, encoding: s.encoding }));
}

/** Redact one text. `lineOffset` shifts the reported lines (for text streamed in chunks). */
export function redactText(text: string, options: RedactOptions, lineOffset = 0): RedactResult {
  return redactRegion(text, 0, options, lineOffset);
}

/**
 * Detect over all of `text` but emit (and count) only from `emitFrom` on: the part before is context already
 * emitted by an earlier call (the stream redactor's carry), so a Secret's `kind` or a YAML block's key seen
 * there still decides what follows.
 */
function redactRegion(
  text: string,
  emitFrom: number,
  options: RedactOptions,
  lineOffset: number,
  companionScanner: LiteralScanner | null = null,
  reuse?: ScanReuse,
  bytes?: readonly Uint8Array[],
): RedactResult & { companion: Array<[number, number]> | null } {
  const spans: Span[] = [];
  const companion: Companion | undefined = companionScanner ? { scanner: companionScanner, matches: [] } : undefined;
  for (const s of detect(text, 0, options.scanner, companion, reuse, bytes)) {
    if (s.end <= emitFrom) continue;
    if (s.start < emitFrom) spans.push(makeSpan(emitFrom, s.end, s.kinds, s.encoding, s.container, `[REDACTED:${bestOf(s.kinds)}]`, true));
    else spans.push(s);
  }
  const counts: RedactionCounts = {};
  const findings: RedactionFinding[] = [];
  const max = options.maxFindings ?? 500;
  let truncated = false;
  const table = options.level === 'strict' ? (options.pseudonyms ?? null) : null;
  if (table) learnHostsFromText(emitFrom > 0 ? text.slice(emitFrom) : text, table);

  let out = '';
  let pos = emitFrom;
  let line = 1 + lineOffset;
  let lineStart = emitFrom;
  let scanned = emitFrom;
  for (const s of spans) {
    // Advance the line counter to the span's start.
    for (let i = text.indexOf('\n', scanned); i >= 0 && i < s.start; i = text.indexOf('\n', i + 1)) {
      line++;
      lineStart = i + 1;
    }
    scanned = s.start;
    const between = text.slice(pos, s.start);
    out += table ? pseudonymize(between, table, counts) : between;
    out += replacementOf(s);
    pos = s.end;
    if (s.continued) continue;
    for (const k of s.kinds) bump(counts, k);
    if (findings.length < max) {
      findings.push({
        kind: bestOf(s.kinds),
        line,
        column: s.start - lineStart + 1,
        length: s.end - s.start,
        encoding: s.encoding,
        hint: hintFor(bestOf(s.kinds), text.slice(s.start, s.end), s.encoding),
      });
    } else truncated = true;
  }
  const rest = text.slice(pos);
  out += table ? pseudonymize(rest, table, counts) : rest;
  let companionMatches: Array<[number, number]> | null = null;
  if (companionScanner) {
    // The companion's matches in the output. Reused from the detection pass where the output's lines are the
    // input's (matches never span a line break: `mapCompanion`); searched again where a replacement changed a
    // line, or everywhere when the output may differ elsewhere (pseudonyms) or the part does not start a line.
    const lineStart = emitFrom === 0 || text.charCodeAt(emitFrom - 1) === 10;
    companionMatches =
      options.scanner || table || !lineStart || companionScanner.hasLineBreak
        ? options.scanner
          ? options.scanner.find(companionScanner, out)
          : companionScanner.findAll(out)
        : mapCompanion(companion?.matches ?? [], spans, emitFrom, new StringOutput(out, companionScanner));
  }
  return { text: out, counts, findings, findingsTruncated: truncated, companion: companionMatches };
}

/**
 * A scanner's matches in the output of `redactRegion` from its matches in the input. Output and input differ only
 * in the spans' replacements; a match never spans a line break (no word holds one), so the matches of a line are
 * a function of that line alone: lines without a replacement keep their input matches (shifted), lines with one
 * are searched again in the output.
 */
/** The output of a redaction as `mapCompanion` reads it: a string, or Latin-1 pieces (the byte path). */
interface CompanionOutput {
  readonly length: number;
  /** `String.prototype.lastIndexOf('\n', pos)`. */
  lastLineBreak(pos: number): number;
  /** `String.prototype.indexOf('\n', pos)`. */
  nextLineBreak(pos: number): number;
  /** The scanner's matches in [a, b), offsets relative to a. */
  findAll(a: number, b: number): Array<[number, number]>;
}

/**
 * A redacted string as a CompanionOutput. Classes, not objects of closures made per call: optimized code that
 * inlined one call's closure was thrown away ("weak objects") once that closure was collected.
 */
class StringOutput implements CompanionOutput {
  readonly length: number;

  constructor(
    private readonly out: string,
    private readonly scanner: LiteralScanner,
  ) {
    this.length = out.length;
  }

  lastLineBreak(pos: number): number {
    return this.out.lastIndexOf('\n', pos);
  }

  nextLineBreak(pos: number): number {
    return this.out.indexOf('\n', pos);
  }

  findAll(a: number, b: number): Array<[number, number]> {
    return this.scanner.findAll(this.out.slice(a, b));
  }
}

/** The byte path's output (Latin-1 pieces) as a CompanionOutput. */
class PiecesOutput implements CompanionOutput {
  readonly length: number;

  constructor(
    private readonly text: Latin1Pieces,
    private readonly scanner: LiteralScanner,
  ) {
    this.length = text.length;
  }

  lastLineBreak(pos: number): number {
    return this.text.lastLineBreak(pos);
  }

  nextLineBreak(pos: number): number {
    return this.text.nextLineBreak(pos);
  }

  findAll(a: number, b: number): Array<[number, number]> {
    return this.scanner.findAllBytes(this.text.copy(a, b), 0, b - a);
  }
}

function mapCompanion(inputMatches: Array<[number, number]>, spans: Span[], emitFrom: number, out: CompanionOutput): Array<[number, number]> {
  // Dirty regions: whole output lines holding a replacement, with the input range they came from.
  const dirty: Array<{ a: number; b: number; ain: number; bin: number }> = [];
  let delta = -emitFrom;
  for (const s of spans) {
    const os = s.start + delta;
    const rlen = replacementOf(s).length;
    const oe = os + rlen;
    delta += rlen - (s.end - s.start);
    const a = out.lastLineBreak(os - 1) + 1;
    let b = out.nextLineBreak(oe);
    if (b < 0) b = out.length;
    const ain = s.start - (os - a);
    const bin = s.end + (b - oe);
    const last = dirty[dirty.length - 1];
    // A later span on a line already dirty extends it: its own line end (and input end) is the region's.
    if (last && a <= last.b) {
      last.b = b;
      last.bin = bin;
    } else dirty.push({ a, b, ain, bin });
  }
  const result: Array<[number, number]> = [];
  let m = 0;
  let shift = -emitFrom;
  let si = 0;
  const spanShiftUpTo = (at: number) => {
    // Add the length change of every span that ends at or before input offset `at`.
    while (si < spans.length && (spans[si] as Span).end <= at) {
      const s = spans[si] as Span;
      shift += replacementOf(s).length - (s.end - s.start);
      si++;
    }
  };
  for (const d of dirty) {
    for (; m < inputMatches.length && (inputMatches[m] as [number, number])[0] < d.ain; m++) {
      const [at, w] = inputMatches[m] as [number, number];
      if (at < emitFrom) continue;
      spanShiftUpTo(at);
      result.push([at + shift, w]);
    }
    while (m < inputMatches.length && (inputMatches[m] as [number, number])[0] < d.bin) m++;
    for (const [at, w] of out.findAll(d.a, d.b)) result.push([at + d.a, w]);
  }
  for (; m < inputMatches.length; m++) {
    const [at, w] = inputMatches[m] as [number, number];
    if (at < emitFrom) continue;
    spanShiftUpTo(at);
    result.push([at + shift, w]);
  }
  return result;
}

/** Text encodings `redactBytes` keeps: the output has the input's encoding (and BOM). */
export type ByteEncoding = 'utf8' | 'utf8-bom' | 'utf16le' | 'utf16le-bom' | 'bytes';

/** Detect how bytes are encoded (BOMs, UTF-16LE by its zero high bytes); everything else is kept byte for byte. */
export function detectByteEncoding(bytes: Uint8Array): ByteEncoding {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf8-bom';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf16le-bom';
  if (looksUtf16le(bytes)) return 'utf16le';
  return 'bytes';
}

/** Latin-1 view of bytes: one character per byte, so any file round-trips exactly (patterns are ASCII). */
export function bytesToLatin1(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += 8192) parts.push(String.fromCharCode(...bytes.subarray(i, i + 8192)));
  return parts.join('');
}

export function latin1ToBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
  return out;
}

/**
 * Redact a file's bytes, keeping its encoding: UTF-16LE (with or without BOM) is decoded, redacted and encoded
 * again; anything else is handled byte for byte as Latin-1, so UTF-8 text and binary files come back unchanged
 * outside the redacted spans (UTF-16LE fragments inside them are still searched).
 */
export function redactBytes(bytes: Uint8Array, options: RedactOptions): RedactResult & { bytes: Uint8Array; encoding: ByteEncoding } {
  const encoding = detectByteEncoding(bytes);
  if (encoding === 'utf16le' || encoding === 'utf16le-bom') {
    const bom = encoding === 'utf16le-bom';
    const result = redactText(utf16leDecode(bytes, bom ? 2 : 0), options);
    const body = utf16leEncode(result.text);
    const out = new Uint8Array(body.length + (bom ? 2 : 0));
    if (bom) out.set([0xff, 0xfe], 0);
    out.set(body, bom ? 2 : 0);
    return { ...result, bytes: out, encoding };
  }
  const result = redactText(bytesToLatin1(bytes), options);
  return { ...result, bytes: latin1ToBytes(result.text), encoding };
}

/**
 * Redact a parsed JSON value (Kubernetes objects we write ourselves: NodeLists, EventLists): Secret data and
 * stringData values become their length, the last-applied annotation its length; then every string goes through
 * `redactText`. Returns a new value.
 */
export function redactJsonValue(value: unknown, options: RedactOptions): { value: unknown; counts: RedactionCounts } {
  const counts: RedactionCounts = {};
  const walk = (v: unknown, parentKind: unknown): unknown => {
    if (typeof v === 'string') {
      const r = redactText(v, { ...options, maxFindings: 0 });
      mergeCounts(counts, r.counts);
      return r.text;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, parentKind));
    if (v && typeof v === 'object') {
      const obj = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(obj)) {
        if ((k === 'data' || k === 'stringData') && obj.kind === 'Secret' && x && typeof x === 'object' && !Array.isArray(x)) {
          const masked: Record<string, string> = {};
          for (const [dk, dv] of Object.entries(x as Record<string, unknown>)) {
            const s = typeof dv === 'string' ? dv : JSON.stringify(dv);
            masked[dk] = `[REDACTED:secret-data len=${k === 'data' ? decodedLength(s) : s.length}]`;
            bump(counts, 'secret-data');
          }
          out[k] = masked;
        } else if (k === 'annotations' && x && typeof x === 'object' && !Array.isArray(x)) {
          const ann: Record<string, unknown> = {};
          for (const [ak, av] of Object.entries(x as Record<string, unknown>)) {
            if (ak === LAST_APPLIED_ANNOTATION && typeof av === 'string') {
              ann[ak] = `[REDACTED:last-applied-configuration len=${av.length}]`;
              bump(counts, 'last-applied-configuration');
            } else ann[ak] = walk(av, obj.kind);
          }
          out[k] = ann;
        } else {
          out[k] = walk(x, obj.kind);
        }
      }
      return out;
    }
    return v;
  };
  return { value: walk(value, undefined), counts };
}

/**
 * Redacts text that arrives in chunks (log tails) with bounded memory: each push returns what is safe to emit,
 * holding back the last partial line and an unterminated PEM block (up to `holdMaxChars`).
 */
export class StreamRedactor {
  private pending = '';
  /** The tail of what was already emitted, kept as detection context for the next part. */
  /** `context` as a string; null while only its bytes are known (after a `pushLatin1`; decoded when needed). */
  private contextText: string | null = '';
  private lines = 0;
  readonly counts: RedactionCounts = {};
  readonly findings: RedactionFinding[] = [];
  findingsTruncated = false;
  /**
   * With a `companion` scanner: its matches (`LiteralScanner.findAll`) in the text the last `push`/`end` returned,
   * found in the same pass as the redaction's own scan (the final scan's anchor words, scan.ts).
   */
  companionMatches: Array<[number, number]> = [];
  /** The scan of `context` (it is made of whole lines of the last part), so it is not read twice. */
  private contextScan: Scan | null = null;
  /**
   * The Latin-1 bytes of `pending` (pieces) and of `context`, while every part came with its bytes (`push`'s
   * second argument): detection then scans them with the WebAssembly kernel (scanText). Null: not known.
   */
  private pendingBytes: Uint8Array[] | null = [];
  private contextBytes: Uint8Array | null = new Uint8Array(0);
  /** `context + chunk` as one flat string, given by the caller with the last push (see `push`). */
  private joinedHint: { text: string; cut: number } | null = null;

  constructor(
    private readonly options: RedactOptions,
    private readonly holdMaxChars = 1024 * 1024,
    private readonly contextChars = 64 * 1024,
    private readonly companion: LiteralScanner | null = null,
    /** Byte searches and decoding for `pushLatin1` (the pipeline gives Buffer's native ones). */
    private readonly latin1: Latin1Ops = JS_LATIN1_OPS,
  ) {}

  /**
   * `bytes`, when given, are `chunk`'s Latin-1 bytes (one per character: a chunk decoded as `latin1`); they only
   * make the scan faster (the output is the same).
   */
  push(chunk: string, bytes?: Uint8Array, joined?: string): string {
    // `joined`: the caller decoded `latin1Context` and the chunk in one go. Used as the detection text when the
    // whole chunk is redacted now (it saves concatenating and copying the two, and a half-MB string per part).
    this.joinedHint =
      joined !== undefined &&
      this.pending === '' &&
      joined.length === this.context.length + chunk.length &&
      // `===` compares flat characters at memory speed; startsWith/endsWith go character by character.
      joined.slice(0, this.context.length) === this.context &&
      joined.slice(this.context.length) === chunk
        ? { text: joined, cut: chunk.length }
        : null;
    if (this.pendingBytes) {
      if (bytes && bytes.length === chunk.length && sameLatin1Sample(chunk, bytes)) {
        if (bytes.length > 0) this.pendingBytes.push(bytes);
      } else this.dropBytes();
    }
    this.pending += chunk;
    let cut = this.pending.lastIndexOf('\n') + 1;
    this.companionMatches = [];
    if (cut === 0) {
      if (this.pending.length < this.holdMaxChars) return '';
      cut = this.pending.length;
    }
    // The last `-----BEGIN ` starting at or before `cut`, found forwards (indexOf skips through the text;
    // lastIndexOf compares at every offset).
    let begin = -1;
    for (let at = this.pending.indexOf('-----BEGIN '); at >= 0 && at <= cut; at = this.pending.indexOf('-----BEGIN ', at + 1)) begin = at;
    if (begin >= 0 && this.pending.indexOf('-----END ', begin) < 0 && this.pending.length - begin < this.holdMaxChars) {
      const lineStart = this.pending.lastIndexOf('\n', begin) + 1;
      cut = Math.min(cut, lineStart);
    }
    if (cut === 0) return '';
    return this.run(this.pending.slice(0, cut), cut);
  }

  end(): string {
    this.companionMatches = [];
    this.joinedHint = null;
    if (this.pending === '') return '';
    return this.run(this.pending, this.pending.length);
  }

  /** The tail of what was already emitted (detection context for the next part). */
  private get context(): string {
    if (this.contextText === null) this.contextText = this.latin1.decode(this.contextBytes ?? new Uint8Array(0), 0, this.contextBytes?.length ?? 0);
    return this.contextText;
  }

  /**
   * The byte path (streamed Latin-1 logs): redact `bytes`, whole lines (the last byte is a line break), and
   * return the output bytes, or null when this part must take the string path (`push`), which then gives the
   * same output. It applies when the part and the context before it hold nothing that needs the whole text as a
   * string: no NUL (UTF-16LE runs), no `kind: Secret` or last-applied annotation (structural
   * rules), no `-----BEGIN ` in the part (a PEM block may be held back); the redactor is not strict and has no
   * `scanner`, and every earlier part came with its bytes. Detection then decodes only the lines around trigger
   * words (`triggerWindows`), the base64 runs and the percent-encoded runs, and the output is the input outside the replaced spans (a
   * view of `bytes` when nothing was replaced). `companionMatches` are set as `push` sets them.
   * `redact-bytes.test.ts` proves it equal to `push` (bytes, counts, findings, companion matches).
   */
  pushLatin1(input: Uint8Array | readonly Uint8Array[]): Uint8Array[] | null {
    const parts = (input instanceof Uint8Array ? [input] : input).filter((p) => p.length > 0);
    let part = 0;
    for (const p of parts) part += p.length;
    const lastPart = parts[parts.length - 1];
    const ctx = this.contextBytes;
    if (!lastPart || lastPart[lastPart.length - 1] !== 10 || this.pending !== '' || !this.pendingBytes || !ctx || this.options.scanner) return null;
    if (this.options.level === 'strict' || this.companion?.hasLineBreak) return null;
    const n = ctx.length + part;
    if (n <= SMALL_TEXT_CHARS || n > LATIN1_PATH_MAX_CHARS) return null;
    const ops = this.latin1;
    // Joined where the scan kernel reads its text (no copy into its memory, no scratch per redactor), else in a scratch.
    let b = kernelText(n);
    if (!b) {
      if (this.joinScratch.length < n) this.joinScratch = new Uint8Array(Math.max(n, 640 * 1024));
      b = this.joinScratch.subarray(0, n);
    }
    b.set(ctx, 0);
    let at = ctx.length;
    for (const p of parts) {
      b.set(p, at);
      at += p.length;
    }
    const prior = this.contextScan && ctx.length > 0 ? this.contextScan : null;
    const from = prior ? ctx.length : 0;
    // A NUL byte (UTF-16LE runs), the last-applied annotation or `kind: Secret` anywhere take the string path. The
    // scan finds them in the bytes it scans, b[from, n) (scanLatin1 is then null): only a context whose scan is
    // reused is searched here (`gatedBefore`).
    if (hasPemBegin(b, ctx.length, ops) || (from > 0 && gatedBefore(b, from, ops))) {
      this.shrinkScratch();
      return null;
    }
    const fresh = scanLatin1(b, from, this.companion);
    if (!fresh) {
      this.shrinkScratch();
      return null;
    }
    const scan = prior ? joinScans(prior, fresh) : fresh;
    const detected = detectLatin1(b, scan, ops);
    const remaining = Math.max(0, (this.options.maxFindings ?? 500) - this.findings.length);
    const r = redactLatin1(b, ctx.length, parts, detected, remaining, this.lines, this.companion, scan.extra, ops);
    this.joinedHint = null;
    this.companionMatches = r.companion;
    mergeCounts(this.counts, r.counts);
    this.findings.push(...r.findings);
    if (r.findingsTruncated) this.findingsTruncated = true;
    this.lines = r.lines;
    // The context, as `run` keeps it (contextStart).
    const ctxStart = n <= this.contextChars ? 0 : contextStart(ops.indexOf(b, '\n', n - this.contextChars), n, this.contextChars);
    // A view of the caller's bytes when the context lies in the last piece (no copy), else a copy.
    const lastStart = n - lastPart.length;
    this.contextBytes = ctxStart >= lastStart ? lastPart.subarray(ctxStart - lastStart) : b.slice(ctxStart, n);
    this.contextText = null;
    this.contextScan = ctxStart < n ? scanFrom(scan, ctxStart) : null;
    this.pendingBytes = [];
    this.shrinkScratch();
    return r.out;
  }

  private joinScratch = new Uint8Array(0);

  /** A scratch grown for one huge part is not kept. */
  private shrinkScratch(): void {
    if (this.joinScratch.length > 4 * 1024 * 1024) this.joinScratch = new Uint8Array(0);
  }

  /** The Latin-1 bytes of the current context (while every push came with its bytes), else null. */
  get latin1Context(): Uint8Array | null {
    return this.pendingBytes && this.pending === '' ? this.contextBytes : null;
  }

  /**
   * Whether the redactor still holds a view of `buffer` (its context or held-back bytes): a caller that reuses
   * its read buffers must not overwrite one it holds.
   */
  holdsBuffer(buffer: ArrayBufferLike): boolean {
    if (this.contextBytes?.buffer === buffer) return true;
    for (const p of this.pendingBytes ?? []) if (p.buffer === buffer) return true;
    return false;
  }

  private dropBytes(): void {
    this.pendingBytes = null;
    this.contextBytes = null;
  }

  private run(part: string, cut: number): string {
    this.pending = this.pending.slice(cut);
    let bytes: Uint8Array[] | undefined;
    if (this.pendingBytes && this.contextBytes) {
      const [head, tail] = splitPieces(this.pendingBytes, cut);
      this.pendingBytes = tail;
      bytes = this.contextBytes.length > 0 ? [this.contextBytes, ...head] : head;
    }
    const remaining = Math.max(0, (this.options.maxFindings ?? 500) - this.findings.length);
    const reuse: ScanReuse = this.contextScan && this.context !== '' ? { prior: { upTo: this.context.length, scan: this.contextScan } } : {};
    // One string for detection and for the next context (it is flattened once, by the detection's first search).
    const hint = this.joinedHint;
    this.joinedHint = null;
    const joined = hint && hint.cut === cut && part.length === cut ? hint.text : this.context + part;
    const r = redactRegion(joined, this.context.length, { ...this.options, maxFindings: remaining }, this.lines, this.companion, reuse, bytes);
    this.companionMatches = r.companion ?? [];
    mergeCounts(this.counts, r.counts);
    this.findings.push(...r.findings);
    if (r.findingsTruncated) this.findingsTruncated = true;
    for (let i = part.indexOf('\n'); i >= 0; i = part.indexOf('\n', i + 1)) this.lines++;
    const context =
      joined.length <= this.contextChars
        ? joined
        : joined.slice(contextStart(joined.indexOf('\n', joined.length - this.contextChars), joined.length, this.contextChars));
    this.contextText = context;
    if (bytes) this.contextBytes = copyPieces(bytes, joined.length - context.length, joined.length);
    // The context's scan is reusable when it ends a line (a forced cut inside a line continues that line).
    this.contextScan =
      reuse.result && this.context !== '' && joined.charCodeAt(joined.length - 1) === 10 ? scanFrom(reuse.result, joined.length - this.context.length) : null;
    return r.text;
  }
}

/** Pieces of bytes split at offset `cut` of their concatenation (views, no copy). */
/**
 * Where the context kept for the next part starts in a text of `n` characters (more than `contextChars`), given the
 * first line break in its last `contextChars` characters: after that line break (whole lines), or, when a line
 * is longer than that (a forced cut inside a line over the hold limit), its last `contextChars` characters, so a
 * key right before the cut (`--password=`) still precedes its value in the next part.
 */
function contextStart(lineBreak: number, n: number, contextChars: number): number {
  return lineBreak >= 0 ? lineBreak + 1 : n - contextChars;
}

function splitPieces(pieces: Uint8Array[], cut: number): [Uint8Array[], Uint8Array[]] {
  const head: Uint8Array[] = [];
  const tail: Uint8Array[] = [];
  let at = 0;
  for (const p of pieces) {
    if (at + p.length <= cut) head.push(p);
    else if (at >= cut) tail.push(p);
    else {
      head.push(p.subarray(0, cut - at));
      tail.push(p.subarray(cut - at));
    }
    at += p.length;
  }
  return [head, tail];
}

/** A copy of bytes [from, to) of the pieces' concatenation. */
function copyPieces(pieces: readonly Uint8Array[], from: number, to: number): Uint8Array {
  const out = new Uint8Array(to - from);
  let at = 0;
  for (const p of pieces) {
    const a = Math.max(from, at);
    const b = Math.min(to, at + p.length);
    if (a < b) out.set(p.subarray(a - at, b - at), a - from);
    at += p.length;
  }
  return out;
}

/** A cheap check of the `push` contract (bytes are the chunk's Latin-1 bytes) at 65 evenly spaced offsets. */
function sameLatin1Sample(text: string, bytes: Uint8Array): boolean {
  const n = text.length;
  if (n === 0) return true;
  for (let k = 0; k <= 64; k++) {
    const i = Math.floor(((n - 1) * k) / 64);
    if (text.charCodeAt(i) !== bytes[i]) return false;
  }
  return true;
}

// ---- The byte path of StreamRedactor (`pushLatin1`): Latin-1 text handled as its bytes ----

/**
 * Searches and decoding over Latin-1 bytes (one byte per character) for the byte path. `indexOf` is
 * `String.prototype.indexOf` on the decoded text (`from` >= 0); `decode` is bytes[start, end) as a string. The
 * default is plain JavaScript; the bundle pipeline gives Buffer's native ones (memchr speed).
 */
export interface Latin1Ops {
  indexOf(bytes: Uint8Array, needle: string, from: number): number;
  /** `bytes.indexOf(byte, from)` (`from` >= 0). */
  indexOfByte(bytes: Uint8Array, byte: number, from: number): number;
  decode(bytes: Uint8Array, start: number, end: number): string;
}

export const JS_LATIN1_OPS: Latin1Ops = {
  indexOf(bytes, needle, from) {
    const len = needle.length;
    const first = needle.charCodeAt(0);
    for (let i = bytes.indexOf(first, from); i >= 0 && i + len <= bytes.length; i = bytes.indexOf(first, i + 1)) {
      let j = 1;
      while (j < len && bytes[i + j] === needle.charCodeAt(j)) j++;
      if (j === len) return i;
    }
    return -1;
  },
  indexOfByte(bytes, byte, from) {
    return bytes.indexOf(byte, from);
  },
  decode(bytes, start, end) {
    let out = '';
    for (let i = start; i < end; i += 8192) out += String.fromCharCode.apply(null, bytes.subarray(i, Math.min(end, i + 8192)) as unknown as number[]);
    return out;
  },
};

/** Larger parts take the string path (the scan kernel's limit). */
const LATIN1_PATH_MAX_CHARS = 8 * 1024 * 1024;

/** `\s` of a regular expression, for character codes below 256. */
function isSpaceByte(c: number): boolean {
  return (c >= 9 && c <= 13) || c === 32 || c === 160;
}

function isWordByte(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isHexByte(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/**
 * Whether `/kind["']?\s*:\s*["']?Secret\b/` (detectStructural's gate) matches with its `Secret` at `p` (where the
 * bytes spell `Secret`), read backwards: every part of the expression left of `Secret` is forced (a quote must be
 * the optional quote, a space run must be taken whole, since neither a quote nor a space can be `:` or `d`). The
 * expression matches a Latin-1 text exactly when this holds at one of its `Secret`s.
 */
function secretKindAt(b: Uint8Array, p: number): boolean {
  if (p + 6 < b.length && isWordByte(b[p + 6] as number)) return false;
  let i = p;
  if (i > 0 && (b[i - 1] === 34 || b[i - 1] === 39)) i--;
  while (i > 0 && isSpaceByte(b[i - 1] as number)) i--;
  if (i === 0 || b[i - 1] !== 58) return false;
  i--;
  while (i > 0 && isSpaceByte(b[i - 1] as number)) i--;
  if (i > 0 && (b[i - 1] === 34 || b[i - 1] === 39)) i--;
  return i >= 4 && b[i - 4] === 107 && b[i - 3] === 105 && b[i - 2] === 110 && b[i - 1] === 100;
}

/** `word` (ASCII) at b[at, at + word.length). */
function bytesAre(b: Uint8Array, at: number, word: string): boolean {
  if (at < 0 || at + word.length > b.length) return false;
  for (let k = 0; k < word.length; k++) if (b[at + k] !== word.charCodeAt(k)) return false;
  return true;
}

/**
 * The words that send a part of the byte path to the string path (structural rules: `kind: Secret`, the
 * last-applied annotation), found by the scan kernel in its pass over the part (`scanLatin1`, `gateAt`) instead
 * of two more searches through every part. The annotation is found by its tail (`last-applied-configuration`: its
 * first three characters are rarer in logs than `kub`).
 */
const ANNOTATION_HEAD = LAST_APPLIED_ANNOTATION.lastIndexOf('/') + 1;
const GATE = new LiteralScanner(['Secret', LAST_APPLIED_ANNOTATION.slice(ANNOTATION_HEAD)]);

/** Whether a gate word's match starts at `at` (a hit of GATE's starts): `kind: Secret`, or the annotation's tail. */
function gateAt(b: Uint8Array, at: number): boolean {
  if (bytesAre(b, at, 'Secret')) return secretKindAt(b, at);
  return bytesAre(b, at - ANNOTATION_HEAD, LAST_APPLIED_ANNOTATION);
}

/**
 * The gates that `scanLatin1(b, from)` cannot see, in a context b[0, from) whose scan is reused: a NUL byte in
 * it, or a `Secret` or the annotation's tail starting before `from` (searched in b up to a match's length past
 * `from`; a match found there is one anywhere in `b` all the same).
 */
function gatedBefore(b: Uint8Array, from: number, ops: Latin1Ops): boolean {
  if (ops.indexOfByte(b.subarray(0, from), 0, 0) >= 0) return true;
  const n = b.length;
  const head = b.subarray(0, Math.min(n, from + LAST_APPLIED_ANNOTATION.length));
  if (ops.indexOf(head, LAST_APPLIED_ANNOTATION, 0) >= 0) return true;
  const secrets = b.subarray(0, Math.min(n, from + 6));
  for (let p = ops.indexOf(secrets, 'Secret', 0); p >= 0; p = ops.indexOf(secrets, 'Secret', p + 1)) if (secretKindAt(b, p)) return true;
  return false;
}

/**
 * Whether `-----BEGIN ` starts at or after `from`: found by its `BEGIN ` (Buffer's search scans for a needle's
 * first byte, and dashes are everywhere in logs: dates, names; searching for the whole needle cost ~8x more).
 */
function hasPemBegin(b: Uint8Array, from: number, ops: Latin1Ops): boolean {
  for (let p = ops.indexOf(b, 'BEGIN ', from + 5); p >= 0; p = ops.indexOf(b, 'BEGIN ', p + 1)) {
    if (b[p - 1] === 45 && b[p - 2] === 45 && b[p - 3] === 45 && b[p - 4] === 45 && b[p - 5] === 45) return true;
  }
  return false;
}

/** percentRuns on Latin-1 bytes (the same runs). */
function percentRunsLatin1(b: Uint8Array, ops: Latin1Ops): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  const n = b.length;
  const stop = (c: number) => c <= 32 || c === 34 || c === 39 || c === 60 || c === 62 || c === 96;
  let from = 0;
  for (let at = ops.indexOfByte(b, 37, 0); at >= 0; at = from < n ? ops.indexOfByte(b, 37, from) : -1) {
    from = at + 1;
    if (!(at + 2 < n && isHexByte(b[at + 1] as number) && isHexByte(b[at + 2] as number))) continue;
    let a = at;
    while (a > 0 && !stop(b[a - 1] as number)) a--;
    let e = at;
    while (e < n && !stop(b[e] as number)) e++;
    const last = runs[runs.length - 1];
    if (last && a < last[1]) continue;
    if (e - a <= MAX_ENCODED_RUN_CHARS) runs.push([a, e]);
    from = e;
  }
  return runs;
}

/** `String.prototype.lastIndexOf('\n', pos)` on Latin-1 bytes. */
function lastLineBreak(b: Uint8Array, pos: number): number {
  if (b.length === 0) return -1;
  return b.lastIndexOf(10, Math.min(Math.max(pos, 0), b.length - 1));
}

/** `String.prototype.indexOf('\n', pos)` on Latin-1 bytes. */
function nextLineBreak(b: Uint8Array, pos: number, ops: Latin1Ops): number {
  return pos >= b.length ? -1 : ops.indexOfByte(b, 10, Math.max(pos, 0));
}

/**
 * How many line breaks b[from, to) holds: counted by the scan kernel when `b` is its text (`kernelText`); a native
 * search per line (logs have one every ~150 bytes) cost ~0.5 ns per byte of log.
 */
function lineBreaksIn(b: Uint8Array, from: number, to: number, ops: Latin1Ops): number {
  if (to <= from) return 0;
  const counted = kernelCount(b, from, to, 10);
  if (counted >= 0) return counted;
  let lines = 0;
  for (let next = nextLineBreak(b, from, ops); next >= 0 && next < to; next = nextLineBreak(b, next + 1, ops)) lines++;
  return lines;
}

/**
 * scanText over Latin-1 bytes (the kernel's hits, words compared on the bytes); null when the kernel cannot, or
 * when b[from, n) holds a NUL byte or a gate word starts there (`GATE`: `kind: Secret`, the last-applied
 * annotation): the byte path's caller then takes the string path.
 */
function scanLatin1(b: Uint8Array, from: number, extraScanner: LiteralScanner | null): Scan | null {
  const n = b.length;
  const extraStarts = extraScanner ? extraScanner.starts : NO_STARTS;
  const kernel = kernelScan([b], n, from, gateUnion(extraStarts), [TRIGGER, extraScanner, GATE]);
  if (!kernel || kernel.nul) return null;
  const fold = foldTable();
  const starts = TRIGGER.starts;
  const gateStarts = GATE.starts;
  const triggers: Array<[number, number]> = [];
  const extra: Array<[number, number]> = [];
  const hits = kernel.hits;
  let free = from;
  let extraFree = from;
  for (let h = 0; h < kernel.count; h++) {
    const i = hits[h] as number;
    if (i < from + 2) continue;
    const at = i - 2;
    const slot = slotOf(((fold[b[at] as number] as number) << 14) | ((fold[b[at + 1] as number] as number) << 7) | (fold[b[i] as number] as number));
    if (gateStarts[slot] !== 0 && gateAt(b, at)) return null;
    if (starts[slot] !== 0 && at >= free) {
      const hit = TRIGGER.matchAtBytes(b, n, at, starts[slot] as number);
      if (hit >= 0) {
        triggers.push([at, hit >> 8]);
        free = at + (hit & 255);
      }
    }
    if (extraStarts[slot] !== 0 && at >= extraFree) {
      const hit = (extraScanner as LiteralScanner).matchAtBytes(b, n, at, extraStarts[slot] as number);
      if (hit >= 0) {
        extra.push([at, hit >> 8]);
        extraFree = at + (hit & 255);
      }
    }
  }
  return { triggers, runs: kernel.runs, extra };
}

/** triggerWindows on Latin-1 bytes (the same ranges). */
function triggerWindowsLatin1(b: Uint8Array, triggers: Array<[number, number]>, ops: Latin1Ops): Array<[number, number]> {
  const windows: Array<[number, number]> = [];
  const n = b.length;
  for (const [at, wordIndex] of triggers) {
    const word = TRIGGER_WORDS[wordIndex] as string;
    const opener = word === '-----begin' || word === 'putty-user-key-file';
    let start = lastLineBreak(b, at - 1) + 1;
    if (start > 0) start = lastLineBreak(b, start - 2) + 1;
    let end = windowEndLatin1(b, at, ops);
    if (opener) {
      const close = ops.indexOf(b, word === 'putty-user-key-file' ? 'Private-MAC' : '-----END', at);
      const closeEnd = close < 0 ? n : nextLineBreak(b, close, ops);
      end = Math.max(end, closeEnd < 0 ? n : closeEnd);
    }
    const last = windows[windows.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else windows.push([start, end]);
  }
  return windows;
}

/** windowEnd on Latin-1 bytes (the same offset). */
function windowEndLatin1(b: Uint8Array, at: number, ops: Latin1Ops): number {
  const lineEnd = nextLineBreak(b, at, ops);
  let end = lineEnd;
  let counted = 0;
  let blanks = 0;
  while (end >= 0 && counted < WINDOW_LINES_AFTER) {
    const next = nextLineBreak(b, end + 1, ops);
    if (blanks < WINDOW_BLANK_LINES_MAX && isBlankLineBytes(b, end + 1, next < 0 ? b.length : next)) blanks++;
    else counted++;
    end = next;
  }
  end = end < 0 ? b.length : end;
  if (lineEnd < 0) return end;
  const lineStart = lastLineBreak(b, at - 1) + 1;
  if (!mayOpenYamlBlock((i) => b[i] as number, lineStart, lineEnd) || !YAML_BLOCK_OPENER.test(ops.decode(b, lineStart, lineEnd))) return end;
  return Math.max(
    end,
    yamlBlockEnd(b.length, (i) => b[i] as number, lineStart, lineEnd),
  );
}

/** isBlankLine on Latin-1 bytes. */
function isBlankLineBytes(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = b[i] as number;
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/**
 * `detect` at depth 0 of a large Latin-1 text that `pushLatin1` admitted (no structural rule or NUL can apply):
 * the patterns over the trigger windows, then the base64 runs, then the percent-encoded runs, in `detect`'s order.
 */
function detectLatin1(b: Uint8Array, scan: Scan, ops: Latin1Ops): Span[] {
  const spans: Span[] = [];
  for (const [a, e] of triggerWindowsLatin1(b, scan.triggers, ops)) runPatterns(ops.decode(b, a, e), a, spans);
  for (const [start, end] of scan.runs) {
    // The same check base64Span makes first, on the bytes (most runs are CamelCase words or hashes).
    if (!base64MayHoldLatin1(b, start, end)) continue;
    const span = base64Span(ops.decode(b, start, end), 0, end - start, 0, undefined);
    if (span) spans.push(makeSpan(start, end, span.kinds, span.encoding, span.container, span.replacement, span.continued));
  }
  for (const [start, end] of percentRunsLatin1(b, ops)) {
    const span = percentSpan(ops.decode(b, start, end), 0, end - start, 0, undefined);
    if (span) spans.push(makeSpan(start, end, span.kinds, span.encoding, span.container, span.replacement, span.continued));
  }
  return mergeSpans(spans);
}

/**
 * `redactRegion` (standard level, no scanner) on Latin-1 bytes: `b` is context + part, `part` the caller's bytes
 * of b[emitFrom, end). The output is `part` itself when nothing is replaced. `lines`: the line count after the part.
 */
function redactLatin1(
  b: Uint8Array,
  emitFrom: number,
  parts: readonly Uint8Array[],
  detected: Span[],
  max: number,
  lineOffset: number,
  companionScanner: LiteralScanner | null,
  inputMatches: Array<[number, number]>,
  ops: Latin1Ops,
): { out: Uint8Array[]; counts: RedactionCounts; findings: RedactionFinding[]; findingsTruncated: boolean; companion: Array<[number, number]>; lines: number } {
  const spans: Span[] = [];
  for (const s of detected) {
    if (s.end <= emitFrom) continue;
    if (s.start < emitFrom) spans.push(makeSpan(emitFrom, s.end, s.kinds, s.encoding, s.container, `[REDACTED:${bestOf(s.kinds)}]`, true));
    else spans.push(s);
  }
  const counts: RedactionCounts = {};
  const findings: RedactionFinding[] = [];
  let truncated = false;
  let line = 1 + lineOffset;
  let lineStart = emitFrom;
  // The line breaks before each span (as redactRegion counts them), then the rest of the part's; those before
  // `counted` are in `line`.
  let counted = emitFrom;
  for (const s of spans) {
    if (s.start > counted) {
      const breaks = lineBreaksIn(b, counted, s.start, ops);
      if (breaks > 0) {
        line += breaks;
        lineStart = lastLineBreak(b, s.start - 1) + 1;
      }
      counted = s.start;
    }
    if (s.continued) continue;
    for (const k of s.kinds) bump(counts, k);
    if (findings.length < max) {
      findings.push({
        kind: bestOf(s.kinds),
        line,
        column: s.start - lineStart + 1,
        length: s.end - s.start,
        encoding: s.encoding,
        hint: hintFor(bestOf(s.kinds), ops.decode(b, s.start, s.end), s.encoding),
      });
    } else truncated = true;
  }
  line += lineBreaksIn(b, counted, b.length, ops);
  // The output: views of the caller's pieces between the spans, and the replacements.
  const out: Uint8Array[] = [];
  let pos = emitFrom;
  for (const s of spans) {
    if (s.start > pos) out.push(...viewsOf(parts, pos - emitFrom, s.start - emitFrom));
    out.push(latin1Bytes(replacementOf(s)));
    pos = s.end;
  }
  if (b.length > pos) out.push(...viewsOf(parts, pos - emitFrom, b.length - emitFrom));
  let companion: Array<[number, number]> = [];
  if (companionScanner) {
    const text = new Latin1Pieces(out, ops);
    const lineStartsPart = emitFrom === 0 || b[emitFrom - 1] === 10;
    companion = lineStartsPart
      ? mapCompanion(inputMatches, spans, emitFrom, new PiecesOutput(text, companionScanner))
      : companionScanner.findAllBytes(text.copy(0, text.length), 0, text.length);
  }
  return { out, counts, findings, findingsTruncated: truncated, companion, lines: line - 1 };
}

/** Views of bytes [from, to) of the pieces' concatenation. */
function viewsOf(pieces: readonly Uint8Array[], from: number, to: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const p of pieces) {
    const a = Math.max(from, at);
    const e = Math.min(to, at + p.length);
    if (a < e) out.push(a === at && e === at + p.length ? p : p.subarray(a - at, e - at));
    at += p.length;
  }
  return out;
}

/** A string of character codes below 256 as its Latin-1 bytes. */
function latin1Bytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
  return out;
}

/**
 * Latin-1 text held as pieces of bytes (the byte path's output: views of the input and the replacements), read
 * without joining them: line breaks around an offset, copies and decodes of short ranges.
 */
export class Latin1Pieces {
  readonly length: number;
  private readonly starts: number[] = [];

  constructor(
    readonly pieces: readonly Uint8Array[],
    private readonly ops: Latin1Ops = JS_LATIN1_OPS,
  ) {
    let at = 0;
    for (const p of pieces) {
      this.starts.push(at);
      at += p.length;
    }
    this.length = at;
  }

  /** The piece holding offset `pos` (0 <= pos < length). */
  private pieceAt(pos: number): number {
    let lo = 0;
    let hi = this.pieces.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] as number) <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** `String.prototype.lastIndexOf('\n', pos)`. */
  lastLineBreak(pos: number): number {
    if (this.length === 0) return -1;
    const from = Math.min(Math.max(pos, 0), this.length - 1);
    for (let k = this.pieceAt(from); k >= 0; k--) {
      const p = this.pieces[k] as Uint8Array;
      const start = this.starts[k] as number;
      if (p.length === 0) continue;
      const i = p.lastIndexOf(10, Math.min(from - start, p.length - 1));
      if (i >= 0) return start + i;
    }
    return -1;
  }

  /** `String.prototype.indexOf('\n', pos)`. */
  nextLineBreak(pos: number): number {
    const from = Math.max(pos, 0);
    if (from >= this.length) return -1;
    for (let k = this.pieceAt(from); k < this.pieces.length; k++) {
      const p = this.pieces[k] as Uint8Array;
      const start = this.starts[k] as number;
      const i = this.ops.indexOfByte(p, 10, Math.max(0, from - start));
      if (i >= 0) return start + i;
    }
    return -1;
  }

  /** A copy of bytes [a, b) (clamped). */
  copy(a: number, b: number): Uint8Array {
    const from = Math.min(Math.max(a, 0), this.length);
    const to = Math.min(Math.max(b, from), this.length);
    const out = new Uint8Array(to - from);
    let o = 0;
    for (const v of viewsOf(this.pieces, from, to)) {
      out.set(v, o);
      o += v.length;
    }
    return out;
  }

  /** Bytes [a, b) as a string (`String.prototype.slice` with 0 <= a). */
  decode(a: number, b: number): string {
    const c = this.copy(a, b);
    return this.ops.decode(c, 0, c.length);
  }

  /** `decode`, under String's name: the final scan reads a Latin1Pieces or a string the same way. */
  slice(a: number, b: number): string {
    return this.decode(a, b);
  }
}
