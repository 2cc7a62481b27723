/**
 * Offline diagnosis over files (DESIGN.md sections 5 and 10): a folder of loose files (`--from DIR`), a Windeck
 * bundle (zip or folder, `--bundle`), a collectlogs.ps1 output folder or an AKS collect-windows-logs zip (either
 * flag). Every file is classified by content and listed in `inputs` (unknown ones as `unknown`); facts from all
 * files go through one rule engine, so evidence from several files combines (a listing in one, a config in another).
 *
 * Files stream one at a time; big logs are scanned line by line (see scan-entry.ts), so memory stays bounded.
 */
import { WindeckError } from '../../../shared/contract/errors';
import type { Finding } from '../../../shared/domain/finding';
import { DIAGNOSE_PROGRESS_INTERVAL_MS } from '../../../shared/domain/limits';
import type { Fact } from '../../../shared/logic/facts';
import type { InputKind } from '../../../shared/parse/classify';
import { evaluate } from '../../../shared/rules/evaluate';
import type { RuleModule } from '../../../shared/rules/rule';
import { bundleMemberRole, isBundleManifest } from './bundle-layout';
import { openInput, type InputEntry } from './input-entries';
import { scanStream } from './scan-entry';

export interface DiagnoseInput {
  /** A folder of files (or a zip) to diagnose. */
  from?: string;
  /** A Windeck bundle, AKS zip or collectlogs folder. */
  bundle?: string;
}

export interface DiagnoseProgress {
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  /** Sum of the known sizes (zip members: uncompressed). */
  bytesTotal: number;
  /** The file being read. */
  path: string | null;
}

export interface DiagnoseOptions {
  signal?: AbortSignal;
  /** Called after each file, and at most every DIAGNOSE_PROGRESS_INTERVAL_MS while a big file streams. */
  onProgress?: (progress: DiagnoseProgress) => void;
  /** Parser notes per file (cut-off pastes, repaired JSON); the CLI prints them on stderr with --verbose. */
  onWarning?: (path: string, message: string) => void;
  /** Rule set (defaults to the file/probe catalogue). */
  rules?: readonly RuleModule[];
}

/** `windeck diagnose --json` (DESIGN.md section 10). */
export interface DiagnoseResult {
  inputs: { path: string; kind: InputKind }[];
  findings: Finding[];
}

async function readSmall(entry: InputEntry, maxBytes = 1024 * 1024): Promise<string | null> {
  try {
    const stream = await entry.open();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of stream) {
      const b = Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array);
      chunks.push(b);
      size += b.length;
      if (size > maxBytes) {
        stream.destroy();
        return null;
      }
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch {
    return null;
  }
}

/** True for `nodes/<node>/files/...`, the bundle's copies of the files probe's output. */
function isBundleFileCopy(innerPath: string, node: string): boolean {
  return innerPath.replace(/\\/g, '/').replace(/^\.\//, '').startsWith(`nodes/${node}/files/`);
}

/** Diagnose files. Throws VALIDATION (bad arguments), NOT_FOUND, PARSE_FAILED (unreadable zip), CANCELLED. */
export async function diagnoseFiles(input: DiagnoseInput, options: DiagnoseOptions = {}): Promise<DiagnoseResult> {
  const targets = [input.from, input.bundle].filter((x): x is string => typeof x === 'string' && x !== '');
  if (targets.length !== 1) throw new WindeckError('VALIDATION', 'Give exactly one of --from DIR or --bundle PATH.');
  const target = targets[0]!;
  const { signal } = options;
  if (signal?.aborted) throw new WindeckError('CANCELLED', 'Diagnosis cancelled.');
  const source = await openInput(target, signal);
  try {
    // A Windeck bundle is recognized by its manifest, per container (the root, or a zip inside the folder).
    const bundleContainers = new Set<string>();
    for (const e of source.entries) {
      if (e.innerPath !== 'manifest.json') continue;
      const text = await readSmall(e);
      if (text !== null && isBundleManifest(text)) bundleContainers.add(e.container);
    }
    // A bundle carries each config file twice: in the `files` probe output (with its path on the node) and as a
    // copy under nodes/<node>/files/. The probe output is read; the copies are listed but give no facts, so a
    // re-imported bundle reports each finding once.
    const filesProbeNodes = new Set<string>();
    for (const e of source.entries) {
      if (!bundleContainers.has(e.container)) continue;
      const role = bundleMemberRole(e.innerPath);
      if (role.node !== null && role.probeId === 'files') filesProbeNodes.add(`${e.container}|${role.node}`);
    }
    const filesTotal = source.entries.length;
    const bytesTotal = source.entries.reduce((s, e) => s + (e.sizeBytes ?? 0), 0);
    let filesDone = 0;
    let bytesDone = 0;
    let lastProgress = 0;
    const progress = (path: string | null, force = false) => {
      if (!options.onProgress) return;
      const now = Date.now();
      if (!force && now - lastProgress < DIAGNOSE_PROGRESS_INTERVAL_MS) return;
      lastProgress = now;
      options.onProgress({ filesDone, filesTotal, bytesDone, bytesTotal, path });
    };
    const containers = new Set(source.entries.map((e) => e.container));
    const inputs: DiagnoseResult['inputs'] = [];
    const facts: Fact[] = [];
    progress(null, true);
    for (const entry of source.entries) {
      if (signal?.aborted) throw new WindeckError('CANCELLED', 'Diagnosis cancelled.');
      const role = bundleContainers.has(entry.container) ? bundleMemberRole(entry.innerPath) : { node: null, probeId: null, forcedKind: null };
      const zipLike = containers.has(`${entry.path}!/`);
      const scan = await scanStream(
        entry.open,
        entry.innerPath,
        { source: entry.path, node: role.node, probeId: role.probeId, forcedKind: zipLike ? 'zip-archive' : role.forcedKind },
        {
          signal,
          onBytes: (n) => {
            bytesDone += n;
            progress(entry.path);
          },
        },
      );
      inputs.push({ path: entry.path, kind: scan.kind });
      if (role.node !== null && filesProbeNodes.has(`${entry.container}|${role.node}`) && isBundleFileCopy(entry.innerPath, role.node)) {
        if (scan.facts.length > 0) options.onWarning?.(entry.path, 'a copy of a file in probes/files.raw: read from there, not twice');
      } else {
        facts.push(...scan.facts);
      }
      for (const w of scan.warnings) options.onWarning?.(entry.path, w);
      filesDone++;
      // One event per finished file (byte-level updates in between are throttled).
      progress(entry.path, true);
    }
    progress(null, true);
    const findings = evaluate(facts, {
      rules: options.rules,
      onRuleError: (id, error) => options.onWarning?.('(rules)', `rule ${id} failed: ${(error as Error).message}`),
    });
    return { inputs, findings };
  } finally {
    await source.close();
  }
}
