/**
 * Streamed entries through the redaction worker pool (worker-pool.ts, redact-worker.ts, entry-pipeline.ts) and
 * the zip writer (zip-writer.ts): a secret split across the chunk boundary, UTF-16LE with BOM, gzip logs
 * redacted and stored, every canary inside a large log, the same bytes as the in-thread path, secretlint-only
 * shapes behind the line prefilter, CRCs and sizes a reader accepts, and cancellation leaving nothing behind.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import yauzl from 'yauzl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { secretlintLines } from '../../../electron/services/bundle/scan';
import { BundleStage, DEFLATE_DIR } from '../../../electron/services/bundle/stage';
import { PoolFailure, RedactPool, redactPool } from '../../../electron/services/bundle/worker-pool';
import { writeBundleZip } from '../../../electron/services/bundle/zip';
import { BUNDLE_STREAM_CHUNK_BYTES } from '../../../shared/domain/limits';
import { makeCanaries, needleForms, prng } from './canaries';
import { manifestFactory } from './manifest-factory';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-par-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function noise(bytes: number, seed: number, eol = '\n'): string {
  const r = prng(seed);
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const line = `I0612 10:00:00.${Math.floor(r() * 1e6)} 4242 kubelet.go:1] hcnCreateLoadBalancer ${Math.floor(r() * 1e9).toString(36)} pod=web-${Math.floor(r() * 50)}${eol}`;
    parts.push(line);
    size += line.length;
  }
  return parts.join('');
}

interface Entry {
  data: Buffer;
  method: number;
  crc32: number;
}

async function readZip(file: string): Promise<Map<string, Entry>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.open(file, { lazyEntries: true }, (e, z) => (e || !z ? reject(e) : resolve(z))));
  const out = new Map<string, Entry>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err || !stream) return reject(err);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('error', reject);
        stream.on('end', () => {
          out.set(entry.fileName, { data: Buffer.concat(chunks), method: entry.compressionMethod, crc32: entry.crc32 });
          zip.readEntry();
        });
      });
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  zip.close();
  return out;
}

const token = `ghp_${'Zq7Xw2Lk9Pm4Rt6Yv8Bn1Cd3Fg5Hj0Kl2Mn4'}`;

describe('streamed entries through the worker pool', () => {
  it('has a worker pool in this environment (so the tests below exercise the worker path)', () => {
    expect(redactPool()).not.toBeNull();
  });

  it('redacts a secret split across the chunk boundary, and a UTF-16LE file keeps its BOM', async () => {
    // The token starts 10 bytes before the first 1 MiB flush: the chunk ends in the middle of it.
    const head = noise(BUNDLE_STREAM_CHUNK_BYTES - 200, 1);
    const cut = BUNDLE_STREAM_CHUNK_BYTES - head.length - 10;
    const text = head + 'x'.repeat(Math.max(0, cut - 40)) + ` using token ${token} now\n` + noise(300_000, 2);
    const plain = path.join(dir, 'split.log');
    fs.writeFileSync(plain, text, 'latin1');
    const at = text.indexOf(token);
    expect(at).toBeLessThan(BUNDLE_STREAM_CHUNK_BYTES);
    expect(at + token.length).toBeGreaterThan(BUNDLE_STREAM_CHUNK_BYTES);
    const u16 = path.join(dir, 'u16.log');
    fs.writeFileSync(
      u16,
      Buffer.concat([
        Buffer.from([0xff, 0xfe]),
        Buffer.from(noise(200_000, 3, '\r\n') + `net.exe --password=Hunter2Secret! started\r\n` + noise(50_000, 4, '\r\n'), 'utf16le'),
      ]),
    );

    const stage = await BundleStage.create(dir, { level: 'standard', pseudonyms: null });
    const [a, b] = await Promise.all([stage.writeStream('nodes/n/logs/split.log', { file: plain }), stage.writeStream('nodes/n/logs/u16.log', { file: u16 })]);
    const outA = fs.readFileSync(stage.fileOf('nodes/n/logs/split.log'));
    expect(outA.includes(Buffer.from(token))).toBe(false);
    expect(outA.includes(Buffer.from('[REDACTED:github-token]'))).toBe(true);
    expect(a.counts['github-token']).toBe(1);
    expect(a.sourceBytes).toBe(text.length);
    const outB = fs.readFileSync(stage.fileOf('nodes/n/logs/u16.log'));
    expect(outB.subarray(0, 2).equals(Buffer.from([0xff, 0xfe]))).toBe(true);
    expect(outB.subarray(2).toString('utf16le')).toContain('--password=[REDACTED:password] started');
    expect(outB.subarray(2).toString('utf16le')).not.toContain('Hunter2Secret!');
    expect(b.counts.password).toBe(1);
    // sha256, CRC-32 and the deflated copy all describe the staged bytes.
    for (const [r, out] of [
      [a, outA],
      [b, outB],
    ] as const) {
      expect(r.sha256).toBe(crypto.createHash('sha256').update(out).digest('hex'));
      expect(r.size).toBe(out.length);
      expect(r.crc32).toBe(zlib.crc32(out));
      expect(zlib.inflateRawSync(fs.readFileSync(r.deflated!.file)).equals(out)).toBe(true);
    }
    await stage.remove();
  });

  it('writes the same bytes and counts as the in-thread path, and finds every canary in a large log', async () => {
    const canaries = makeCanaries(11);
    const r = prng(5);
    const lines: string[] = [];
    for (const c of canaries) {
      lines.push(noise(Math.floor(r() * 40_000) + 1000, lines.length));
      lines.push(c.text + '\n');
    }
    lines.push(noise(600_000, 99));
    const text = lines.join('');
    const file = path.join(dir, 'canaries.log');
    fs.writeFileSync(file, text, 'latin1');
    const stage = await BundleStage.create(dir, { level: 'standard', pseudonyms: null });
    const viaPool = await stage.writeStream('nodes/n/logs/pool.log', { file });
    const inThread = await stage.writeStream('nodes/n/logs/thread.log', Readable.from([Buffer.from(text, 'latin1')]));
    expect(viaPool.sha256).toBe(inThread.sha256);
    expect(viaPool.counts).toEqual(inThread.counts);
    const out = fs.readFileSync(stage.fileOf('nodes/n/logs/pool.log'));
    const left: string[] = [];
    for (const c of canaries) for (const n of c.needles) for (const f of needleForms(n)) if (out.includes(f.bytes)) left.push(`${c.id} (${f.form})`);
    expect(left).toEqual([]);
    await stage.remove();
  });

  it('redacts what only secretlint knows in a streamed log (the line prefilter lets it through)', async () => {
    const slack = 'xoxb-123456789012-123456789012-' + 'AbCdEfGhIjKlMnOpQrStUvWx';
    const file = path.join(dir, 'slack.log');
    fs.writeFileSync(file, noise(700_000, 7) + `notify via ${slack} done\n` + noise(700_000, 8), 'latin1');
    const stage = await BundleStage.create(dir, { level: 'standard', pseudonyms: null });
    const rec = await stage.writeStream('nodes/n/logs/slack.log', { file });
    expect(fs.readFileSync(stage.fileOf('nodes/n/logs/slack.log')).includes(Buffer.from(slack))).toBe(false);
    expect(Object.keys(rec.counts).some((k) => k.startsWith('secretlint:'))).toBe(true);
    await stage.remove();
    // The prefilter: only anchored lines; private keys and JSON files are scanned whole.
    expect(secretlintLines('a\nb xoxb-1 c\nd\n', '.log')).toEqual([[2, 12]]);
    expect(secretlintLines('plain\nlines\n', '.log')).toEqual([]);
    expect(secretlintLines('x\n-----BEGIN RSA PRIVATE KEY-----\n', '.log')).toBeNull();
    expect(secretlintLines('{}', '.json')).toBeNull();
  });

  it('the prefilter anchors cover a sample of every rule of the preset version they were written for', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join('node_modules', '@secretlint', 'secretlint-rule-preset-recommend', 'package.json'), 'utf8')) as {
      version: string;
    };
    // A new preset version may bring new rules: re-check SECRETLINT_LINE_ANCHORS in scan.ts, then update this.
    expect(pkg.version).toBe('12.0.0');
    const samples = [
      'AKIAIOSFODNN7EXAMPLE',
      'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'AWS_ACCOUNT_ID=123456789012',
      'https://user:hunter2@example.com/x',
      'mongodb://u:p@db:27017/x',
      'https://abc:x-oauth-basic@github.com/o/r',
      '//registry.npmjs.org/:_authToken=abc',
      'npm_' + 'a'.repeat(36),
      'xoxb-1-2-abc',
      'https://hooks.slack.com/services/T1/B2/c3',
      'sk-proj-' + 'a'.repeat(74),
      'sk-ant-api03-' + 'a'.repeat(93),
      'gsk_' + 'a'.repeat(52),
      'hf_' + 'a'.repeat(34),
      'lin_api_' + 'a'.repeat(40),
      'ntn_' + '1'.repeat(11) + 'a'.repeat(35),
      'SG.abc.def',
      'shpat_' + 'a'.repeat(32),
      'ghp_' + 'a'.repeat(36),
      'github_pat_' + 'a'.repeat(82),
      'glpat-' + 'a'.repeat(20),
      'glc_' + 'a'.repeat(32),
      'glsa_' + 'a'.repeat(32) + '_deadbeef',
      'ops_ey' + 'a'.repeat(100) + 'fQ',
      'hvs.' + 'a'.repeat(90),
      'vcp_' + 'a'.repeat(24),
      'dapi' + 'a'.repeat(32),
      'dckr_pat_' + 'a'.repeat(27),
      'figd_' + 'a'.repeat(40),
    ];
    for (const sample of samples)
      expect(secretlintLines(`plain line\nI0612 x.go:1] ${sample}\nplain\n`, '.log'), sample).toEqual([[11, 11 + 14 + sample.length]]);
  });

  it('stores a gzip log redacted (method 0) and deflates plain logs; CRCs and sizes check out', async () => {
    const gzFile = path.join(dir, 'old.log.1.gz');
    fs.writeFileSync(
      gzFile,
      zlib.gzipSync(Buffer.from(noise(400_000, 9) + `Authorization: Bearer ${'x9Y'.repeat(20)}\n` + noise(100_000, 10), 'latin1'), { level: 1 }),
    );
    const plainFile = path.join(dir, 'kubelet.log');
    fs.writeFileSync(plainFile, noise(900_000, 12) + `token ${token}\n`, 'latin1');
    const stage = await BundleStage.create(dir, { level: 'standard', pseudonyms: null });
    await stage.writeText('report.md', '# r\n');
    await Promise.all([
      stage.writeStream('nodes/n/logs/old.log.1.gz', { file: gzFile }, { gzipped: true }),
      stage.writeStream('nodes/n/logs/kubelet.log', { file: plainFile }),
    ]);
    const output = path.join(dir, 'out', 'bundle.zip');
    const { paths, manifests } = await writeBundleZip(stage, output, manifestFactory(stage));
    expect(paths).toEqual([output]);
    const entries = await readZip(output);
    const gz = entries.get('nodes/n/logs/old.log.1.gz')!;
    expect(gz.method).toBe(0);
    const inner = zlib.gunzipSync(gz.data).toString('latin1');
    expect(inner).toContain('Authorization: Bearer [REDACTED:bearer-token]');
    expect(inner).not.toContain('x9Y'.repeat(20));
    const log = entries.get('nodes/n/logs/kubelet.log')!;
    expect(log.method).toBe(8);
    expect(log.data.includes(Buffer.from(token))).toBe(false);
    for (const f of manifests[0]!.files) {
      const e = entries.get(f.path)!;
      expect(e.crc32).toBe(zlib.crc32(e.data));
      expect(crypto.createHash('sha256').update(e.data).digest('hex')).toBe(f.sha256);
      expect(e.data.length).toBe(f.size);
    }
    expect(JSON.parse(entries.get('manifest.json')!.data.toString())).toEqual(manifests[0]);
    // The deflated copies are staging internals: never in a bundle.
    expect([...entries.keys()].some((k) => k.includes(DEFLATE_DIR))).toBe(false);
    await stage.remove();
    expect(fs.existsSync(stage.dir)).toBe(false);
  });

  it('a worker that dies fails its job as a PoolFailure (the stage then redacts in-thread)', async () => {
    const script = path.join(dir, 'dies.mjs');
    fs.writeFileSync(script, 'process.exit(3);\n');
    const pool = new RedactPool(script, 1);
    const task = {
      entryPath: 'x.log',
      source: { bytes: new Uint8Array([65, 10]) },
      gzipped: false,
      outFile: path.join(dir, 'x.log'),
      deflateFile: null,
      level: 1,
    };
    await expect(pool.run(task)).rejects.toBeInstanceOf(PoolFailure);
    await pool.close();
  });

  it('a cancelled entry leaves no staged file, and a cancelled zip leaves no partial zip', async () => {
    const big = path.join(dir, 'big.log');
    fs.writeFileSync(big, noise(6 * 1024 * 1024, 13), 'latin1');
    const stage = await BundleStage.create(dir, { level: 'standard', pseudonyms: null });
    const controller = new AbortController();
    const writing = stage.writeStream('nodes/n/logs/big.log', { file: big }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    await expect(writing).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(fs.existsSync(stage.fileOf('nodes/n/logs/big.log'))).toBe(false);
    expect(stage.has('nodes/n/logs/big.log')).toBe(false);
    const deflateDir = path.join(stage.dir, DEFLATE_DIR);
    const leftovers = fs.existsSync(deflateDir) ? fs.readdirSync(deflateDir, { recursive: true }).filter((n) => String(n).endsWith('.log')) : [];
    expect(leftovers).toEqual([]);

    // Now a complete stage, and the zip cancelled while it copies entries.
    for (let i = 0; i < 4; i++) {
      const f = path.join(dir, `l${i}.log`);
      fs.writeFileSync(f, noise(2 * 1024 * 1024, 20 + i), 'latin1');
      await stage.writeStream(`nodes/n/logs/l${i}.log`, { file: f });
    }
    const output = path.join(dir, 'out3', 'bundle.zip');
    const zipAbort = new AbortController();
    const zipping = writeBundleZip(stage, output, manifestFactory(stage), { signal: zipAbort.signal });
    setImmediate(() => zipAbort.abort());
    await expect(zipping).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(fs.existsSync(path.join(dir, 'out3')) ? fs.readdirSync(path.join(dir, 'out3')) : []).toEqual([]);
    await stage.remove();
  });
});
