import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import type { ErrorCode, WireError } from '../../shared/contract/errors';
import { WEB_UPLOAD_BATCH_TTL_MS, WEB_UPLOAD_MAX_BYTES, WEB_UPLOAD_MAX_FILES } from '../../shared/domain/limits';
import type { ServiceCore } from '../services/create-services';
import { startFilesDiagnosis } from '../services/diagnose/diagnose-operation';
import { openZip } from '../services/diagnose/input-entries';

/**
 * Browser import by upload (the web host only; the desktop window passes dropped files by path):
 *
 *   POST /api/upload?name=REL[&batch=ID]   body: the file's bytes (Content-Type application/octet-stream or zip)
 *        -> {ok, value: {batch, files, bytes}}  (no batch: a new one is made)
 *   POST /api/upload/diagnose?batch=ID     -> {ok, value: {operationId}}  the same diagnosis as `diagnose:files`
 *
 * A batch is a folder under WINDECK_HOME/tmp/uploads/; it is removed when its diagnosis ends, and batches left
 * behind are removed after WEB_UPLOAD_BATCH_TTL_MS. Bytes are streamed to disk, never held whole. A batch holding
 * a single zip is diagnosed as that zip (a Windeck bundle, an AKS zip), like `windeck diagnose --bundle FILE.zip`.
 * Answers are Result envelopes with HTTP status codes: 400 bad request, 404 unknown batch, 413 too large,
 * 415 wrong content type, 422 a zip that cannot be read.
 */

const UPLOAD_CONTENT_TYPES = new Set(['application/octet-stream', 'application/zip', 'application/x-zip-compressed']);
const BATCH_ID = /^[0-9a-f]{32}$/;

export interface UploadOptions {
  core: ServiceCore;
  /** Total bytes one batch may hold. */
  maxBytes?: number;
  maxFiles?: number;
  now?: () => number;
}

interface Batch {
  id: string;
  dir: string;
  files: Set<string>;
  bytes: number;
  createdAt: number;
  diagnosing: boolean;
}

class UploadError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A relative path from the browser (a folder drop keeps its tree) -> safe segments, or an error. */
export function safeRelativePath(name: string): string[] {
  const parts = name.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.length > 32) throw new UploadError(400, 'VALIDATION', 'An upload needs a file name (name=...), at most 32 folders deep.');
  for (const p of parts) {
    // eslint-disable-next-line no-control-regex
    if (p === '..' || p.length > 255 || /[\u0000-\u001f:*?"<>|]/.test(p))
      throw new UploadError(400, 'VALIDATION', `"${name}" is not an acceptable file name in an upload.`);
  }
  return parts;
}

function isZipMagic(head: Buffer): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5) && (head[3] === 4 || head[3] === 6);
}

async function readHead(file: string): Promise<Buffer> {
  const fh = await fsp.open(file, 'r');
  try {
    const buf = Buffer.alloc(4);
    const { bytesRead } = await fh.read(buf, 0, 4, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** A zip must open (its central directory read) before it is accepted: a truncated download is said at once. */
async function checkZip(file: string, shownName: string): Promise<void> {
  const head = await readHead(file);
  const named = /\.zip$/i.test(shownName);
  if (!isZipMagic(head)) {
    if (named)
      throw new UploadError(
        422,
        'VALIDATION',
        `${shownName} is not a zip archive (it does not start with a zip header). Was it renamed, or is it still downloading?`,
      );
    return;
  }
  try {
    const zip = await openZip(file);
    await zip.close();
  } catch (error) {
    const why = (error as Error).message.replace(/^.*?is not a readable zip archive: /, '');
    throw new UploadError(422, 'VALIDATION', `${shownName} is not a readable zip archive (truncated or damaged?): ${why}`);
  }
}

function send(
  res: http.ServerResponse,
  headers: Record<string, string>,
  status: number,
  body: { ok: true; value: unknown } | { ok: false; error: WireError },
): void {
  if (res.headersSent) return;
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
}

function fail(res: http.ServerResponse, headers: Record<string, string>, error: UploadError): void {
  send(res, headers, error.status, { ok: false, error: { code: error.code, message: error.message, retryable: false } });
}

/** The upload endpoints of one web host. */
export class UploadService {
  private readonly batches = new Map<string, Batch>();
  private readonly root: string;
  private readonly maxBytes: number;
  private readonly maxFiles: number;
  private readonly now: () => number;

  constructor(private readonly options: UploadOptions) {
    this.root = path.join(options.core.home, 'tmp', 'uploads');
    this.maxBytes = options.maxBytes ?? WEB_UPLOAD_MAX_BYTES;
    this.maxFiles = options.maxFiles ?? WEB_UPLOAD_MAX_FILES;
    this.now = options.now ?? Date.now;
  }

  /** Handle `/api/upload*` (auth, Host and Origin were checked by the caller). */
  async handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, headers: Record<string, string>): Promise<void> {
    try {
      if (req.method !== 'POST') {
        res.writeHead(405, { ...headers, Allow: 'POST' }).end();
        req.resume();
        return;
      }
      if (url.pathname === '/api/upload') await this.receive(req, res, url, headers);
      else if (url.pathname === '/api/upload/diagnose') {
        req.resume();
        this.diagnose(res, url, headers);
      } else {
        req.resume();
        throw new UploadError(404, 'NOT_FOUND', 'No such upload endpoint.');
      }
    } catch (error) {
      // Whatever was not read of the body is discarded, so the answer is not held up behind it.
      req.resume();
      if (error instanceof UploadError) fail(res, headers, error);
      else fail(res, headers, new UploadError(500, 'INTERNAL', `The upload failed: ${(error as Error).message}`));
    }
  }

  private async receive(req: http.IncomingMessage, res: http.ServerResponse, url: URL, headers: Record<string, string>): Promise<void> {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!UPLOAD_CONTENT_TYPES.has(type)) {
      req.resume();
      throw new UploadError(415, 'VALIDATION', 'Upload the file bytes as application/octet-stream (or application/zip).');
    }
    const name = url.searchParams.get('name') ?? '';
    const parts = safeRelativePath(name);
    const shownName = parts.join('/');
    const declared = Number(req.headers['content-length'] ?? NaN);
    const batch = await this.batchFor(url.searchParams.get('batch'));
    if (batch.diagnosing) throw new UploadError(409, 'CONFLICT', 'This upload is already being diagnosed; start a new one.');
    if (batch.files.size >= this.maxFiles) throw new UploadError(413, 'VALIDATION', `An upload holds at most ${this.maxFiles} files.`);
    const room = this.maxBytes - batch.bytes;
    if (Number.isFinite(declared) && declared > room) {
      req.resume();
      throw new UploadError(
        413,
        'VALIDATION',
        `${shownName} is too large: an upload may hold ${formatBytes(this.maxBytes)} in all. Give its path on this machine instead.`,
      );
    }
    const target = path.join(batch.dir, ...parts);
    if (!target.startsWith(batch.dir + path.sep)) throw new UploadError(400, 'VALIDATION', `"${name}" is not an acceptable file name in an upload.`);
    if (batch.files.has(shownName)) throw new UploadError(409, 'CONFLICT', `${shownName} was uploaded twice.`);
    await fsp.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    let size = 0;
    const tooLarge = () =>
      new UploadError(
        413,
        'VALIDATION',
        `${shownName} is too large: an upload may hold ${formatBytes(this.maxBytes)} in all. Give its path on this machine instead.`,
      );
    try {
      await new Promise<void>((resolve, reject) => {
        const out = fs.createWriteStream(target, { mode: 0o600, flags: 'wx' });
        let settled = false;
        const stop = (error: Error) => {
          if (settled) return;
          settled = true;
          req.unpipe(out);
          out.destroy();
          // Keep reading (to nowhere) so the answer reaches the browser instead of a reset connection.
          req.resume();
          reject(error);
        };
        req.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > room) stop(tooLarge());
        });
        req.once('aborted', () => stop(new UploadError(400, 'VALIDATION', `The upload of ${shownName} was interrupted.`)));
        req.once('error', () => stop(new UploadError(400, 'VALIDATION', `The upload of ${shownName} was interrupted.`)));
        out.once('error', (error) => stop(error));
        out.once('close', () => {
          if (settled) return;
          settled = true;
          resolve();
        });
        req.pipe(out);
      });
    } catch (error) {
      await fsp.rm(target, { force: true });
      throw error;
    }
    if (Number.isFinite(declared) && declared !== size) {
      await fsp.rm(target, { force: true });
      throw new UploadError(400, 'VALIDATION', `The upload of ${shownName} was cut short (${size} of ${declared} bytes).`);
    }
    try {
      await checkZip(target, shownName);
    } catch (error) {
      await fsp.rm(target, { force: true });
      throw error;
    }
    batch.files.add(shownName);
    batch.bytes += size;
    send(res, headers, 200, { ok: true, value: { batch: batch.id, files: batch.files.size, bytes: batch.bytes } });
  }

  private diagnose(res: http.ServerResponse, url: URL, headers: Record<string, string>): void {
    const id = url.searchParams.get('batch') ?? '';
    const batch = BATCH_ID.test(id) ? this.batches.get(id) : undefined;
    if (!batch) throw new UploadError(404, 'NOT_FOUND', 'No such upload (it was diagnosed already, or expired). Upload the files again.');
    if (batch.diagnosing) throw new UploadError(409, 'CONFLICT', 'This upload is already being diagnosed.');
    if (batch.files.size === 0) throw new UploadError(400, 'VALIDATION', 'Nothing was uploaded to diagnose.');
    batch.diagnosing = true;
    const single = batch.files.size === 1 ? [...batch.files][0]! : null;
    // One zip: diagnosed as that zip (inputs named as in the CLI); anything else: the folder as dropped.
    const target = single && /\.zip$/i.test(single) ? path.join(batch.dir, ...single.split('/')) : batch.dir;
    const title = single ? `Diagnose ${path.posix.basename(single)} (upload)` : `Diagnose ${batch.files.size} uploaded files`;
    const started = startFilesDiagnosis(this.options.core, target, {
      title,
      onSettled: () => this.drop(batch.id),
    });
    send(res, headers, 200, { ok: true, value: started });
  }

  private async batchFor(id: string | null): Promise<Batch> {
    if (id !== null) {
      const found = BATCH_ID.test(id) ? this.batches.get(id) : undefined;
      if (!found) throw new UploadError(404, 'NOT_FOUND', 'No such upload (it was diagnosed already, or expired). Upload the files again.');
      return found;
    }
    await this.sweep();
    const batch: Batch = { id: crypto.randomBytes(16).toString('hex'), dir: '', files: new Set(), bytes: 0, createdAt: this.now(), diagnosing: false };
    batch.dir = path.join(this.root, batch.id);
    await fsp.mkdir(batch.dir, { recursive: true, mode: 0o700 });
    this.batches.set(batch.id, batch);
    return batch;
  }

  /** Batches never diagnosed are removed after the TTL, and so are folders an earlier run left behind (a crash). */
  private async sweep(): Promise<void> {
    const cutoff = this.now() - WEB_UPLOAD_BATCH_TTL_MS;
    for (const b of [...this.batches.values()]) if (!b.diagnosing && b.createdAt < cutoff) await this.drop(b.id);
    const left = await fsp.readdir(this.root).catch(() => [] as string[]);
    for (const name of left) {
      if (!BATCH_ID.test(name) || this.batches.has(name)) continue;
      const st = await fsp.stat(path.join(this.root, name)).catch(() => null);
      if (st && st.mtimeMs < cutoff) await fsp.rm(path.join(this.root, name), { recursive: true, force: true });
    }
  }

  private async drop(id: string): Promise<void> {
    const batch = this.batches.get(id);
    this.batches.delete(id);
    if (batch) await fsp.rm(batch.dir, { recursive: true, force: true });
  }

  /** Remove every batch not being diagnosed (the web host closes). */
  async dispose(): Promise<void> {
    for (const b of [...this.batches.values()]) if (!b.diagnosing) await this.drop(b.id);
  }
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round(n / 1024 / 1024)} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} bytes`;
}
