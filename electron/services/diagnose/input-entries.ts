/**
 * Where diagnosed files come from: a folder (walked recursively, zips inside it opened too), a zip (Windeck
 * bundle, AKS collect-windows-logs), or a single file. Entries are opened lazily as streams, one at a time, so a
 * folder of 1 GB of logs never sits in memory.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type yauzl from 'yauzl';
import { WindeckError } from '../../../shared/contract/errors';

export interface InputEntry {
  /** Path reported in `inputs`: relative to the root with `/`; zip members as `archive.zip!/member`. */
  path: string;
  /** Path inside its own container (folder-relative, or the zip member name), for layout rules. */
  innerPath: string;
  /** The container: '' for the folder (or the zip) given, else the nested zip's path. */
  container: string;
  sizeBytes: number | null;
  open(): Promise<Readable>;
}

export interface InputSource {
  entries: InputEntry[];
  close(): Promise<void>;
}

function cancelled(signal?: AbortSignal): void {
  if (signal?.aborted) throw new WindeckError('CANCELLED', 'Diagnosis cancelled.');
}

let yauzlModule: Promise<typeof yauzl> | null = null;

/** yauzl is loaded when the first zip is opened, not at start-up (it is CommonJS: its exports are the default). */
function loadYauzl(): Promise<typeof yauzl> {
  yauzlModule ??= import('yauzl').then((m) => (m as unknown as { default: typeof yauzl }).default ?? m);
  return yauzlModule;
}

async function openZipFile(file: string): Promise<yauzl.ZipFile> {
  const lib = await loadYauzl();
  return new Promise((resolve, reject) => {
    lib.open(file, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true }, (err, zip) => {
      if (err || !zip) reject(err ?? new Error('cannot open zip'));
      else resolve(zip);
    });
  });
}

function listZipEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (e: yauzl.Entry) => {
      entries.push(e);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', reject);
    zip.readEntry();
  });
}

/** Open a zip archive; member paths are prefixed with `prefix` (e.g. `logs.zip!/`). */
export async function openZip(file: string, prefix = ''): Promise<InputSource> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZipFile(file);
  } catch (error) {
    throw new WindeckError('PARSE_FAILED', `${path.basename(file)} is not a readable zip archive: ${(error as Error).message}`, { path: file }, { cause: error });
  }
  let members: yauzl.Entry[];
  try {
    members = await listZipEntries(zip);
  } catch (error) {
    zip.close();
    throw new WindeckError('PARSE_FAILED', `${path.basename(file)}: the zip directory cannot be read: ${(error as Error).message}`, { path: file }, { cause: error });
  }
  const entries: InputEntry[] = members
    .filter((e) => !/\/$/.test(e.fileName))
    .map((e) => ({
      path: `${prefix}${e.fileName}`,
      innerPath: e.fileName,
      container: prefix,
      sizeBytes: e.uncompressedSize,
      open: () =>
        new Promise<Readable>((resolve, reject) => {
          if (e.isEncrypted()) {
            reject(new WindeckError('UNSUPPORTED', `${e.fileName} is encrypted inside the zip.`));
            return;
          }
          zip.openReadStream(e, (err, stream) => (err || !stream ? reject(err ?? new Error('no stream')) : resolve(stream)));
        }),
    }));
  return { entries, close: async () => zip.close() };
}

async function walk(root: string, rel: string, out: { rel: string; full: string; size: number }[], signal?: AbortSignal): Promise<void> {
  cancelled(signal);
  const dir = path.join(root, rel);
  const items = await fsp.readdir(dir, { withFileTypes: true });
  items.sort((a, b) => a.name.localeCompare(b.name));
  for (const item of items) {
    const childRel = rel ? `${rel}/${item.name}` : item.name;
    const full = path.join(dir, item.name);
    if (item.isDirectory()) await walk(root, childRel, out, signal);
    else if (item.isFile()) out.push({ rel: childRel, full, size: (await fsp.stat(full)).size });
    else if (item.isSymbolicLink()) {
      // Follow links to files only (a link to a folder could loop).
      const st = await fsp.stat(full).catch(() => null);
      if (st?.isFile()) out.push({ rel: childRel, full, size: st.size });
    }
  }
}

async function isZipFile(full: string): Promise<boolean> {
  const fh = await fsp.open(full, 'r').catch(() => null);
  if (!fh) return false;
  try {
    const buf = Buffer.alloc(4);
    const { bytesRead } = await fh.read(buf, 0, 4, 0);
    return bytesRead === 4 && buf[0] === 0x50 && buf[1] === 0x4b && (buf[2] === 3 || buf[2] === 5) && (buf[3] === 4 || buf[3] === 6);
  } finally {
    await fh.close();
  }
}

function fileEntry(full: string, rel: string, size: number | null): InputEntry {
  return { path: rel, innerPath: rel, container: '', sizeBytes: size, open: async () => fs.createReadStream(full) };
}

/**
 * Open a folder, a zip or a single file. Zips found inside a folder are opened too (their members are listed
 * after the zip itself). Throws NOT_FOUND when the path does not exist.
 */
export async function openInput(target: string, signal?: AbortSignal): Promise<InputSource & { kind: 'directory' | 'zip' | 'file' }> {
  const st = await fsp.stat(target).catch(() => null);
  if (!st) throw new WindeckError('NOT_FOUND', `${target} does not exist.`, { path: target });
  if (st.isFile()) {
    if (await isZipFile(target)) return { ...(await openZip(target)), kind: 'zip' };
    return { entries: [fileEntry(target, path.basename(target), st.size)], close: async () => undefined, kind: 'file' };
  }
  if (!st.isDirectory()) throw new WindeckError('VALIDATION', `${target} is neither a folder nor a file.`, { path: target });
  const files: { rel: string; full: string; size: number }[] = [];
  try {
    await walk(target, '', files, signal);
  } catch (error) {
    if ((error as WindeckError).code === 'CANCELLED') throw error;
    throw new WindeckError('PERMISSION_DENIED', `Cannot read the folder ${target}: ${(error as Error).message}`, { path: target }, { cause: error });
  }
  const entries: InputEntry[] = [];
  const inner: InputSource[] = [];
  for (const f of files) {
    entries.push(fileEntry(f.full, f.rel, f.size));
    if (/\.zip$/i.test(f.rel) && (await isZipFile(f.full))) {
      try {
        const z = await openZip(f.full, `${f.rel}!/`);
        inner.push(z);
        entries.push(...z.entries);
      } catch {
        // Listed as a zip-archive input; its members stay unread (the scan reports the kind).
      }
    }
  }
  return {
    entries,
    kind: 'directory',
    close: async () => {
      for (const z of inner) await z.close();
    },
  };
}
