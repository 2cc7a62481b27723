import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { WindeckError } from '../../../shared/contract/errors';
import type { BundleFile, BundleManifest } from '../../../shared/contract/methods/bundles';
import { BUNDLE_PART_MAX_BYTES } from '../../../shared/domain/limits';
import { DEFLATE_DIR, type BundleStage, type StageRecord } from './stage';
import { ZipWriter } from './zip-writer';

/**
 * Bundle output (DESIGN.md section 6): a zip written as a stream from the staging area (zip-writer.ts, one file
 * at a time, so memory stays bounded; streamed logs are copied from the deflated copy their worker made), atomically (temp file in the target folder + rename), split into
 * `name.partN.zip` when it would pass GitHub's ~25 MB attachment limit, each part complete with its own
 * manifest.json; already-gzipped entries are stored, not compressed again. Or a folder, renamed into place.
 */

/** GitHub's attachment limit; a part over this is re-planned smaller. */
export const PART_HARD_LIMIT_BYTES = 25 * 1024 * 1024;

export type ManifestFactory = (files: BundleFile[], part?: { index: number; count: number }) => BundleManifest;

export interface ZipWriteResult {
  paths: string[];
  manifests: BundleManifest[];
}

/** Compressed size guess for an entry: stored size for `.gz`, else deflate of a 256 KB sample. */
async function estimateCompressed(stage: BundleStage, r: StageRecord): Promise<number> {
  const overhead = 120 + r.path.length * 2;
  if (r.compressed || r.size < 4096) return r.size + overhead;
  if (r.deflated) return r.deflated.size + overhead;
  const fh = await fsp.open(stage.fileOf(r.path), 'r');
  try {
    const sample = Buffer.alloc(Math.min(r.size, 256 * 1024));
    const { bytesRead } = await fh.read(sample, 0, sample.length, 0);
    const deflated = zlib.deflateRawSync(sample.subarray(0, bytesRead), { level: 6 }).length;
    // Samples under-estimate mixed files a little; keep a margin.
    return Math.ceil((r.size * deflated * 1.1) / Math.max(1, bytesRead)) + overhead;
  } finally {
    await fh.close();
  }
}

function entryOrder(a: string, b: string): number {
  const rank = (p: string) => (p === 'findings.json' ? 0 : p === 'report.md' ? 1 : p.startsWith('cluster/') ? 2 : 3);
  return rank(a) - rank(b) || a.localeCompare(b);
}

/** Greedy packing in path order: parts stay readable (a node's files together) and under the budget. */
export function planParts(entries: Array<{ path: string; estimate: number }>, budget: number): string[][] {
  const parts: string[][] = [];
  let current: string[] = [];
  let used = 0;
  for (const e of [...entries].sort((a, b) => entryOrder(a.path, b.path))) {
    if (current.length > 0 && used + e.estimate > budget) {
      parts.push(current);
      current = [];
      used = 0;
    }
    current.push(e.path);
    used += e.estimate;
  }
  if (current.length > 0 || parts.length === 0) parts.push(current);
  return parts;
}

/** CRC-32 of a file, streamed. */
async function fileCrc32(file: string): Promise<number> {
  let crc = 0;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 })) crc = zlib.crc32(chunk as Buffer, crc);
  return crc >>> 0;
}

/** Staged entries up to this size are deflated in memory; larger ones (rare: streamed entries carry their own
 * deflated copy) through a temp file. */
const IN_MEMORY_DEFLATE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * Entries copied into a part at once (ZipWriter.startFile: each has its place in the archive before its copy
 * starts, so the bytes are those of one copy after another). Streamed logs average ~170 KB deflated: one by one,
 * their open, reads, writes and close were each a thread-pool round trip that waited for the one before.
 */
export const ZIP_COPIES_AT_ONCE = 4;

/** Parts written at the same time (see writeBundleZip). */
export const PARTS_AT_ONCE = 2;

async function addRecord(zip: ZipWriter, stage: BundleStage, r: StageRecord, target: string, mtime: Date, signal?: AbortSignal): Promise<void> {
  const file = stage.fileOf(r.path);
  const mode = 0o100644;
  if (r.compressed) {
    const crc32 = r.crc32 ?? (await fileCrc32(file));
    await zip.drain(ZIP_COPIES_AT_ONCE - 1);
    zip.startFile({ name: r.path, method: 0, crc32, compressedSize: r.size, uncompressedSize: r.size, mtime, mode }, file, signal);
    return;
  }
  if (r.staged === false && !(r.deflated && r.crc32 !== undefined && fs.existsSync(r.deflated.file)))
    throw new WindeckError('INTERNAL', `The deflated copy of ${r.path} is missing (a zip-only staging area has no other).`);
  if (r.deflated && r.crc32 !== undefined && fs.existsSync(r.deflated.file)) {
    await zip.drain(ZIP_COPIES_AT_ONCE - 1);
    zip.startFile({ name: r.path, method: 8, crc32: r.crc32, compressedSize: r.deflated.size, uncompressedSize: r.size, mtime, mode }, r.deflated.file, signal);
    return;
  }
  if (r.size <= IN_MEMORY_DEFLATE_MAX_BYTES) {
    await zip.addBuffer(r.path, await fsp.readFile(file), { mtime, mode, compress: true });
    return;
  }
  const temp = `${target}.entry-${crypto.randomBytes(4).toString('hex')}`;
  try {
    let crc = 0;
    let size = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        crc = zlib.crc32(chunk, crc);
        size += chunk.length;
        cb(null, chunk);
      },
    });
    await pipeline(
      fs.createReadStream(file, { highWaterMark: 1024 * 1024 }),
      tap,
      zlib.createDeflateRaw({ level: 6 }),
      fs.createWriteStream(temp),
      signal ? { signal } : {},
    );
    const compressedSize = (await fsp.stat(temp)).size;
    await zip.addFile({ name: r.path, method: 8, crc32: crc >>> 0, compressedSize, uncompressedSize: size, mtime, mode }, temp, signal);
  } finally {
    await fsp.rm(temp, { force: true });
  }
}

async function writeOneZip(stage: BundleStage, paths: string[], manifest: BundleManifest, target: string, mtime: Date, signal?: AbortSignal): Promise<number> {
  const zip = await ZipWriter.create(target);
  try {
    for (const p of paths) {
      signal?.throwIfAborted();
      const r = stage.records.get(p);
      if (!r) continue;
      await addRecord(zip, stage, r, target, mtime, signal);
    }
    await zip.addBuffer('manifest.json', Buffer.from(JSON.stringify(manifest, null, 2) + '\n', 'utf8'), { mtime, mode: 0o100644, compress: true });
    return await zip.finish();
  } catch (error) {
    await zip.abort();
    if (signal?.aborted) throw new WindeckError('CANCELLED', 'Writing the bundle was cancelled.', undefined, { cause: error });
    throw error;
  }
}

function tempName(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.tmp-${crypto.randomBytes(4).toString('hex')}`);
}

/** Names of the parts for `output` (`x.zip` -> `x.part1.zip` ...), or `[output]` for one part. */
export function partNames(output: string, count: number): string[] {
  if (count === 1) return [output];
  const base = output.replace(/\.zip$/i, '');
  return Array.from({ length: count }, (_, i) => `${base}.part${i + 1}.zip`);
}

/**
 * Write the staged bundle as one zip or several complete parts. All parts are written as temp files next to
 * the target first and renamed only when every part is complete; on any failure the temp files are removed.
 */
export async function writeBundleZip(
  stage: BundleStage,
  output: string,
  makeManifest: ManifestFactory,
  options: { maxPartBytes?: number; created?: Date; signal?: AbortSignal } = {},
): Promise<ZipWriteResult> {
  const budgetStart = options.maxPartBytes ?? BUNDLE_PART_MAX_BYTES;
  const hardLimit = Math.max(budgetStart, Math.min(PART_HARD_LIMIT_BYTES, Math.floor(budgetStart * 1.1)));
  const mtime = options.created ?? new Date();
  const records = [...stage.records.values()];
  // One file at a time: hundreds of 256 KB samples at once would be the biggest allocation of the whole bundle.
  const estimates: Array<{ path: string; estimate: number }> = [];
  for (const r of records) estimates.push({ path: r.path, estimate: await estimateCompressed(stage, r) });
  await fsp.mkdir(path.dirname(output), { recursive: true });
  let budget = budgetStart;
  for (let attempt = 0; attempt < 4; attempt++) {
    // The manifest of a part lists its files: about 150 bytes each, compressed ~3x.
    const plan = planParts(estimates, Math.max(64 * 1024, budget - 16 * 1024 - records.length * 60));
    const names = partNames(output, plan.length);
    const temps = names.map(tempName);
    const manifests: BundleManifest[] = [];
    let tooBig = false;
    try {
      // Parts are independent files: PARTS_AT_ONCE are written at the same time (each with ZIP_COPIES_AT_ONCE
      // copies), in part order; the first failure stops the others from starting a part.
      let next = 0;
      let failed = false;
      const writeParts = async (): Promise<void> => {
        while (next < plan.length && !failed) {
          const i = next++;
          options.signal?.throwIfAborted?.();
          const files: BundleFile[] = (plan[i] as string[]).map((p) => {
            const r = stage.records.get(p)!;
            return { path: r.path, sha256: r.sha256, size: r.size };
          });
          const manifest = makeManifest(files, plan.length > 1 ? { index: i + 1, count: plan.length } : undefined);
          manifests[i] = manifest;
          const size = await writeOneZip(stage, plan[i] as string[], manifest, temps[i] as string, mtime, options.signal);
          if (size > hardLimit && (plan[i] as string[]).length > 1) tooBig = true;
        }
      };
      const settled = await Promise.allSettled(
        Array.from({ length: Math.min(PARTS_AT_ONCE, plan.length) }, () =>
          writeParts().catch((error: unknown) => {
            failed = true;
            throw error;
          }),
        ),
      );
      for (const s of settled) if (s.status === 'rejected') throw s.reason;
      if (tooBig) {
        budget = Math.floor(budget * 0.75);
        await Promise.all(temps.map((t) => fsp.rm(t, { force: true })));
        continue;
      }
      // Old parts of an earlier bundle with the same name would mislead: remove them.
      const stale = await staleParts(output, names);
      await Promise.all(stale.map((s) => fsp.rm(s, { force: true })));
      for (let i = 0; i < temps.length; i++) await fsp.rename(temps[i] as string, names[i] as string);
      return { paths: names, manifests };
    } catch (error) {
      await Promise.all(temps.map((t) => fsp.rm(t, { force: true })));
      if (options.signal?.aborted) throw new WindeckError('CANCELLED', 'Writing the bundle was cancelled.', undefined, { cause: error });
      throw error;
    }
  }
  throw new WindeckError('INTERNAL', 'The bundle could not be split into parts under the attachment limit.');
}

async function staleParts(output: string, keep: string[]): Promise<string[]> {
  const dir = path.dirname(output);
  const base = path.basename(output).replace(/\.zip$/i, '');
  const re = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.part\\d+\\.zip$`);
  let names: string[] = [];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => re.test(n))
    .map((n) => path.join(dir, n))
    .filter((p) => !keep.includes(p));
}

/**
 * Write the staged bundle as a folder: manifest.json into the staging directory, then one rename into place.
 * CONFLICT when `output` exists and is not empty. Across file systems the staging copy is copied next to the
 * target first, then renamed.
 */
export async function writeBundleDir(stage: BundleStage, output: string, manifest: BundleManifest, options: { keepStage?: boolean } = {}): Promise<string> {
  if (stage.zipOnly) throw new WindeckError('INTERNAL', 'A zip-only staging area cannot be written as a folder.');
  const target = path.resolve(output);
  try {
    const existing = await fsp.readdir(target);
    if (existing.length > 0)
      throw new WindeckError('CONFLICT', `The output folder ${target} exists and is not empty; choose an empty or new folder.`, { path: target });
    await fsp.rmdir(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await fsp.mkdir(path.dirname(target), { recursive: true });
  const sameParent = path.dirname(stage.dir) === path.dirname(target);
  let source = stage.dir;
  if (!sameParent || options.keepStage) {
    source = tempName(target);
    await fsp.cp(stage.dir, source, { recursive: true });
  }
  try {
    // The deflated copies of streamed entries are for zips only: never part of the folder.
    if (source === stage.dir) await stage.removeDeflated();
    else await fsp.rm(path.join(source, DEFLATE_DIR), { recursive: true, force: true });
    await fsp.writeFile(path.join(source, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    await fsp.rename(source, target);
  } catch (error) {
    if (source !== stage.dir) await fsp.rm(source, { recursive: true, force: true });
    throw error;
  }
  return target;
}
