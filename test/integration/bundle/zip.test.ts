/**
 * The bundle writer on its own: staging (redaction before writing, encodings kept, gzip logs redacted and
 * recompressed), parts under the size limit each complete with their own manifest, gzip entries stored, atomic
 * output (no temp files after success, failure or cancel), folder output, path safety.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import yauzl from 'yauzl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bundlePath, safeSegment } from '../../../electron/services/bundle/manifest';
import { BundleStage } from '../../../electron/services/bundle/stage';
import { partNames, writeBundleDir, writeBundleZip } from '../../../electron/services/bundle/zip';
import type { BundleManifest } from '../../../shared/contract/methods/bundles';
import { prng } from './canaries';
import { manifestFactory } from './manifest-factory';

interface ZipEntryData {
  data: Buffer;
  method: number;
}

async function readZip(file: string): Promise<Map<string, ZipEntryData>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.open(file, { lazyEntries: true }, (e, z) => (e || !z ? reject(e) : resolve(z))));
  const out = new Map<string, ZipEntryData>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err || !stream) return reject(err);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          out.set(entry.fileName, { data: Buffer.concat(chunks), method: entry.compressionMethod });
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

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-zip-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function noise(bytes: number, seed: number): string {
  const r = prng(seed);
  let s = '';
  while (s.length < bytes) s += `I0612 10:00:00.${Math.floor(r() * 1e6)} ${Math.floor(r() * 1e9).toString(36)} ${Math.floor(r() * 1e12).toString(36)}\n`;
  return s;
}

describe('BundleStage', () => {
  it('redacts before writing, keeps UTF-16LE, and recompresses gzip logs after redaction', async () => {
    const stage = await BundleStage.create(dir, { level: 'standard', pseudonyms: null });
    const secret = `ghp_${'Ab1'.repeat(12)}`;
    await stage.writeText('nodes/n/logs/a.log', `line\ntoken ${secret}\n`);
    await stage.writeBytes('nodes/n/files/u16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`pw --password=Hunter2Secret!\r\n`, 'utf16le')]));
    const gz = zlib.gzipSync(Buffer.from(`old line\nAuthorization: Bearer ${'x9Y'.repeat(20)}\n`));
    await stage.writeStream('nodes/n/logs/b.log.gz', Readable.from([gz.subarray(0, 10), gz.subarray(10)]), { gzipped: true });
    const onDisk = (p: string) => fs.readFileSync(stage.fileOf(p));
    expect(onDisk('nodes/n/logs/a.log').toString()).not.toContain(secret);
    const u16 = onDisk('nodes/n/files/u16.txt');
    expect(u16.subarray(0, 2).equals(Buffer.from([0xff, 0xfe]))).toBe(true);
    expect(u16.subarray(2).toString('utf16le')).toContain('--password=[REDACTED:password]');
    const unzipped = zlib.gunzipSync(onDisk('nodes/n/logs/b.log.gz')).toString();
    expect(unzipped).toContain('old line');
    expect(unzipped).not.toContain('x9Y'.repeat(20));
    expect(stage.records.get('nodes/n/logs/b.log.gz')!.compressed).toBe(true);
    for (const r of stage.records.values()) expect(crypto.createHash('sha256').update(onDisk(r.path)).digest('hex')).toBe(r.sha256);
    expect(stage.counts['github-token']).toBe(1);
    expect(stage.counts.password).toBe(1);
    expect(stage.counts['bearer-token']).toBe(1);
    await stage.remove();
    expect(fs.existsSync(stage.dir)).toBe(false);
  });

  it('refuses absolute and .. paths', () => {
    expect(() => bundlePath('/etc/passwd')).toThrow();
    expect(() => bundlePath('nodes/../x')).toThrow();
    expect(() => bundlePath('C:/x')).toThrow();
    expect(() => bundlePath('nodes\\x')).toThrow();
    expect(bundlePath('nodes/win-1/logs/kubelet.log')).toBe('nodes/win-1/logs/kubelet.log');
    expect(safeSegment('..')).toBe('unnamed');
    expect(safeSegment('C:\\k\\kubelet.log')).toBe('C_k_kubelet.log');
  });
});

describe('writeBundleZip', () => {
  it('splits into complete parts under the limit, stores gzip entries, and leaves no temp files', async () => {
    const stage = await BundleStage.create(dir, { level: 'standard', pseudonyms: null });
    await stage.writeText('findings.json', '{"findings":[]}\n');
    await stage.writeText('report.md', '# r\n');
    for (let i = 0; i < 6; i++) await stage.writeText(`nodes/n/logs/l${i}.log`, noise(150_000, i));
    await stage.writeStream('nodes/n/logs/old.log.gz', Readable.from([zlib.gzipSync(Buffer.from(noise(100_000, 99)))]), { gzipped: true });
    const output = path.join(dir, 'out', 'bundle.zip');
    const limit = 120_000;
    const { paths, manifests } = await writeBundleZip(stage, output, manifestFactory(stage), { maxPartBytes: limit });
    expect(paths.length).toBeGreaterThan(1);
    expect(paths).toEqual(partNames(output, paths.length));
    const seen = new Set<string>();
    for (const [i, p] of paths.entries()) {
      expect(fs.statSync(p).size).toBeLessThanOrEqual(Math.floor(limit * 1.1));
      const entries = await readZip(p);
      const m = JSON.parse(entries.get('manifest.json')!.data.toString()) as BundleManifest;
      expect(m).toEqual(manifests[i]);
      expect(m.part).toEqual({ index: i + 1, count: paths.length });
      for (const f of m.files) {
        const e = entries.get(f.path)!;
        expect(crypto.createHash('sha256').update(e.data).digest('hex')).toBe(f.sha256);
        if (f.path.endsWith('.gz')) expect(e.method).toBe(0);
        else expect(e.method).toBe(8);
        seen.add(f.path);
      }
      expect(entries.size).toBe(m.files.length + 1);
    }
    expect(seen).toEqual(new Set(stage.records.keys()));
    // The first part starts with the top-level files.
    expect(manifests[0]!.files.map((f) => f.path)).toEqual(expect.arrayContaining(['findings.json', 'report.md']));
    expect(fs.readdirSync(path.join(dir, 'out')).filter((n) => n.startsWith('.'))).toEqual([]);
    await stage.remove();
  });

  it('a cancelled write removes its temp files and writes nothing', async () => {
    const stage = await BundleStage.create(dir, { level: 'standard', pseudonyms: null });
    for (let i = 0; i < 4; i++) await stage.writeText(`nodes/n/logs/l${i}.log`, noise(400_000, i));
    const output = path.join(dir, 'out2', 'bundle.zip');
    const controller = new AbortController();
    const writing = writeBundleZip(stage, output, manifestFactory(stage), { signal: controller.signal });
    setImmediate(() => controller.abort());
    await expect(writing).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(fs.existsSync(path.join(dir, 'out2')) ? fs.readdirSync(path.join(dir, 'out2')) : []).toEqual([]);
    await stage.remove();
  });

  it('writes a folder by rename, and refuses a non-empty one', async () => {
    const stage = await BundleStage.create(dir, { level: 'standard', pseudonyms: null });
    await stage.writeText('report.md', 'hello\n');
    const target = path.join(dir, 'folder');
    const manifest = manifestFactory(stage)([...stage.records.values()].map((r) => ({ path: r.path, sha256: r.sha256, size: r.size })));
    await writeBundleDir(stage, target, manifest);
    expect(fs.readdirSync(target).sort()).toEqual(['manifest.json', 'report.md']);
    expect(fs.existsSync(stage.dir)).toBe(false);
    const again = await BundleStage.create(dir, { level: 'standard', pseudonyms: null });
    await again.writeText('report.md', 'x\n');
    await expect(writeBundleDir(again, target, manifest)).rejects.toMatchObject({ code: 'CONFLICT' });
    await again.remove();
  });

  it('a zip-only stage keeps no plain copy of streamed logs, and its zip holds the same bytes as a normal stage', async () => {
    const secret = `ghp_${'Qx7'.repeat(12)}`;
    const log = noise(300_000, 9) + `I0612 creds.go:9] using token ${secret}\n` + noise(50_000, 10);
    const gz = zlib.gzipSync(Buffer.from(log));
    const zips: Array<Map<string, ZipEntryData>> = [];
    for (const zipOnly of [false, true]) {
      const stage = await BundleStage.create(path.join(dir, zipOnly ? 'z' : 'n'), { level: 'standard', pseudonyms: null, zipOnly });
      await stage.writeStream('nodes/n/logs/a.log', { bytes: Buffer.from(log) });
      await stage.writeStream('nodes/n/logs/b.log.gz', { bytes: gz }, { gzipped: true });
      await stage.writeText('report.md', 'report\n');
      // The plain log has no staged file in a zip-only stage (only its deflated copy); gzip logs and small files do.
      expect(fs.existsSync(stage.fileOf('nodes/n/logs/a.log'))).toBe(!zipOnly);
      expect(stage.records.get('nodes/n/logs/a.log')?.staged).toBe(zipOnly ? false : undefined);
      expect(fs.existsSync(stage.fileOf('nodes/n/logs/b.log.gz'))).toBe(true);
      const out = path.join(dir, `${zipOnly ? 'z' : 'n'}.zip`);
      const { paths } = await writeBundleZip(stage, out, manifestFactory(stage));
      expect(paths).toEqual([out]);
      if (zipOnly) await expect(writeBundleDir(stage, path.join(dir, 'folder'), manifestFactory(stage)([]))).rejects.toMatchObject({ code: 'INTERNAL' });
      await stage.remove();
      zips.push(await readZip(out));
    }
    const [normal, zipOnly] = zips as [Map<string, ZipEntryData>, Map<string, ZipEntryData>];
    expect([...zipOnly.keys()].sort()).toEqual([...normal.keys()].sort());
    for (const [name, entry] of normal) if (name !== 'manifest.json') expect(zipOnly.get(name)?.data.equals(entry.data), name).toBe(true);
    const plain = zipOnly.get('nodes/n/logs/a.log')!;
    expect(plain.method).toBe(8);
    expect(plain.data.toString()).not.toContain(secret);
    expect(plain.data.toString()).toContain('[REDACTED:github-token]');
    // The manifest's hashes are those of the bytes in the zip.
    const manifest = JSON.parse(zipOnly.get('manifest.json')!.data.toString()) as BundleManifest;
    const entry = manifest.files.find((f) => f.path === 'nodes/n/logs/a.log')!;
    expect(entry.sha256).toBe(crypto.createHash('sha256').update(plain.data).digest('hex'));
  });
});
