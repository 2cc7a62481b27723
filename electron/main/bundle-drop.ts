import fs from 'node:fs';
import path from 'node:path';
import type { Result } from '../../shared/contract/result';
import { DESKTOP_DROP_MAX_FILES } from '../../shared/domain/limits';

/**
 * Bundles dropped onto the window (or chosen with File > Import bundle): validated here, then imported through the
 * contract like any other call, so the import is an operation the UI already shows (Activity, `ops:progress`).
 */

/** The contract method that diagnoses one bundle file offline: input `{ path }`, answers `{ operationId }`. */
export const BUNDLE_IMPORT_METHOD = 'diagnose:files';

/** Bundle file names we accept (DESIGN.md section 6: a zip, possibly split as name.partN.zip). */
export const BUNDLE_EXTENSIONS = ['.zip'] as const;

export interface DropVerdict {
  accepted: string[];
  rejected: { path: string; reason: string }[];
}

/**
 * Which dropped paths are bundle files we may open: absolute, no NUL, a known extension, a regular file (checked
 * with `stat`, so a directory or a device named *.zip is refused), at most DESKTOP_DROP_MAX_FILES.
 */
export function validateDroppedPaths(raw: unknown, stat: (p: string) => fs.Stats | null = safeStat): DropVerdict {
  const verdict: DropVerdict = { accepted: [], rejected: [] };
  if (!Array.isArray(raw)) return verdict;
  for (const item of raw.slice(0, DESKTOP_DROP_MAX_FILES)) {
    if (typeof item !== 'string' || item.length === 0 || item.length > 4_096 || item.includes('\0')) {
      verdict.rejected.push({ path: String(item).slice(0, 200), reason: 'not a file path' });
      continue;
    }
    if (!path.isAbsolute(item)) {
      verdict.rejected.push({ path: item, reason: 'not an absolute path' });
      continue;
    }
    const lower = item.toLowerCase();
    if (!BUNDLE_EXTENSIONS.some((ext) => lower.endsWith(ext))) {
      verdict.rejected.push({ path: item, reason: 'not a Windeck bundle (.zip)' });
      continue;
    }
    const info = stat(item);
    if (!info || !info.isFile()) {
      verdict.rejected.push({ path: item, reason: 'not a readable file' });
      continue;
    }
    verdict.accepted.push(path.normalize(item));
  }
  for (const item of raw.slice(DESKTOP_DROP_MAX_FILES)) {
    verdict.rejected.push({ path: String(item).slice(0, 200), reason: `more than ${DESKTOP_DROP_MAX_FILES} files in one drop` });
  }
  return verdict;
}

function safeStat(p: string): fs.Stats | null {
  try {
    return fs.statSync(p);
  } catch {
    return null;
  }
}

export interface ImportOutcome {
  path: string;
  result: Result<unknown>;
}

/** Import (diagnose offline) each accepted bundle through the contract; each answer is an operation or an error. */
export async function importBundles(
  paths: readonly string[],
  dispatch: (method: string, input: unknown) => Promise<Result<unknown>>,
  method: string = BUNDLE_IMPORT_METHOD,
): Promise<ImportOutcome[]> {
  const outcomes: ImportOutcome[] = [];
  for (const p of paths) {
    outcomes.push({ path: p, result: await dispatch(method, { path: p }) });
  }
  return outcomes;
}

/** One message for the user about a drop: what was refused and what failed (empty when all went well). */
export function describeDrop(verdict: DropVerdict, outcomes: readonly ImportOutcome[]): string {
  const lines: string[] = [];
  for (const r of verdict.rejected) lines.push(`${path.basename(r.path) || r.path}: ${r.reason}`);
  for (const o of outcomes) if (!o.result.ok) lines.push(`${path.basename(o.path)}: ${o.result.error.message}`);
  return lines.join('\n');
}
