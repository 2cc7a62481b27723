/**
 * Adversarial tests of the byte path through the whole entry pipeline (entry-pipeline.ts `redactLogEntry`, the
 * byte path against `latin1Bytes: false`): secrets of every kind placed exactly at the pipeline's 512 KiB part
 * boundaries (the part ends right before the secret's line, inside its first line, inside its last line), a PEM
 * block and a `kind: Secret` manifest cut at every line by a part boundary, after a trigger on the line before;
 * plain and gzip. Asserts identical staged bytes, sha256, counts, findings, notes, and no needle (raw, UTF-16LE,
 * base64 at any alignment) in either output. And a leak of both paths found here and fixed (a line over the 1 MiB
 * hold limit cut between a flag and its value).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { redactLogEntry, type LogEntryResult } from '../../../electron/services/bundle/entry-pipeline';
import { BUNDLE_STREAM_CHUNK_BYTES } from '../../../shared/domain/limits';
import { StreamRedactor } from '../../../shared/logic/redact';
import { makeCanaries, needleForms, prng } from './canaries';

const root = path.resolve(__dirname, '../../..');
const PART = BUNDLE_STREAM_CHUNK_BYTES;
let dir: string;
/** Parts the byte path took (StreamRedactor.pushLatin1 calls that did not hand the part back). */
const byBytes = { n: 0 };
const realPushLatin1 = StreamRedactor.prototype.pushLatin1;
StreamRedactor.prototype.pushLatin1 = function (this: StreamRedactor, input) {
  const r = realPushLatin1.call(this, input);
  if (r) byBytes.n++;
  return r;
};
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-bytepath-adv-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Out {
  r: LogEntryResult;
  out: Buffer;
}

/** `data` read as the chunks cut at `cuts`, through the pipeline; gzip entries are compressed first. */
async function runEntry(name: string, data: Buffer, cuts: number[], gzipped: boolean, latin1Bytes: boolean): Promise<Out> {
  const sub = path.join(dir, latin1Bytes ? 'bytes' : 'string');
  const outFile = path.join(sub, name);
  const src = gzipped ? zlib.gzipSync(data) : data;
  const chunks: Buffer[] = [];
  let prev = 0;
  // gzip: the reads are of the compressed bytes (the gunzip output is cut its own way); plain: exactly `cuts`.
  for (const at of gzipped ? [src.length] : [...cuts.filter((c) => c > 0 && c < src.length).sort((a, b) => a - b), src.length]) {
    if (at <= prev) continue;
    chunks.push(Buffer.from(src.subarray(prev, at)));
    prev = at;
  }
  const r = await redactLogEntry(
    { entryPath: `nodes/n1/logs/${name}`, source: { bytes: new Uint8Array(0) }, gzipped, outFile, deflateFile: null, level: 1 },
    { level: 'standard', pseudonyms: null },
    { input: Readable.from(chunks), latin1Bytes },
  );
  const raw = fs.readFileSync(outFile);
  return { r, out: gzipped ? zlib.gunzipSync(raw) : raw };
}

/** Differences between the two paths and needles left in either output. */
async function problemsOf(label: string, name: string, data: Buffer, cuts: number[], gzipped: boolean, needles: string[]): Promise<string[]> {
  const problems: string[] = [];
  const b = await runEntry(name, data, cuts, gzipped, true);
  const s = await runEntry(name, data, cuts, gzipped, false);
  if (!b.out.equals(s.out)) problems.push(`${label}: staged bytes differ`);
  if (b.r.sha256 !== s.r.sha256) problems.push(`${label}: sha256 differs`);
  if (JSON.stringify(b.r.counts) !== JSON.stringify(s.r.counts))
    problems.push(`${label}: counts ${JSON.stringify(b.r.counts)} != ${JSON.stringify(s.r.counts)}`);
  if (JSON.stringify(b.r.findings) !== JSON.stringify(s.r.findings)) problems.push(`${label}: findings differ`);
  if (JSON.stringify(b.r.notes) !== JSON.stringify(s.r.notes)) problems.push(`${label}: notes differ`);
  for (const n of needles) {
    for (const f of needleForms(n)) {
      if (s.out.includes(f.bytes)) problems.push(`${label}: string path leaks ${JSON.stringify(n.slice(0, 40))} (${f.form})`);
      if (b.out.includes(f.bytes)) problems.push(`${label}: byte path leaks ${JSON.stringify(n.slice(0, 40))} (${f.form})`);
    }
  }
  return problems;
}

function fixtureLines(): string[] {
  const out: string[] = [];
  for (const d of ['logs', 'hns', 'nodes']) {
    const folder = path.join(root, 'test/fixtures/samples', d);
    for (const f of fs.readdirSync(folder).sort()) out.push(...fs.readFileSync(path.join(folder, f)).toString('latin1').split(/\r?\n/));
  }
  return out.filter((l) => l.length > 0 && !l.includes('\u0000'));
}

/** Log lines until `size` bytes (whole lines, each ending with `eol`). */
function filler(rand: () => number, lines: string[], size: number, eol: string): string {
  const out: string[] = [];
  let n = 0;
  while (n < size) {
    const l = lines[Math.floor(rand() * lines.length)] as string;
    out.push(l);
    n += l.length + eol.length;
  }
  return out.join(eol) + eol;
}

describe('entry pipeline: byte path vs string path, secrets at the 512 KiB part boundaries', () => {
  const lines = fixtureLines();
  const VALUE = 'Xq7vTz9LmW2rBk';
  const canaries = makeCanaries(2026).filter((c) => [...c.text].every((ch) => ch.charCodeAt(0) < 256) && !c.text.includes('\u0000'));
  const extra = [
    { id: 'json-escaped', text: `msg="{\\"password\\":\\"${VALUE}1\\"}"`, needles: [`${VALUE}1`] },
    {
      id: 'b64-of-b64',
      text: `blob ${Buffer.from(Buffer.from(`--password=${VALUE}2 --user admin`).toString('base64')).toString('base64')}`,
      needles: [`${VALUE}2`],
    },
    { id: 'pct-token', text: `GET /x?next=%2Flogin%3Ftoken%3D${VALUE}3%26a%3Db HTTP/1.1`, needles: [`${VALUE}3`] },
    { id: 'latin1', text: `\u00e9\u00ff\u0080 password=${VALUE}4\u00e9 \u00a0token=${VALUE}5\u00ff`, needles: [`${VALUE}4`, `${VALUE}5`] },
  ];
  const all = [...canaries.map((c) => ({ id: c.id, text: c.text, needles: c.needles })), ...extra];

  it('secrets with a 512 KiB part boundary right before their line, inside their first line, inside their last line (plain LF and CRLF, and gzip)', async () => {
    const rand = prng(11);
    const problems: string[] = [];
    let placed = 0;
    for (const [k, eol] of ['\n', '\r\n'].entries()) {
      // Every other secret per line ending (each secret once in all; the unit test has every one at every line):
      // each sits at its own part boundary, parts of 512 KiB and a bit (the pipeline flushes once 512 KiB are pending).
      let text = '';
      const cuts: number[] = [];
      const needles: string[] = [];
      for (const [i, s] of all.entries()) {
        if (i % 2 !== k) continue;
        text += filler(rand, lines, cuts.length * (PART + 8 * 1024) + PART + 4096 - text.length, eol);
        const at = text.length;
        const secret = s.text.replace(/\r?\n/g, eol);
        text += secret + eol;
        const firstEol = secret.indexOf('\n');
        const lastStart = secret.lastIndexOf('\n') + 1;
        const cut = [
          at,
          at + Math.max(1, Math.floor((firstEol < 0 ? secret.length : firstEol) / 2)),
          at + lastStart + Math.floor((secret.length - lastStart) / 2),
        ][placed++ % 3] as number;
        cuts.push(cut);
        needles.push(...s.needles);
      }
      text += filler(rand, lines, 30 * 1024, eol);
      const data = Buffer.from(text, 'latin1');
      // One read per cut (each at least PART after the last: the pipeline flushes a part ending there).
      problems.push(...(await problemsOf(`${JSON.stringify(eol)} plain`, 'kubelet.log', data, cuts, false, needles)));
      // gzip (the gunzip output cut its own way): the first 3 MiB or so, CRLF only (run time).
      if (k === 1) {
        const head = data.subarray(0, data.indexOf(10, 3 * 1024 * 1024) + 1);
        problems.push(...(await problemsOf(`${JSON.stringify(eol)} gzip`, 'kubelet.log.1.gz', head, [], true, needles)));
      }
    }
    expect(placed).toBe(all.length);
    expect(problems).toEqual([]);
    // The byte path really ran on these parts (most hold nothing that sends them to the string path).
    expect(byBytes.n).toBeGreaterThan(placed / 2);
  }, 120_000);

  it('a PEM block and a `kind: Secret` manifest after a trigger line, a 512 KiB part boundary at every line of them', async () => {
    const rand = prng(12);
    const problems: string[] = [];
    for (const id of ['pem-openssh-key', 'secret-yaml', 'kubeconfig']) {
      const s = canaries.find((c) => c.id === id)!;
      const head = filler(rand, lines, PART + 5000, '\r\n') + 'I0612 auth.go:1] using the token below\r\n';
      const secret = s.text.replace(/\r?\n/g, '\r\n');
      const data = Buffer.from(`${head}${secret}\r\n${filler(rand, lines, 40 * 1024, '\r\n')}`, 'latin1');
      for (let at = head.length; at <= head.length + secret.length; at = data.indexOf(10, at) + 1) {
        // A first read of PART bytes (part 1), then one ending at the line start (part 2 ends there).
        problems.push(...(await problemsOf(`${id} cut at line +${at - head.length}`, 'kubelet.log', data, [at - PART, at], false, s.needles)));
        if (at >= head.length + secret.length) break;
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  // Both paths: the redactor holds a partial line back up to 1 MiB (holdMaxChars), then cuts it where it stands;
  // the context it kept for the next part used to be whole lines only (empty here), so `--password=` before the cut
  // and its value after it were never seen together. A line longer than the context now leaves its tail as context.
  it('fixed leak (both paths): a log line over 1 MiB cut by the hold limit between `--password=` and its value', async () => {
    const text = `I0612 start\n${'x'.repeat(1024 * 1024 + 100)} --password=${VALUE}Zz more ${'y'.repeat(300 * 1024)}\nI0612 end\n`;
    const data = Buffer.from(text, 'latin1');
    const valueAt = text.indexOf(`${VALUE}Zz`);
    const problems = await problemsOf('line over 1 MiB', 'kubelet.log', data, [PART, valueAt], false, [`${VALUE}Zz`]);
    expect(problems).toEqual([]);
  }, 60_000);
});
