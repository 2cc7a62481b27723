import type { WireError } from '../../../shared/contract/errors';
import { WEB_UPLOAD_MAX_BYTES, WEB_UPLOAD_MAX_FILES } from '../../../shared/domain/limits';

/**
 * Browser import by upload to the web host (electron/web/upload.ts): each file is POSTed to `/api/upload` as raw
 * bytes (same origin, so the session cookie and Origin go with it), then `/api/upload/diagnose` starts the same
 * diagnosis `diagnose:files` runs. Only the web host has these endpoints; the desktop window reads paths.
 */

export interface UploadItem {
  /** Relative path as dropped (`logs/kubelet.log` for a folder drop, the file name otherwise). */
  path: string;
  file: File;
}

export interface UploadProgress {
  bytesDone: number;
  bytesTotal: number;
  filesDone: number;
  filesTotal: number;
  current: string | null;
}

export class UploadFailure extends Error {
  constructor(readonly error: WireError) {
    super(error.message);
  }
}

function wire(code: WireError['code'], message: string): WireError {
  return { code, message, retryable: false };
}

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

async function walkEntry(entry: FileSystemEntry, prefix: string, out: UploadItem[]): Promise<void> {
  if (out.length > WEB_UPLOAD_MAX_FILES) return;
  const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
  if (entry.isFile) {
    out.push({ path: rel, file: await fileOf(entry as FileSystemFileEntry) });
    return;
  }
  if (entry.isDirectory) {
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries answers in batches until it answers an empty one.
    for (;;) {
      const batch = await readEntries(reader);
      if (batch.length === 0) break;
      for (const child of batch) await walkEntry(child, rel, out);
    }
  }
}

/**
 * What a drop holds: files, folders (walked, keeping their tree) or a zip. The entries must be taken while the
 * drop event runs (the DataTransfer is emptied after it), so call this from the handler and await the result.
 */
export function droppedItems(dt: DataTransfer): Promise<UploadItem[]> {
  const entries: FileSystemEntry[] = [];
  for (const item of Array.from(dt.items ?? [])) {
    if (item.kind !== 'file') continue;
    const entry = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    if (entry) entries.push(entry);
  }
  if (entries.length === 0) return Promise.resolve(filesToItems(dt.files));
  return (async () => {
    const out: UploadItem[] = [];
    for (const e of entries) await walkEntry(e, '', out);
    return out;
  })();
}

/** Files from an `<input type=file>` (a folder input gives each file its `webkitRelativePath`). */
export function filesToItems(list: FileList | null): UploadItem[] {
  return Array.from(list ?? []).map((file) => ({ path: file.webkitRelativePath || file.name, file }));
}

function post(url: string, body: Blob | null, contentType: string, onProgress: (loaded: number) => void, signal?: AbortSignal): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('Content-Type', contentType);
    xhr.responseType = 'text';
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => {
      type Envelope = { ok?: boolean; value?: unknown; error?: WireError } | null;
      let parsed: Envelope;
      try {
        parsed = JSON.parse(String(xhr.responseText)) as Envelope;
      } catch {
        parsed = null;
      }
      if (parsed?.ok === true) resolve(parsed.value);
      else if (parsed?.error) reject(new UploadFailure(parsed.error));
      else if (xhr.status === 401) reject(new UploadFailure(wire('AUTH_FAILED', 'The session expired: open the URL that `windeck serve` printed again.')));
      else reject(new UploadFailure(wire('REMOTE_FAILED', `The upload was refused (HTTP ${xhr.status}).`)));
    };
    xhr.onerror = () => reject(new UploadFailure(wire('UNREACHABLE', 'The upload did not reach Windeck (the connection dropped).')));
    xhr.onabort = () => reject(new UploadFailure(wire('CANCELLED', 'Upload cancelled.')));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(body);
  });
}

/** Upload the items and start their diagnosis; resolves with the operation to follow. Throws UploadFailure. */
export async function uploadAndDiagnose(
  items: readonly UploadItem[],
  onProgress: (p: UploadProgress) => void,
  signal?: AbortSignal,
): Promise<{ operationId: string }> {
  if (items.length === 0) throw new UploadFailure(wire('VALIDATION', 'Nothing to upload: the drop held no files.'));
  if (items.length > WEB_UPLOAD_MAX_FILES)
    throw new UploadFailure(
      wire('VALIDATION', `Too many files (${items.length}); an upload holds at most ${WEB_UPLOAD_MAX_FILES}. Give the folder's path instead.`),
    );
  const bytesTotal = items.reduce((s, i) => s + i.file.size, 0);
  if (bytesTotal > WEB_UPLOAD_MAX_BYTES) {
    throw new UploadFailure(
      wire(
        'VALIDATION',
        `Too large to upload (${Math.round(bytesTotal / 1024 / 1024)} MiB; at most ${Math.round(WEB_UPLOAD_MAX_BYTES / 1024 / 1024)} MiB). Give its path on this machine instead.`,
      ),
    );
  }
  const base = `${window.location.origin}/api/upload`;
  let batch: string | null = null;
  let done = 0;
  for (const [index, item] of items.entries()) {
    onProgress({ bytesDone: done, bytesTotal, filesDone: index, filesTotal: items.length, current: item.path });
    const query = new URLSearchParams({ name: item.path, ...(batch ? { batch } : {}) });
    const value = (await post(
      `${base}?${query.toString()}`,
      item.file,
      'application/octet-stream',
      (loaded) => onProgress({ bytesDone: done + loaded, bytesTotal, filesDone: index, filesTotal: items.length, current: item.path }),
      signal,
    )) as { batch: string };
    batch = value.batch;
    done += item.file.size;
  }
  onProgress({ bytesDone: bytesTotal, bytesTotal, filesDone: items.length, filesTotal: items.length, current: null });
  return (await post(`${base}/diagnose?${new URLSearchParams({ batch: batch! }).toString()}`, null, 'application/octet-stream', () => undefined, signal)) as {
    operationId: string;
  };
}
