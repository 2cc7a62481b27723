import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { WindeckError, type ErrorCode } from '../../../shared/contract/errors';
import { BUNDLE_REDACT_WORKERS_MAX } from '../../../shared/domain/limits';
import type { LogEntryResult, LogEntryTask } from './entry-pipeline';

/**
 * A pool of worker threads (one per core, at most BUNDLE_REDACT_WORKERS_MAX) that redact and compress streamed
 * bundle entries in parallel. Idle workers do not keep the process alive; a busy one does (its caller awaits it).
 *
 * The worker program is `redact-worker.js` next to the running bundle (build/build.mjs writes it next to
 * dist/cli.js and dist/electron/main.js). Running from the TypeScript sources (tests, tsx) it is bundled once with
 * esbuild into node_modules/.cache/windeck/. When neither works, `redactPool()` is null and the stage redacts
 * in-thread (same result, one core).
 */

/** The pool could not run a job (no worker could start, or the worker died): the caller may run it in-thread. */
export class PoolFailure extends Error {}

interface Pending {
  id: number;
  task: LogEntryTask;
  resolve: (r: LogEntryResult) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

interface Slot {
  worker: Worker;
  busy: Pending | null;
  idle: NodeJS.Timeout | null;
}

/** An idle worker is ended after this long (its heap is tens of MB; the zip that follows needs none of it). */
const IDLE_EXIT_MS = 500;

export class RedactPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;

  constructor(
    private readonly script: string,
    readonly size: number,
  ) {}

  run(task: LogEntryTask, signal?: AbortSignal): Promise<LogEntryResult> {
    if (signal?.aborted) return Promise.reject(new WindeckError('CANCELLED', `Redacting ${task.entryPath} was cancelled.`));
    return new Promise<LogEntryResult>((resolve, reject) => {
      const job: Pending = { id: this.nextId++, task, resolve, reject, signal, onAbort: undefined };
      if (signal) {
        job.onAbort = () => {
          const queued = this.queue.indexOf(job);
          if (queued >= 0) {
            this.queue.splice(queued, 1);
            reject(new WindeckError('CANCELLED', `Redacting ${task.entryPath} was cancelled.`));
            return;
          }
          const slot = this.slots.find((s) => s.busy === job);
          slot?.worker.postMessage({ type: 'cancel', id: job.id });
        };
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  /** Stop every worker (queued and running jobs fail). */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(new WindeckError('CANCELLED', 'The redaction pool was closed.'));
    await Promise.all(
      this.slots.splice(0).map((s) => {
        if (s.idle) clearTimeout(s.idle);
        return s.worker.terminate();
      }),
    );
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.busy === null);
      if (!slot && this.slots.length < this.size) {
        try {
          slot = this.spawn();
        } catch (error) {
          if (this.slots.length > 0) return;
          // No worker at all: every queued job goes back to its caller (which runs it in-thread).
          for (const job of this.queue.splice(0))
            job.reject(new PoolFailure(`no redaction worker could start: ${error instanceof Error ? error.message : String(error)}`));
          return;
        }
      }
      if (!slot) return;
      const job = this.queue.shift() as Pending;
      if (slot.idle) clearTimeout(slot.idle);
      slot.idle = null;
      slot.busy = job;
      slot.worker.ref();
      slot.worker.postMessage({ type: 'run', id: job.id, task: job.task });
    }
  }

  private spawn(): Slot {
    // A small young generation: the workers churn through MB-sized strings, and V8 would otherwise grow each
    // worker's nursery to tens of MB (peak RSS of the whole bundle is a target, DESIGN.md section 6). 8 MB would
    // save about 5% of the CPU (fewer scavenges: each chunk's half-MB strings are allocated young) but costs
    // 10-20 MB of peak RSS, over the 150 MB target.
    const worker = new Worker(this.script, { stdout: false, stderr: false, resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 96 } });
    const slot: Slot = { worker, busy: null, idle: null };
    worker.on('message', (m: { id: number; ok: true; result: LogEntryResult } | { id: number; ok: false; error: { code: ErrorCode; message: string } }) => {
      const job = slot.busy;
      if (!job || job.id !== m.id) return;
      this.finish(slot, job);
      if (m.ok) job.resolve(m.result);
      else job.reject(new WindeckError(m.error.code, m.error.message));
    });
    const fail = (error: unknown) => {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      const job = slot.busy;
      if (job) {
        this.finish(slot, job);
        job.reject(new PoolFailure(`the redaction worker failed: ${error instanceof Error ? error.message : String(error)}`));
      }
      this.pump();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.slots.includes(slot)) fail(new Error(`exited with code ${code}`));
    });
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  private finish(slot: Slot, job: Pending): void {
    slot.busy = null;
    slot.worker.unref();
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = setTimeout(() => {
      const i = this.slots.indexOf(slot);
      if (slot.busy !== null || i < 0) return;
      this.slots.splice(i, 1);
      void slot.worker.terminate();
    }, IDLE_EXIT_MS);
    slot.idle.unref();
    if (job.signal && job.onAbort) job.signal.removeEventListener('abort', job.onAbort);
    queueMicrotask(() => this.pump());
  }
}

/** Find or build the worker program; null when there is none. */
function workerScript(): string | null {
  const override = process.env.WINDECK_REDACT_WORKER;
  if (override) return fs.existsSync(override) ? override : null;
  let here: string;
  try {
    here = fileURLToPath(import.meta.url);
  } catch {
    return null;
  }
  const dir = path.dirname(here);
  for (const candidate of [path.join(dir, 'redact-worker.js'), path.join(dir, 'redact-worker.mjs'), path.join(dir, '..', 'redact-worker.js')]) {
    if (fs.existsSync(candidate)) return candidate;
  }
  // From the TypeScript sources: bundle the worker once per source version.
  const source = path.join(dir, 'redact-worker.ts');
  if (!here.endsWith('.ts') || !fs.existsSync(source)) return null;
  try {
    const root = path.resolve(dir, '..', '..', '..');
    const stamp = crypto.createHash('sha256');
    for (const f of ['redact-worker.ts', 'entry-pipeline.ts', 'scan.ts']) stamp.update(fs.readFileSync(path.join(dir, f)));
    for (const f of [
      'redact.ts',
      'redact-patterns.ts',
      'redact-codec.ts',
      'redact-scan.ts',
      'redact-scan-wasm.ts',
      'redact-scan-kernel.ts',
      'redact-pseudonyms.ts',
    ])
      stamp.update(fs.readFileSync(path.join(root, 'shared', 'logic', f)));
    const out = path.join(root, 'node_modules', '.cache', 'windeck', `redact-worker-${stamp.digest('hex').slice(0, 16)}.mjs`);
    if (fs.existsSync(out)) return out;
    const require = createRequire(path.join(root, 'package.json'));
    const esbuild = require('esbuild') as { buildSync: (o: object) => unknown };
    const temp = `${out}.${process.pid}.tmp`;
    esbuild.buildSync({
      entryPoints: [source],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outfile: temp,
      logLevel: 'silent',
      banner: { js: "import { createRequire as __windeckCreateRequire } from 'node:module'; const require = __windeckCreateRequire(import.meta.url);" },
    });
    fs.renameSync(temp, out);
    return out;
  } catch {
    return null;
  }
}

let shared: RedactPool | null | undefined;

/** The process-wide pool, or null when no worker program is available (or `WINDECK_REDACT_WORKERS=0`). */
export function redactPool(): RedactPool | null {
  if (shared !== undefined) return shared;
  const wanted = process.env.WINDECK_REDACT_WORKERS;
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  const size = Math.max(0, Math.min(BUNDLE_REDACT_WORKERS_MAX, wanted !== undefined && wanted !== '' ? Number(wanted) : cores));
  const script = size > 0 ? workerScript() : null;
  shared = script ? new RedactPool(script, size) : null;
  return shared;
}
