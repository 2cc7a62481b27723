import crypto from 'node:crypto';
import fs from 'node:fs';
import { WindeckError } from '../../../shared/contract/errors';
import type { BundleError, BundleFile, BundleManifest, RedactionLevel } from '../../../shared/contract/methods/bundles';
import type { RedactionCounts } from '../../../shared/logic/redact';

/**
 * manifest.json (DESIGN.md section 6): sha256 and size of every file but the manifest, paths relative with `/`,
 * never absolute, never `..`. `bundlePath` is the one gate every entry name goes through.
 */

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,199}$/;

/** Make one path segment safe (node names, probe ids, file names from a node): keeps `[A-Za-z0-9._@+-]`. */
export function safeSegment(name: string): string {
  let s = name.replace(/[\\/:*?"<>|\s]+/g, '_').replace(/[^A-Za-z0-9._@+-]/g, '_');
  s = s.replace(/^[._-]+/, '');
  if (s === '' || s === '.' || s === '..') s = 'unnamed';
  return s.slice(0, 200);
}

/** Validate an entry path: relative, `/`-separated, no empty, `.` or `..` segments, no drive letters. */
export function bundlePath(path: string): string {
  if (path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path)) {
    throw new WindeckError('INTERNAL', `Refused bundle path "${path.slice(0, 80)}": absolute or not /-separated.`);
  }
  const segments = path.split('/');
  for (const s of segments) {
    if (!SEGMENT.test(s) || s === '.' || s === '..') throw new WindeckError('INTERNAL', `Refused bundle path "${path.slice(0, 80)}": bad segment "${s.slice(0, 40)}".`);
  }
  return path;
}

/** A running sha256 + size, fed as bytes are written. */
export class FileDigest {
  private readonly hash = crypto.createHash('sha256');
  size = 0;

  update(chunk: Buffer | Uint8Array): void {
    this.hash.update(chunk);
    this.size += chunk.length;
  }

  done(path: string): BundleFile {
    return { path, sha256: this.hash.digest('hex'), size: this.size };
  }
}

/** sha256 of a file on disk, streamed. */
export async function hashFile(file: string): Promise<{ sha256: string; size: number }> {
  const d = new FileDigest();
  for await (const chunk of fs.createReadStream(file)) d.update(chunk as Buffer);
  const f = d.done('x');
  return { sha256: f.sha256, size: f.size };
}

export interface ManifestInput {
  created: Date;
  toolVersion: string;
  cluster: { context: string | null; server: string | null; kubernetesVersion: string | null };
  nodes: string[];
  files: BundleFile[];
  level: RedactionLevel;
  counts: RedactionCounts;
  errors: BundleError[];
  part?: { index: number; count: number };
}

export function buildManifest(input: ManifestInput): BundleManifest {
  const files = [...input.files].filter((f) => f.path !== 'manifest.json').sort((a, b) => a.path.localeCompare(b.path));
  for (const f of files) bundlePath(f.path);
  return {
    format: 'windeck-bundle',
    version: 1,
    created: input.created.toISOString(),
    tool: { name: 'windeck', version: input.toolVersion },
    cluster: input.cluster,
    nodes: [...input.nodes],
    files,
    redaction: { level: input.level, counts: Object.fromEntries(Object.entries(input.counts).sort(([a], [b]) => a.localeCompare(b))) },
    status: input.errors.length > 0 ? 'incomplete' : 'complete',
    errors: input.errors,
    ...(input.part ? { part: input.part } : {}),
  };
}

/** Check files on disk against a manifest: the mismatches (missing, wrong size or hash). */
export async function verifyAgainstManifest(manifest: BundleManifest, read: (path: string) => Promise<Buffer | null>): Promise<string[]> {
  const problems: string[] = [];
  for (const f of manifest.files) {
    const data = await read(f.path);
    if (!data) {
      problems.push(`${f.path}: missing`);
      continue;
    }
    const sha = crypto.createHash('sha256').update(data).digest('hex');
    if (data.length !== f.size) problems.push(`${f.path}: size ${data.length} != ${f.size}`);
    if (sha !== f.sha256) problems.push(`${f.path}: sha256 mismatch`);
  }
  return problems;
}
