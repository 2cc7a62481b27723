import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JS_LATIN1_OPS, Latin1Pieces, StreamRedactor, type Latin1Ops, type RedactOptions } from '../../../../shared/logic/redact';
import { TRIGGER_WORDS } from '../../../../shared/logic/redact-patterns';
import { SECRETLINT_SCANNER } from '../../../../electron/services/bundle/scan';
import { makeCanaries, prng } from '../../../integration/bundle/canaries';
import { hostileText, pick } from './hostile-text';
import { BUFFER_LATIN1_OPS } from '../../../../electron/services/bundle/entry-pipeline';

/**
 * The byte path of the stream redactor (`StreamRedactor.pushLatin1`, streamed Latin-1 logs) against the string
 * path (`push` with the bytes and the joined decode, as entry-pipeline.ts used before): the same output bytes,
 * counts, findings and companion matches after every part, on the sample fixtures with canary secrets spliced in
 * at part boundaries, hostile Latin-1 texts with every byte value, PEM blocks and YAML shapes split across parts,
 * triggers at the very start and end of a part, `%XX` escapes, and the inputs the byte path must hand back (NUL,
 * `kind: Secret`, the last-applied annotation, an open `-----BEGIN`). Both with the plain JavaScript byte
 * operations and with Buffer's (what the pipeline gives).
 */

const root = path.resolve(__dirname, '../../../..');
const std: RedactOptions = { level: 'standard' };
const latin1 = (text: string) => Buffer.from(text, 'latin1');
const isLatin1 = (text: string) => [...text].every((ch) => ch.charCodeAt(0) < 256);

/** entry-pipeline.ts' Buffer operations (native searches). */
const BUFFER_OPS: Latin1Ops = BUFFER_LATIN1_OPS;

interface Streamed {
  text: string;
  counts: Record<string, number>;
  findings: unknown[];
  findingsTruncated: boolean;
  /** Output and companion matches after each part. */
  steps: Array<{ out: string; companion: Array<[number, number]> }>;
  /** Parts the byte path took. */
  byBytes: number;
}

/**
 * A stream as entry-pipeline.ts feeds it: `reads` arrive, parts of at least `partBytes` are cut after their last
 * line break (the rest carried), the last part whole. `bytes`: try the byte path first (the parts given as up to
 * three pieces), else the string path only.
 */
function stream(text: string, reads: number[], partBytes: number, bytes: false | Latin1Ops, options: RedactOptions = std, context = 16 * 1024): Streamed {
  const s = new StreamRedactor(options, 256 * 1024, context, SECRETLINT_SCANNER, bytes || JS_LATIN1_OPS);
  const all = latin1(text);
  const steps: Streamed['steps'] = [];
  let byBytes = 0;
  let out = '';
  let carry = Buffer.alloc(0);
  let pending: Buffer[] = [];
  let size = 0;
  let split = 0;
  const flush = (last: boolean) => {
    const buf = Buffer.concat([carry, ...pending]);
    pending = [];
    size = 0;
    const cut = last ? buf.length : buf.lastIndexOf(10) + 1;
    carry = last || cut === 0 ? (last ? Buffer.alloc(0) : buf) : Buffer.from(buf.subarray(cut));
    if (cut === 0) return;
    const part = buf.subarray(0, cut);
    let piece: string | null = null;
    if (bytes) {
      // One, two or three pieces (the pipeline hands the read buffers as they came).
      const at1 = Math.floor(part.length / 3) + (split++ % 7);
      const pieces =
        split % 3 === 0
          ? [part]
          : split % 3 === 1
            ? [part.subarray(0, at1), part.subarray(at1)]
            : [part.subarray(0, 1), part.subarray(1, at1), part.subarray(at1)];
      const r = s.pushLatin1(pieces);
      if (r) {
        byBytes++;
        piece = Buffer.concat(r).toString('latin1');
      }
    }
    if (piece === null) {
      const ctx = s.latin1Context;
      if (ctx && ctx.length > 0) {
        const joined = Buffer.concat([ctx, part]).toString('latin1');
        piece = s.push(joined.slice(ctx.length), part, joined);
      } else piece = s.push(part.toString('latin1'), part);
    }
    out += piece;
    steps.push({ out: piece, companion: s.companionMatches });
    if (last) {
      const tail = s.end();
      out += tail;
      steps.push({ out: tail, companion: s.companionMatches });
    }
  };
  let prev = 0;
  for (const at of [...reads, all.length]) {
    if (at <= prev) continue;
    pending.push(all.subarray(prev, at));
    size += at - prev;
    prev = at;
    if (size >= partBytes) flush(false);
  }
  flush(true);
  return { text: out, counts: s.counts, findings: s.findings, findingsTruncated: s.findingsTruncated, steps, byBytes };
}

function expectSame(label: string, text: string, reads: number[], partBytes: number, options: RedactOptions = std, context?: number): Streamed {
  const ref = stream(text, reads, partBytes, false, options, context);
  let fast: Streamed | null = null;
  for (const ops of [JS_LATIN1_OPS, BUFFER_OPS]) {
    const got = stream(text, reads, partBytes, ops, options, context);
    expect(got.text === ref.text, label).toBe(true);
    expect(got.counts, label).toEqual(ref.counts);
    expect(got.findings, label).toEqual(ref.findings);
    expect(got.findingsTruncated, label).toBe(ref.findingsTruncated);
    expect(got.steps, label).toEqual(ref.steps);
    fast = got;
  }
  return fast as Streamed;
}

function randomReads(rand: () => number, length: number, max: number): number[] {
  const reads: number[] = [];
  for (let at = 0; at < length; at += 1 + Math.floor(rand() * max)) reads.push(at);
  return reads;
}

function fixtureFiles(): string[] {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else files.push(path.join(d, e.name));
    }
  };
  walk(path.join(root, 'test/fixtures/samples'));
  return files.sort();
}

describe('StreamRedactor.pushLatin1 (the byte path) equals push (the string path)', () => {
  it('the sample fixtures, with canary secrets spliced in at part boundaries, give the same bytes, counts, findings and companion matches', () => {
    const files = fixtureFiles();
    expect(files.length).toBeGreaterThan(10);
    const rand = prng(4242);
    const canaries = makeCanaries(17).filter((c) => isLatin1(c.text));
    let byBytes = 0;
    for (const file of files) {
      const raw = fs.readFileSync(file).toString('latin1');
      // Repeated to a few parts' worth (the byte path starts at 16 KiB), with canaries at random line starts.
      const lines: string[] = [];
      while (lines.join('\n').length < 120 * 1024) lines.push(...raw.split('\n'));
      for (let k = 0; k < 12; k++) lines.splice(Math.floor(rand() * lines.length), 0, canaries[Math.floor(rand() * canaries.length)]!.text);
      const text = lines.join('\n');
      // Reads cut anywhere; and reads cut right before and right after canary lines (a trigger at the very start
      // or end of a part: parts end at the last line break of the reads).
      const atCanaries: number[] = [];
      for (const c of canaries) {
        for (let at = text.indexOf(c.text); at >= 0; at = text.indexOf(c.text, at + 1)) atCanaries.push(at, at + c.text.length + 1);
      }
      for (const reads of [randomReads(rand, text.length, 9000), [...new Set(atCanaries)].sort((a, b) => a - b)]) {
        const got = expectSame(path.basename(file), text, reads, 1, std);
        byBytes += got.byBytes;
      }
      expectSame(`${path.basename(file)} 20 KiB parts`, text, randomReads(rand, text.length, 4000), 20 * 1024);
    }
    // The byte path really ran (most parts have nothing that sends them back to the string path).
    expect(byBytes).toBeGreaterThan(files.length * 4);
  });

  it('hostile Latin-1 texts with every byte value (but NUL, which takes the string path), `%XX` escapes and canaries', () => {
    const rand = prng(777);
    const canaries = makeCanaries(21).filter((c) => isLatin1(c.text));
    const anchorWords = [...SECRETLINT_SCANNER.words, 'secret', 'account', '://', 'Secret'];
    const odd = [
      '\u00e9',
      '\u00ff',
      '\u0080',
      '\u00a0',
      '\u00c4',
      '=',
      '==',
      '-',
      '_',
      '\r\n',
      '\n',
      ' ',
      '\t',
      ':',
      '/',
      '"',
      "'",
      '%',
      '%4',
      '%G1',
      'kind',
      'kind: ',
      'Secretly',
    ];
    let byBytes = 0;
    for (let t = 0; t < 24; t++) {
      const parts: string[] = [];
      for (let k = 0; k < 40; k++) {
        // Every byte value 1-255 (NUL is its own case below), fragments of trigger and anchor words, base64 runs.
        parts.push(
          hostileText(rand, rand() < 0.5 ? anchorWords : TRIGGER_WORDS, 40, { odd, anyByte: true })
            .split('\u0000')
            .join('\u0001'),
        );
        if (rand() < 0.5) parts.push(canaries[Math.floor(rand() * canaries.length)]!.text.split('\u0000').join('.'));
        if (rand() < 0.3) parts.push('W0612 proxier.go:1081] Policy creation failed: hcnCreateLoadBalancer failed \u00e9\u00ff\r\n'.repeat(100));
      }
      const text = parts.join(pick(rand, ['\r\n', '\n']));
      const got = expectSame(`hostile ${t}`, text, randomReads(rand, text.length, 30000), 1 + Math.floor(rand() * 40000), std, t % 2 ? 4096 : 16 * 1024);
      byBytes += got.byBytes;
    }
    expect(byBytes).toBeGreaterThan(24);
  });

  it('every byte value 0-255 on every line, and the shapes that need the string path, give the same output', () => {
    const all = Array.from({ length: 256 }, (_, i) => String.fromCharCode(i)).join('');
    const filler = 'I0612 10:00:00.000000 4242 kubelet.go:1] nothing to see here, just a log line of ordinary length\n'.repeat(400);
    const cases: Record<string, string> = {
      'every byte': `${filler}${all.replace(/\n/g, '')}\n${filler}--password=Hunter2Secret!\n${filler}`,
      'percent escape': `${filler}GET /login?user=a&password=p%40ssW0rd%21x HTTP/1.1\n%41%42 x%2F%2fy "%zz" %4\n${filler}GET /x?q=token%3DAbCdEf0123456789xyz%26a%3Db HTTP/1.1\n${filler}`,
      'kind Secret yaml': `${filler}apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\ndata:\n  password: cGFzc3dvcmQxMjM0NTY=\n${filler}`,
      'kind Secret json': `${filler}{"kind" : "Secret", "data": {"token": "c2VjcmV0LXRva2VuLXZhbHVl"}}\n${filler}`,
      'not a Secret kind': `${filler}kind: Secrets\nkindness: Secret-ish\nkind:\u00a0'Secret_x'\n${filler}`,
      annotation: `${filler}  kubectl.kubernetes.io/last-applied-configuration: '{"a":"b"}'\n${filler}`,
      'NUL and UTF-16 runs': `${filler}${'p\u0000a\u0000s\u0000s\u0000w\u0000o\u0000r\u0000d\u0000=\u0000H\u0000u\u0000n\u0000t\u0000e\u0000r\u00002\u0000!\u0000'}\n${filler}`,
      'open PEM across parts': `${filler}-----BEGIN RSA PRIVATE KEY-----\n${'MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n'.repeat(300)}-----END RSA PRIVATE KEY-----\n${filler}`,
      'PEM begin look-alikes': `${filler}----BEGIN RSA PRIVATE KEY-----\nxBEGIN x\n---- -BEGIN y\nBEGIN z\n${filler}-----BEGINNING\n${filler}`,
      'PEM begin at a part start': `${filler}\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n${filler}`,
      'PuTTY key': `${filler}PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nPrivate-Lines: 1\nAAAAB3NzaC1yc2EAAAABJQAAAQEAhHdYF2wGjD0bM\nPrivate-MAC: 0123456789abcdef\n${filler}`,
      'multi-line env': `${filler}        - name: DB_PASSWORD\n          value: Sup3rS3cretValue\n${filler}`,
      'trigger at the first and last byte': `token=AbCdEf0123456789xyz\n${filler}${filler}x --password=LastLine99\n`,
      'secretlint only': `${filler}slack xoxb-123456789012-123456789012-AbCdEfGhIjKlMnOpQrStUvWx\n${filler}npmrc //registry.npmjs.org/:_authToken=npm_${'aB3dE5fG7h'.repeat(3)}aB3dE5\n${filler}`,
      'base64 secrets': `${filler}x ${latin1('--password=Hunter2Secret!').toString('base64')} y\n${filler}z ${Buffer.from('--password=Hunter2Secret!', 'utf16le').toString('base64')}\n${filler}`,
      'long line over the hold': `${filler}${'A'.repeat(300 * 1024)} token=abc\n${filler}`,
    };
    for (const [name, text] of Object.entries(cases)) {
      // Parts cut at every line end near the interesting line, and at a few sizes.
      for (const partBytes of [1, 8 * 1024, 30 * 1024, 100 * 1024]) {
        const rand = prng(partBytes);
        expectSame(`${name} / ${partBytes}`, text, randomReads(rand, text.length, 12000), partBytes);
      }
    }
    // The cases that must take the string path do (else their output could differ), the others mostly do not.
    const only = (text: string) =>
      stream(
        text,
        randomReads(() => 0.5, text.length, 8 * 1024),
        8 * 1024,
        JS_LATIN1_OPS,
      );
    for (const name of ['kind Secret yaml', 'kind Secret json', 'annotation', 'NUL and UTF-16 runs']) {
      const text = cases[name] as string;
      const r = only(text);
      // Parts far from the shape (beyond the context) may still take the byte path; the one holding it may not.
      expect(r.byBytes, name).toBeLessThan(r.steps.length);
    }
    expect(only(cases['not a Secret kind'] as string).byBytes).toBeGreaterThan(3);
    // Percent-encoded runs are decoded on the byte path (URLs with escapes are common in logs).
    const pct = only(cases['percent escape'] as string);
    // (all but the first parts, under 16 KiB with their context, and the final `end`)
    expect(pct.byBytes).toBeGreaterThanOrEqual(pct.steps.length - 3);
    expect(pct.text).not.toContain('p%40ssW0rd');
  });

  it('a NUL byte in a part, or in the context the next part reuses, sends that part to the string path (found by the scan kernel or a context search): same output', () => {
    // Parts of exactly one filler each; the NUL goes into the second at offset k (the first and last bytes, the
    // kernel's 16-byte block edges from the part's start and end, the middle, the context kept for the third part).
    const filler = 'I0612 10:00:00.000000 4242 kubelet.go:1] token=AbCdEf0123456789xyz nothing to see here\n'.repeat(400);
    const len = filler.length;
    const contextChars = 16 * 1024;
    const ctxStart = filler.indexOf('\n', len - contextChars) + 1;
    const offsets = [0, 1, 15, 16, 17, 31, 32, 33, len >> 1, ctxStart - 2, ctxStart, ctxStart + 1, len - 18, len - 17, len - 16, len - 15, len - 2];
    let inContext = 0;
    for (const k of offsets) {
      const second = filler.slice(0, k) + '\u0000' + filler.slice(k + 1);
      const text = filler + second + filler;
      const r = expectSame(`NUL at ${k}`, text, [len, 2 * len], len);
      // The first part by bytes; the second never; the third only when the NUL is not in its context.
      const nulInContext = k >= ctxStart;
      if (nulInContext) inContext++;
      expect(r.byBytes, `NUL at ${k}`).toBe(nulInContext ? 1 : 2);
    }
    expect(inContext).toBeGreaterThan(5);
    // Without a NUL all three parts go by bytes.
    expect(expectSame('no NUL', filler.repeat(3), [len, 2 * len], len).byBytes).toBe(3);
  });

  it("`kind: Secret` or the last-applied annotation in a part, or in the context the next part reuses, send that part to the string path (found in the scan kernel's pass): same output", () => {
    const filler = 'I0612 10:00:00.000000 4242 kubelet.go:1] token=AbCdEf0123456789xyz nothing to see here\n'.repeat(400);
    const fillerLines = filler.split('\n').slice(0, -1);
    const annotation = 'kubectl.kubernetes.io/last-applied-configuration';
    const gate = (text: string) => /kind["']?\s*:\s*["']?Secret\b/.test(text) || text.includes(annotation);
    const shapes = [
      'kind: Secret',
      '{"kind" : "Secret", "data": {"token": "c2VjcmV0LXRva2VuLXZhbHVl"}}',
      "  kind:\u00a0'Secret",
      'kind:\n  Secret',
      `  ${annotation}: '{"a":"b"}'`,
      `x${annotation}y`,
      // Decoys: no gate.
      'kind: Secrets',
      'kind: SECRET and Secret_x',
      'Secret kind:',
      'last-applied-configuration and kubectl.kubernetes.io/last-applied',
      `kubectl.kubernetes.io/${'last-applied-configuration'.toUpperCase()}`,
    ];
    let gated = 0;
    let inContext = 0;
    for (const shape of shapes) {
      // The shape as line `at` of the second part (its first, second, block-edge lines, the middle, around the
      // start of the context kept for the third part, the last), and across the second and third parts.
      for (const at of [0, 1, 3, 200, 214, 215, 216, 217, 399, -1]) {
        const lines = [...fillerLines];
        let second: string;
        let third = filler;
        if (at >= 0) {
          lines[at] = shape;
          second = lines.join('\n') + '\n';
        } else {
          const nl = shape.indexOf('\n');
          if (nl < 0) continue;
          lines[399] = shape.slice(0, nl);
          second = lines.join('\n') + '\n';
          third = shape.slice(nl + 1) + '\n' + filler;
        }
        const text = filler + second + third;
        const label = `${JSON.stringify(shape)} at line ${at}`;
        // Parts: exactly the three (a read ends each).
        const r = expectSame(label, text, [filler.length, filler.length + second.length], 1);
        const context = second.slice(second.indexOf('\n', second.length - 16 * 1024) + 1);
        const secondGated = gate(filler.slice(filler.indexOf('\n', filler.length - 16 * 1024) + 1) + second);
        const thirdGated = gate(context + third);
        if (secondGated) gated++;
        if (thirdGated) inContext++;
        expect(r.byBytes, label).toBe(1 + (secondGated ? 0 : 1) + (thirdGated ? 0 : 1));
      }
    }
    expect(gated).toBeGreaterThan(40);
    expect(inContext).toBeGreaterThan(8);
  });

  it('strict redaction and a scanner keep the string path (pseudonyms, reference scans)', () => {
    const text = 'I0612 node 10.1.2.3 started\n'.repeat(2000);
    const s = new StreamRedactor({ level: 'strict', pseudonyms: null }, undefined, undefined, SECRETLINT_SCANNER);
    expect(s.pushLatin1(latin1(text))).toBeNull();
    const plain = new StreamRedactor(std, undefined, undefined, SECRETLINT_SCANNER);
    expect(plain.pushLatin1(latin1(text))).not.toBeNull();
    // A part that does not end a line is not taken either.
    expect(new StreamRedactor(std).pushLatin1(latin1(text + 'x'))).toBeNull();
  });

  it('Latin1Pieces reads line breaks and ranges across pieces as String does', () => {
    const rand = prng(31);
    for (let t = 0; t < 200; t++) {
      const text = Array.from({ length: 1 + Math.floor(rand() * 30) }, () => pick(rand, ['a', 'bc', '\n', '\n\n', 'xyz\n', '\u00ff', ''])).join('');
      const bytes = latin1(text);
      const pieces: Uint8Array[] = [];
      for (let at = 0; at < bytes.length;) {
        const next = at + Math.floor(rand() * 5);
        pieces.push(bytes.subarray(at, Math.min(next, bytes.length)));
        at = Math.max(next, at);
        if (next === at && rand() < 0.5) at++;
      }
      const p = new Latin1Pieces(pieces.length ? pieces : [bytes], t % 2 ? BUFFER_OPS : JS_LATIN1_OPS);
      if (p.length !== text.length) continue;
      for (let pos = -2; pos <= text.length + 2; pos++) {
        expect(p.lastLineBreak(pos), `${JSON.stringify(text)} ${pos}`).toBe(text.lastIndexOf('\n', pos));
        expect(p.nextLineBreak(pos), `${JSON.stringify(text)} ${pos}`).toBe(text.indexOf('\n', pos));
        expect(p.decode(Math.max(0, pos), pos + 3)).toBe(text.slice(Math.max(0, pos), pos + 3));
      }
    }
  });
});
