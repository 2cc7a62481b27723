import { describe, expect, it } from 'vitest';
import { StreamRedactor, redactBytes, redactText, scanForRedaction, type RedactOptions, type RedactResult } from '../../../../shared/logic/redact';
import { TRIGGER_WORDS } from '../../../../shared/logic/redact-patterns';
import { LiteralScanner } from '../../../../shared/logic/redact-scan';
import { PseudonymTable } from '../../../../shared/logic/redact-pseudonyms';
import { SECRETLINT_SCANNER } from '../../../../electron/services/bundle/scan';
import { makeCanaries, prng } from '../../../integration/bundle/canaries';
import { B64, hostileText, mixCase, ODD_ANY, pick } from './hostile-text';
import { REFERENCE_SCANNER, referenceFindAll, referenceScan } from './reference-scanners';

/**
 * The fast scanners (LiteralScanner.findAll's rolling three-character table, redact.ts' scanText: one word loop
 * and base64 runs found by probing every 18th character) against the first implementations they replaced (one
 * regex alternation over a lower-cased copy; a separate base64-run loop): identical matches, and identical
 * redaction output, counts and findings, on hostile random texts (mixed case, U+0130 / U+212A, NULs, UTF-16LE,
 * CRLF, base64 runs with padding and `-`/`_` neighbours, secrets split at chunk borders). The reference scans live in `reference-scanners.ts` (test code); the
 * redactor uses them when given `scanner: REFERENCE_SCANNER`.
 */

const std = { level: 'standard' as const };

/** A hostile random text made of word fragments, trigger words (split and whole), base64 runs and odd characters. */
function hostile(rand: () => number, words: readonly string[], pieces: number): string {
  return hostileText(rand, words, pieces, { odd: ODD_ANY });
}

function sameResult(fast: RedactResult, ref: RedactResult, label: string): void {
  expect(fast.text, label).toBe(ref.text);
  expect(fast.counts, label).toEqual(ref.counts);
  expect(fast.findings, label).toEqual(ref.findings);
  expect(fast.findingsTruncated, label).toBe(ref.findingsTruncated);
}

describe('LiteralScanner.findAll equals the regex reference', () => {
  const sets: Array<readonly string[]> = [
    TRIGGER_WORDS,
    ['abc', 'abcd', 'bcd', 'abca', 'cab', 'ABC', 'a-b', ' -p', '\t-p', '://'],
    ['key', 'keykey', 'eyk', 'yke'],
  ];
  sets.forEach((words, si) => {
    it(`word set ${si}: 3000 hostile random texts`, () => {
      const scanner = new LiteralScanner(words);
      const rand = prng(1000 + si);
      for (let t = 0; t < 3000; t++) {
        const text = hostile(rand, [...words, ...TRIGGER_WORDS], 1 + Math.floor(rand() * 60));
        expect(scanner.findAll(text), JSON.stringify(text)).toEqual(referenceFindAll(words, text));
      }
    });
  });

  it('agrees on edge cases: empty, short, at the very end, Kelvin sign and dotted I', () => {
    const scanner = new LiteralScanner(TRIGGER_WORDS);
    for (const text of ['', 'k', 'ke', 'key', 'xkey', '\u212aEY', 'P\u0130NG pass', 'keykeykey', 'tokentoken', ' -p -p', '-----BEGIN-----begin']) {
      expect(scanner.findAll(text), text).toEqual(referenceFindAll(TRIGGER_WORDS, text));
    }
  });
});

describe('redaction with the fast scanners equals the reference scanners', () => {
  const canaries = makeCanaries(77);

  it('the fast pass finds the same trigger words and base64 runs as the two reference scans', () => {
    const rand = prng(31337);
    for (let t = 0; t < 3000; t++) {
      let text = hostile(rand, TRIGGER_WORDS, 1 + Math.floor(rand() * 80));
      if (rand() < 0.3) text += canaries[Math.floor(rand() * canaries.length)]!.text + pick(rand, ['', '=', '==', '===', '-', '_', 'x']);
      expect(scanForRedaction(text), JSON.stringify(text)).toEqual(referenceScan(text));
    }
  });

  it('base64 runs found by probing every 18th character: every run length near the limits, at every offset', () => {
    // Mixed-case runs (kept when long enough) and one-case runs (never kept), 1 to 45 characters, after 0 to 40
    // characters of prefix, with each kind of neighbour (padding, '-', '_', separators, other runs, the text end).
    const rand = prng(1818);
    const run = (len: number, mixed: boolean) => {
      let out = '';
      for (let k = 0; k < len; k++) out += mixed ? B64[Math.floor(rand() * 64)] : 'abcdef0123456789'[Math.floor(rand() * 16)];
      if (mixed && len >= 2) out = 'aZ' + out.slice(2);
      return out;
    };
    const around = ['', ' ', '=', '==', '===', '-', '_', '\n', 'x y ', '.', '\u00e9'];
    let checked = 0;
    for (let len = 1; len <= 45; len++) {
      for (let offset = 0; offset <= 40; offset++) {
        const before = pick(rand, around);
        const prefix = 'ab '.repeat(14).slice(0, offset) + before;
        const text = prefix + run(len, rand() < 0.8) + pick(rand, around) + (rand() < 0.5 ? run(Math.floor(rand() * 30), true) + pick(rand, around) : '');
        expect(scanForRedaction(text).runs, JSON.stringify(text)).toEqual(referenceScan(text).runs);
        checked++;
      }
    }
    expect(checked).toBe(45 * 41);
    // Back-to-back runs split only by padding or one separator, and a long text of them.
    const dense = Array.from({ length: 400 }, () => run(1 + Math.floor(rand() * 40), rand() < 0.7) + pick(rand, ['=', '==', '-', ' ', '_', '.'])).join('');
    expect(scanForRedaction(dense).runs).toEqual(referenceScan(dense).runs);
    expect(scanForRedaction(dense).runs.length).toBeGreaterThan(20);
  });

  it('redactText: hostile small and large texts with canary secrets, identical text, counts and findings', () => {
    const rand = prng(4242);
    for (let t = 0; t < 400; t++) {
      const pieces: string[] = [];
      const n = 1 + Math.floor(rand() * 12);
      for (let k = 0; k < n; k++) {
        pieces.push(hostile(rand, TRIGGER_WORDS, Math.floor(rand() * 40)));
        if (rand() < 0.6) {
          const c = canaries[Math.floor(rand() * canaries.length)]!;
          pieces.push(rand() < 0.2 ? mixCase(rand, c.text) : c.text);
        }
        // Large texts (over 16 KB) take the trigger-window path.
        if (rand() < 0.15)
          pieces.push('I0612 10:00:00.123456 4242 kubelet.go:1] "SyncLoop" pod="kube-system/web-0" HcnCreateLoadBalancerFailedOnce\r\n'.repeat(200));
      }
      const text = pieces.join(pick(rand, ['\r\n', '\n', '', '=', '==', '===', '-', ' ']));
      sameResult(redactText(text, std), redactText(text, { ...std, scanner: REFERENCE_SCANNER }), `text ${t}`);
    }
  });

  it('redactBytes: UTF-16LE and Latin-1 files', () => {
    const rand = prng(99);
    for (let t = 0; t < 60; t++) {
      const c = canaries[Math.floor(rand() * canaries.length)]!;
      const text = hostile(rand, TRIGGER_WORDS, 30) + '\r\n' + c.text + '\r\n' + hostile(rand, TRIGGER_WORDS, 30);
      for (const bytes of [
        Buffer.from(text, 'utf16le'),
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
        Buffer.from(text, 'latin1'),
      ]) {
        const fast = redactBytes(bytes, std);
        const ref = redactBytes(bytes, { ...std, scanner: REFERENCE_SCANNER });
        sameResult(fast, ref, `bytes ${t}`);
        expect(Buffer.from(fast.bytes).equals(Buffer.from(ref.bytes))).toBe(true);
      }
    }
  });

  it('StreamRedactor: secrets split at random chunk borders give the same stream', () => {
    const rand = prng(7);
    for (let t = 0; t < 40; t++) {
      const parts: string[] = [];
      for (let k = 0; k < 30; k++) {
        parts.push(hostile(rand, TRIGGER_WORDS, 20));
        parts.push(canaries[Math.floor(rand() * canaries.length)]!.text);
        if (rand() < 0.3) parts.push('W0612 proxier.go:1081] Policy creation failed: hcnCreateLoadBalancer failed\r\n'.repeat(300));
      }
      // Some texts have long lines (no break for thousands of characters): with a small hold the redactor then
      // cuts inside a line, and its context ends mid-line.
      const text = parts.join(t % 4 === 3 ? ' ' : '\r\n');
      const cuts: number[] = [];
      for (let at = 0; at < text.length; at += 1 + Math.floor(rand() * 9000)) cuts.push(at);
      const run = (options: RedactOptions = std) => {
        const s = new StreamRedactor(options, t % 2 === 1 ? 3000 : 256 * 1024, t % 3 === 0 ? 4096 : 16 * 1024);
        let out = '';
        for (let i = 0; i < cuts.length; i++) out += s.push(text.slice(cuts[i], cuts[i + 1] ?? text.length));
        out += s.end();
        return { text: out, counts: s.counts, findings: s.findings, findingsTruncated: s.findingsTruncated };
      };
      sameResult(run(), run({ ...std, scanner: REFERENCE_SCANNER }), `stream ${t}`);
    }
  });

  it('StreamRedactor: a trigger word cut in two by a forced cut inside a long line is still found', () => {
    const run = (options: RedactOptions = std) => {
      // Over 16 KB, so the windows around trigger words decide where the patterns run.
      const s = new StreamRedactor(options, 20000, 64 * 1024);
      let out = s.push('start\n');
      // No line break for over 20,000 characters: the redactor cuts inside the line, at `--pa`.
      out += s.push('w '.repeat(10000) + '--pa');
      out += s.push('ssword=Xy7Qz9Lm3 end\n');
      out += s.end();
      return out;
    };
    const out = run();
    expect(out).toBe(run({ ...std, scanner: REFERENCE_SCANNER }));
    expect(out).not.toContain('Xy7Qz9Lm3');
  });

  it('StreamRedactor companion matches (the final scan anchors found in the same pass) equal a fresh search of each emitted part', () => {
    const rand = prng(2026);
    const anchorWords = [...SECRETLINT_SCANNER.words, 'secret', 'account', '://'];
    for (let t = 0; t < 60; t++) {
      const parts: string[] = [];
      for (let k = 0; k < 25; k++) {
        parts.push(hostile(rand, rand() < 0.5 ? anchorWords : TRIGGER_WORDS, 25));
        if (rand() < 0.7) parts.push(canaries[Math.floor(rand() * canaries.length)]!.text);
        if (rand() < 0.2) parts.push('I0612 kubelet.go:1] account sk-xyz AKIA x-oauth-basic line\r\n'.repeat(150));
        // Two short secrets on one line (replacements longer than the values), anchors on the next short lines.
        if (rand() < 0.3) parts.push('x --password=a1 --token=b2 y\nsk-1 acct\naccount\n://\n');
      }
      const text = parts.join(pick(rand, ['\r\n', '\n', '', ' ']));
      const strict = t % 10 === 9;
      const options = strict ? { level: 'strict' as const, pseudonyms: new PseudonymTable(prng(5)) } : std;
      // Small holds force cuts inside a line (the part then does not start a line).
      const s = new StreamRedactor(options, t % 3 === 0 ? 2000 : 256 * 1024, 4096, SECRETLINT_SCANNER);
      let emitted = 0;
      for (let at = 0; at <= text.length; at += 1 + Math.floor(rand() * 7000)) {
        const out = s.push(text.slice(at, at + 1 + Math.floor(rand() * 7000)));
        expect(s.companionMatches, `push ${t}/${at}`).toEqual(referenceFindAll(SECRETLINT_SCANNER.words, out));
        emitted += out.length;
      }
      const last = s.end();
      expect(s.companionMatches, `end ${t}`).toEqual(referenceFindAll(SECRETLINT_SCANNER.words, last));
      expect(emitted + last.length).toBeGreaterThan(0);
    }
  });
});
