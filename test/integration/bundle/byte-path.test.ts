/**
 * The byte path of streamed entries (entry-pipeline.ts: Latin-1 parts redacted as bytes, the final scan on the
 * lines around secretlint's anchors, the output as views of the input) against the string path of the same
 * pipeline (`latin1Bytes: false`): identical staged bytes, sha256, CRC-32, size, deflated copy, counts, findings
 * and notes, for plain and gzip logs of a few MB (many 512 KiB parts) built from the sample fixtures with every
 * canary spliced in at part boundaries, reads cut anywhere, secretlint-only tokens, a `.json` entry (whole-text
 * secretlint), PEM blocks across parts, and UTF-16LE entries (which keep the string path).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { redactLogEntry, type LogEntryResult } from '../../../electron/services/bundle/entry-pipeline';
import { SECRETLINT_SCANNER, finalScan, finalScanLatin1 } from '../../../electron/services/bundle/scan';
import { Latin1Pieces } from '../../../shared/logic/redact';
import { BUNDLE_STREAM_CHUNK_BYTES } from '../../../shared/domain/limits';
import { makeCanaries, needleForms, prng } from './canaries';

const root = path.resolve(__dirname, '../../..');
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-bytepath-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The sample fixtures' log lines, repeated to `bytes`, with canaries at the lines around each part boundary. */
function bigLog(bytes: number, seed: number, canaryTexts: string[], eol: string): string {
  const rand = prng(seed);
  const src: string[] = [];
  for (const d of ['logs', 'hns', 'cni-config', 'nodes']) {
    const folder = path.join(root, 'test/fixtures/samples', d);
    if (!fs.existsSync(folder)) continue;
    for (const f of fs.readdirSync(folder).sort()) src.push(...fs.readFileSync(path.join(folder, f)).toString('latin1').split(/\r?\n/));
  }
  const lines: string[] = [];
  let size = 0;
  let nextBoundary = BUNDLE_STREAM_CHUNK_BYTES - 2000;
  let c = 0;
  while (size < bytes) {
    let line = src[Math.floor(rand() * src.length)] as string;
    // Near each 512 KiB boundary, a canary every few lines (one lands right at it, whatever the exact cut).
    if (size > nextBoundary && size < nextBoundary + 4000) line = canaryTexts[c++ % canaryTexts.length] as string;
    else if (size >= nextBoundary + 4000) nextBoundary += BUNDLE_STREAM_CHUNK_BYTES;
    else if (rand() < 0.002) line = canaryTexts[c++ % canaryTexts.length] as string;
    lines.push(line);
    size += line.length + eol.length;
  }
  return lines.join(eol) + eol;
}

function reads(data: Buffer, seed: number): Readable {
  const rand = prng(seed);
  const parts: Buffer[] = [];
  for (let at = 0; at < data.length;) {
    const next = Math.min(data.length, at + 1 + Math.floor(rand() * 300 * 1024));
    parts.push(data.subarray(at, next));
    at = next;
  }
  return Readable.from(parts);
}

async function both(name: string, data: Buffer, gzipped: boolean, seed: number): Promise<{ bytes: LogEntryResult; string: LogEntryResult; out: Buffer }> {
  const run = async (latin1Bytes: boolean) => {
    const sub = path.join(dir, latin1Bytes ? 'bytes' : 'string');
    const outFile = path.join(sub, name);
    const deflateFile = gzipped ? null : path.join(sub, '.windeck-deflate', name);
    const r = await redactLogEntry(
      { entryPath: `nodes/n1/logs/${name}`, source: { bytes: new Uint8Array(0) }, gzipped, outFile, deflateFile, level: 1 },
      { level: 'standard', pseudonyms: null },
      { input: reads(gzipped ? zlib.gzipSync(data) : data, seed), latin1Bytes },
    );
    return { r, out: fs.readFileSync(outFile), deflated: deflateFile ? fs.readFileSync(deflateFile) : null };
  };
  const b = await run(true);
  const s = await run(false);
  expect(b.r.sha256, name).toBe(s.r.sha256);
  expect(b.r.crc32, name).toBe(s.r.crc32);
  expect(b.r.size, name).toBe(s.r.size);
  expect(b.r.sourceBytes, name).toBe(s.r.sourceBytes);
  expect(b.r.counts, name).toEqual(s.r.counts);
  expect(b.r.findings, name).toEqual(s.r.findings);
  expect(b.r.findingsTruncated, name).toBe(s.r.findingsTruncated);
  expect(b.r.notes, name).toEqual(s.r.notes);
  expect(b.out.equals(s.out), name).toBe(true);
  if (b.deflated && s.deflated) expect(zlib.inflateRawSync(b.deflated).equals(s.out), name).toBe(true);
  return { bytes: b.r, string: s.r, out: gzipped ? zlib.gunzipSync(b.out) : b.out };
}

describe('entry-pipeline byte path', () => {
  const canaries = makeCanaries(33).filter((c) => [...c.text].every((ch) => ch.charCodeAt(0) < 256));
  const slack = 'xoxb-123456789012-123456789012-AbCdEfGhIjKlMnOpQrStUvWx';
  const texts = [...canaries.map((c) => c.text), `slack ${slack}`, `npmrc //registry.npmjs.org/:_authToken=npm_${'aB3dE5fG7h'.repeat(3)}aB3dE5`];

  it('plain and gzip logs built from the fixtures, canaries at every part boundary: identical to the string path', async () => {
    for (const [i, eol] of ['\n', '\r\n'].entries()) {
      const data = Buffer.from(bigLog(3 * BUNDLE_STREAM_CHUNK_BYTES + 12345, 10 + i, texts, eol), 'latin1');
      for (const gzipped of [false, true]) {
        const name = `kubelet-${i}.log${gzipped ? '.1.gz' : ''}`;
        const { bytes, out } = await both(name, data, gzipped, 20 + i);
        // Redaction happened (and the secretlint-only token went through the final scan on the byte path).
        expect(Object.keys(bytes.counts).length, name).toBeGreaterThan(5);
        expect(
          Object.keys(bytes.counts).some((k) => k.startsWith('secretlint:')),
          name,
        ).toBe(true);
        const text = out.toString('latin1');
        expect(text.includes(slack), name).toBe(false);
        for (const c of canaries) {
          for (const needle of c.needles) {
            for (const f of needleForms(needle)) expect(out.includes(f.bytes), `${name}: ${c.id} (${f.form})`).toBe(false);
          }
        }
      }
    }
  }, 120_000);

  it('a .json entry (secretlint scans the whole text) and PEM blocks across parts: identical', async () => {
    const pem = canaries.find((c) => c.id === 'pem-rsa-key')!.text;
    const filler = 'I0612 10:00:00.000000 4242 kubelet.go:1] hcnCreateLoadBalancer pod=web-1\n'.repeat(9000);
    const data = Buffer.from(`${filler}${pem}\n${filler}${pem.replace(/\n/g, '\r\n')}\r\n${filler}`, 'latin1');
    await both('events.json', data, false, 5);
    const r = await both('pem.log', data, false, 6);
    expect(r.bytes.counts['private-key']).toBe(2);
  }, 60_000);

  it('finalScanLatin1 on pieces equals finalScan on the text (secretlint-only tokens at line starts, ends, across pieces)', async () => {
    const rand = prng(64);
    const tokens = [
      slack,
      `npm_${'aB3dE5fG7h'.repeat(3)}aB3dE5`,
      'glpat-AbCdEfGhIjKlMnOpQrSt',
      'AKIAQWERTYUIOPASDFGH',
      'https://user:Pa55w0rdXyz@db.example.net:5432/app',
      '-----BEGIN RSA PRIVATE KEY-----',
    ];
    let found = 0;
    const words = ['I0612 kubelet.go:1]', 'secret', 'account', 'sk-', 'plain', 'x', '\u00e9\u00ff', '[REDACTED:password]', '://'];
    for (let t = 0; t < 60; t++) {
      const lines: string[] = [];
      for (let k = 0; k < 30; k++) {
        const parts: string[] = [];
        for (let j = 0; j < 1 + Math.floor(rand() * 6); j++)
          parts.push(rand() < 0.15 ? (tokens[Math.floor(rand() * (t % 5 === 4 ? 6 : 5))] as string) : (words[Math.floor(rand() * words.length)] as string));
        lines.push(parts.join(rand() < 0.5 ? ' ' : ''));
      }
      const text = lines.join(t % 2 ? '\r\n' : '\n') + (t % 3 ? '\n' : '');
      const bytes = Buffer.from(text, 'latin1');
      const pieces: Uint8Array[] = [];
      for (let at = 0; at < bytes.length;) {
        const next = Math.min(bytes.length, at + 1 + Math.floor(rand() * 200));
        pieces.push(bytes.subarray(at, next));
        at = next;
      }
      const name = t % 7 === 6 ? 'x.json' : 'x.log';
      const anchors = SECRETLINT_SCANNER.findAll(text);
      const ref = await finalScan(text, name, { ownPatterns: false, prefilter: true, anchors });
      const got = await finalScanLatin1(new Latin1Pieces(pieces), name, anchors);
      expect(Buffer.concat(got.pieces).toString('latin1') === ref.text, `${t}`).toBe(true);
      expect(got.counts, `${t}`).toEqual(ref.counts);
      expect(got.notes, `${t}`).toEqual(ref.notes);
      if (ref.text === text) expect(got.pieces).toBe(pieces);
      found += Object.keys(ref.counts).length;
    }
    expect(found).toBeGreaterThan(30);
  });

  it('plain files read into reused buffers (several entries at once and one after another on this thread), PEM blocks held back across reads: identical to the string path', async () => {
    // The file source reads into a ring of reused buffers (ringReader); the reference reads the same bytes as a
    // stream (new buffers) through the string path. A PEM block without its end for over a read (and one that is
    // never ended, cut at the hold limit) keeps views of earlier read buffers in the redactor: those must not be
    // overwritten by the next reads.
    const pem = canaries.find((c) => c.id === 'pem-rsa-key')!.text;
    const body = pem.split('\n').slice(1, -1).join('\n') + '\n';
    const open = `${pem.split('\n')[0]}\n${body.repeat(Math.ceil((BUNDLE_STREAM_CHUNK_BYTES * 1.6) / body.length))}`;
    const datas = [
      Buffer.from(bigLog(4 * BUNDLE_STREAM_CHUNK_BYTES + 777, 40, texts, '\n'), 'latin1'),
      Buffer.from(
        bigLog(BUNDLE_STREAM_CHUNK_BYTES - 300, 41, texts, '\n') +
          open +
          pem.split('\n').at(-1) +
          '\n' +
          bigLog(2 * BUNDLE_STREAM_CHUNK_BYTES, 42, texts, '\n'),
        'latin1',
      ),
      Buffer.from(
        bigLog(2 * BUNDLE_STREAM_CHUNK_BYTES + 99, 43, texts, '\r\n') + open.repeat(2) + bigLog(BUNDLE_STREAM_CHUNK_BYTES, 44, texts, '\n'),
        'latin1',
      ),
      Buffer.from(bigLog(BUNDLE_STREAM_CHUNK_BYTES, 45, texts, '\n'), 'latin1'),
      Buffer.alloc(0),
      Buffer.from('no line break at the end password=hunter2hunter2', 'latin1'),
    ];
    const run = async (data: Buffer, i: number, fromFile: boolean) => {
      const sub = path.join(dir, `${fromFile ? 'file' : 'ref'}-${i}`);
      const src = path.join(dir, `src-${i}.log`);
      fs.writeFileSync(src, data);
      const outFile = path.join(sub, `f${i}.log`);
      const deflateFile = path.join(sub, '.windeck-deflate', `f${i}.log`);
      const r = await redactLogEntry(
        { entryPath: `nodes/n1/logs/f${i}.log`, source: { file: src }, gzipped: false, outFile, deflateFile, level: 1 },
        { level: 'standard', pseudonyms: null },
        // The reference's parts are cut where a read stream of BUNDLE_STREAM_CHUNK_BYTES cuts them (the final
        // scan's notes give offsets within a part).
        fromFile
          ? {}
          : {
              input: Readable.from(
                Array.from({ length: Math.ceil(data.length / BUNDLE_STREAM_CHUNK_BYTES) }, (_, k) =>
                  data.subarray(k * BUNDLE_STREAM_CHUNK_BYTES, (k + 1) * BUNDLE_STREAM_CHUNK_BYTES),
                ),
              ),
              latin1Bytes: false,
            },
      );
      const out = fs.readFileSync(outFile);
      expect(zlib.inflateRawSync(fs.readFileSync(deflateFile)).equals(out), `${i}`).toBe(true);
      expect(r.deflated?.size, `${i}`).toBe(fs.statSync(deflateFile).size);
      return { r, out };
    };
    const check = (a: { r: LogEntryResult; out: Buffer }, b: { r: LogEntryResult; out: Buffer }, i: number) => {
      expect(a.out.equals(b.out), `${i}`).toBe(true);
      expect({ ...a.r, deflated: null }, `${i}`).toEqual({ ...b.r, deflated: null });
    };
    const refs = [];
    for (const [i, d] of datas.entries()) refs.push(await run(d, i, false));
    expect(refs[1]!.r.counts['private-key']).toBeGreaterThan(0);
    // At once (each entry takes its own buffers), then one after another (the buffers are reused).
    const together = await Promise.all(datas.map((d, i) => run(d, i, true)));
    for (const [i, t] of together.entries()) check(t, refs[i]!, i);
    for (const [i, d] of datas.entries()) check(await run(d, i, true), refs[i]!, i);
  }, 120_000);

  it('files ending while other entries start on this thread (lanes of entries one after another): each keeps its buffers to its end', async () => {
    // Many entries starting and ending at different times, the buffers passing from one to the next. (An entry's
    // last, short part is redacted after its reader has ended, so its buffers go back only when the entry is done;
    // giving them back when the reader ends was not caught here: the next entry reads into them too late.)
    const datas = Array.from({ length: 24 }, (_, i) => Buffer.from(bigLog(BUNDLE_STREAM_CHUNK_BYTES + 20000 + i * 7919, 60 + i, texts, '\n'), 'latin1'));
    const srcs = datas.map((d, i) => {
      const src = path.join(dir, `lane-${i}.log`);
      fs.writeFileSync(src, d);
      return src;
    });
    const run = async (i: number, fromFile: boolean) => {
      const outFile = path.join(dir, fromFile ? 'file' : 'ref', `lane-${i}.log`);
      const data = datas[i]!;
      const slices = Array.from({ length: Math.ceil(data.length / BUNDLE_STREAM_CHUNK_BYTES) }, (_, k) =>
        data.subarray(k * BUNDLE_STREAM_CHUNK_BYTES, (k + 1) * BUNDLE_STREAM_CHUNK_BYTES),
      );
      const r = await redactLogEntry(
        { entryPath: `nodes/n1/logs/lane-${i}.log`, source: { file: srcs[i]! }, gzipped: false, outFile, deflateFile: null, level: 1 },
        { level: 'standard', pseudonyms: null },
        fromFile ? {} : { input: Readable.from(slices), latin1Bytes: false },
      );
      return { r, out: fs.readFileSync(outFile) };
    };
    const refs = [];
    for (let i = 0; i < datas.length; i++) refs.push(await run(i, false));
    const got: Array<{ r: LogEntryResult; out: Buffer }> = [];
    await Promise.all(
      [0, 1, 2, 3].map(async (lane) => {
        for (let i = lane; i < datas.length; i += 4) got[i] = await run(i, true);
      }),
    );
    for (let i = 0; i < datas.length; i++) {
      expect(got[i]!.out.equals(refs[i]!.out), `${i}`).toBe(true);
      expect(got[i]!.r, `${i}`).toEqual(refs[i]!.r);
    }
  }, 120_000);

  it('UTF-16LE entries keep the string path and give the same bytes', async () => {
    const text = bigLog(BUNDLE_STREAM_CHUNK_BYTES + 5000, 3, texts, '\r\n');
    const data = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const r = await both('utf16.log', data, false, 7);
    expect(r.out.subarray(0, 2).equals(Buffer.from([0xff, 0xfe]))).toBe(true);
    expect(Object.keys(r.bytes.counts).length).toBeGreaterThan(3);
  }, 60_000);
});
