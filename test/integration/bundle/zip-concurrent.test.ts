/**
 * The zip writer copies several entries at once (ZipWriter.startFile, ZIP_COPIES_AT_ONCE) and writeBundleZip
 * writes several parts at once (PARTS_AT_ONCE): the archives must hold exactly the bytes of entries written one
 * after another, in the planned order, and a copy that goes wrong must neither spill into its neighbour nor leave
 * a copy running.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BundleStage } from '../../../electron/services/bundle/stage';
import { PARTS_AT_ONCE, writeBundleZip } from '../../../electron/services/bundle/zip';
import { ZipWriter, type ZipEntryMeta } from '../../../electron/services/bundle/zip-writer';
import type { BundleManifest } from '../../../shared/contract/methods/bundles';
import { prng } from './canaries';
import { manifestFactory } from './manifest-factory';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-zipc-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const mtime = new Date(2026, 11, 1, 2, 40, 0);

function randomBytes(n: number, seed: number): Buffer {
  const r = prng(seed);
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(r() * 256);
  return b;
}

function logText(bytes: number, seed: number): string {
  const r = prng(seed);
  let s = '';
  while (s.length < bytes) s += `I1201 02:40:00.${Math.floor(r() * 1e6)} kubelet ${Math.floor(r() * 1e12).toString(36)} pod=${Math.floor(r() * 99)}\n`;
  return s;
}

/** The order of a bundle's zip entries (the manifest lists them sorted by path). */
function zipOrder(a: string, b: string): number {
  const rank = (p: string) => (p === 'findings.json' ? 0 : p === 'report.md' ? 1 : p.startsWith('cluster/') ? 2 : 3);
  return rank(a) - rank(b) || a.localeCompare(b);
}

function stored(name: string, data: Buffer): ZipEntryMeta {
  return { name, method: 0, crc32: zlib.crc32(data), compressedSize: data.length, uncompressedSize: data.length, mtime, mode: 0o100644 };
}

describe('ZipWriter, several copies at once', () => {
  it('lays entries out as one after another, whatever order their copies finish in', async () => {
    // Large first (finishes last), sizes around the 512 KiB copy buffer (header and data cross it), empty files.
    const sizes = [1_400_000, 0, 1, 524_288 - 60, 524_288, 524_288 + 1, 300, 70_000, 0, 2_000_000, 5, 1_048_576];
    const files = sizes.map((n, i) => {
      const file = path.join(dir, `src-${i}.bin`);
      fs.writeFileSync(file, randomBytes(n, i + 1));
      return file;
    });
    const small = Buffer.from(logText(20_000, 77));

    const concurrent = await ZipWriter.create(path.join(dir, 'concurrent.zip'));
    for (const [i, file] of files.entries()) {
      if (i === 4) await concurrent.addBuffer('between.txt', small, { mtime, mode: 0o100644, compress: true });
      await concurrent.drain(3);
      concurrent.startFile(stored(`e/${i}.bin`, fs.readFileSync(file)), file);
    }
    const size = await concurrent.finish();

    // Reference: every entry from memory, one after another.
    const sequential = await ZipWriter.create(path.join(dir, 'sequential.zip'));
    for (const [i, file] of files.entries()) {
      if (i === 4) await sequential.addBuffer('between.txt', small, { mtime, mode: 0o100644, compress: true });
      const data = fs.readFileSync(file);
      await sequential.addData(stored(`e/${i}.bin`, data), data);
    }
    await sequential.finish();

    const a = fs.readFileSync(path.join(dir, 'concurrent.zip'));
    expect(a.length).toBe(size);
    expect(a.equals(fs.readFileSync(path.join(dir, 'sequential.zip')))).toBe(true);
    // And what Info-ZIP's layout implies: each local header right after the previous entry's data.
    let at = 0;
    for (const [i, n] of sizes.entries()) {
      if (i === 4) {
        expect(a.readUInt32LE(at)).toBe(0x04034b50);
        at += 30 + a.readUInt16LE(at + 26) + a.readUInt16LE(at + 28) + a.readUInt32LE(at + 18);
      }
      expect(a.readUInt32LE(at)).toBe(0x04034b50);
      const nameLength = a.readUInt16LE(at + 26);
      expect(a.subarray(at + 30, at + 30 + nameLength).toString()).toBe(`e/${i}.bin`);
      const start = at + 30 + nameLength + a.readUInt16LE(at + 28);
      expect(a.subarray(start, start + n).equals(fs.readFileSync(files[i] as string))).toBe(true);
      at = start + n;
    }
    expect(a.readUInt32LE(at)).toBe(0x02014b50);
  });

  it('a file longer than declared fails the archive without writing past its place; a shorter one fails too', async () => {
    const long = path.join(dir, 'long.bin');
    fs.writeFileSync(long, Buffer.alloc(9000, 0x41));
    const next = path.join(dir, 'next.bin');
    const nextData = Buffer.alloc(3000, 0x42);
    fs.writeFileSync(next, nextData);
    const target = path.join(dir, 'long.zip');
    const zip = await ZipWriter.create(target);
    zip.startFile(stored('next.bin', nextData), next);
    // Declared 1000 bytes: the file has 9000. It is the last entry, so any byte it wrote past its place would
    // lengthen the file.
    zip.startFile({ ...stored('long.bin', Buffer.alloc(1000, 0x41)) }, long);
    await expect(zip.finish()).rejects.toThrow(/more than 1000 bytes in .*1000 declared/);
    await zip.abort();
    const written = fs.readFileSync(target);
    const longAt = 30 + 'next.bin'.length + 3000;
    expect(written.length).toBeLessThanOrEqual(longAt + 30 + 'long.bin'.length + 1000);
    expect(written.subarray(30 + 'next.bin'.length, longAt).equals(nextData)).toBe(true);

    const short = await ZipWriter.create(path.join(dir, 'short.zip'));
    short.startFile(stored('next.bin', Buffer.alloc(4000, 0x42)), next);
    await expect(short.drain(0)).rejects.toThrow(/3000 bytes in .*4000 declared/);
    await short.abort();
  });
});

describe('writeBundleZip, several parts at once', () => {
  it('writes each part with exactly the bytes of a sequential writer, in the planned order', async () => {
    expect(PARTS_AT_ONCE).toBeGreaterThan(1);
    const stage = await BundleStage.create(dir, { level: 'standard', pseudonyms: null, zipOnly: true });
    await stage.writeText('findings.json', '{"findings":[]}\n');
    await stage.writeText('report.md', '# report\n');
    await stage.writeText('cluster/nodes.json', logText(30_000, 3));
    const streamed: Array<Promise<unknown>> = [];
    for (let i = 0; i < 14; i++) {
      const text = Buffer.from(logText(40_000 + ((i * 37_000) % 200_000), 100 + i));
      const gz = i % 5 === 4;
      streamed.push(stage.writeStream(`nodes/n${i % 3}/logs/c-${i}.log${gz ? '.gz' : ''}`, { bytes: gz ? zlib.gzipSync(text) : text }, { gzipped: gz }));
    }
    await Promise.all(streamed);
    const output = path.join(dir, 'out', 'bundle.zip');
    const factory = manifestFactory(stage);
    const { paths, manifests } = await writeBundleZip(stage, output, factory, { maxPartBytes: 160_000, created: mtime });
    expect(paths.length).toBeGreaterThan(PARTS_AT_ONCE);

    const listed: string[] = [];
    for (const [i, p] of paths.entries()) {
      const manifest = manifests[i] as BundleManifest;
      expect(manifest.part).toEqual({ index: i + 1, count: paths.length });
      // The reference: this part's entries one after another, from the stage's files, without startFile.
      const ref = path.join(dir, `ref-${i}.zip`);
      const zip = await ZipWriter.create(ref);
      for (const f of [...manifest.files].sort((a, b) => zipOrder(a.path, b.path))) {
        const r = stage.records.get(f.path)!;
        listed.push(f.path);
        if (r.compressed) {
          const data = fs.readFileSync(stage.fileOf(r.path));
          await zip.addData({ ...stored(r.path, data), crc32: r.crc32! }, data);
        } else if (r.deflated) {
          const data = fs.readFileSync(r.deflated.file);
          await zip.addData({ name: r.path, method: 8, crc32: r.crc32!, compressedSize: data.length, uncompressedSize: r.size, mtime, mode: 0o100644 }, data);
        } else {
          await zip.addBuffer(r.path, fs.readFileSync(stage.fileOf(r.path)), { mtime, mode: 0o100644, compress: true });
        }
      }
      await zip.addBuffer('manifest.json', Buffer.from(JSON.stringify(manifest, null, 2) + '\n'), { mtime, mode: 0o100644, compress: true });
      await zip.finish();
      expect(fs.readFileSync(p).equals(fs.readFileSync(ref)), `part ${i + 1}`).toBe(true);
    }
    // Every entry once, parts in path order (findings.json, report.md, cluster/, then nodes/).
    expect(listed.slice(0, 3)).toEqual(['findings.json', 'report.md', 'cluster/nodes.json']);
    expect(new Set(listed).size).toBe(stage.records.size);
    expect(listed.length).toBe(stage.records.size);
    await stage.remove();
  });

  it('a copy that fails in one part fails the bundle once the other parts have stopped, and leaves no file', async () => {
    const stage = await BundleStage.create(dir, { level: 'standard', pseudonyms: null, zipOnly: true });
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        stage.writeStream(`nodes/n/logs/c-${String(i).padStart(2, '0')}.log`, { bytes: Buffer.from(logText(60_000, 300 + i)) }),
      ),
    );
    // A deflated copy that changed after staging, in the first part: the next part is being written meanwhile, and
    // the parts after it must not start.
    const victim = stage.records.get('nodes/n/logs/c-01.log')!;
    fs.appendFileSync(victim.deflated!.file, Buffer.alloc(10));
    const output = path.join(dir, 'out', 'bundle.zip');
    await expect(writeBundleZip(stage, output, manifestFactory(stage), { maxPartBytes: 64 * 1024, created: mtime })).rejects.toThrow(
      /more than \d+ bytes in .*declared/,
    );
    expect(fs.readdirSync(path.join(dir, 'out'))).toEqual([]);
    await stage.remove();
  });
});
