import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { WindeckError } from '../../../shared/contract/errors';
import type {
  BundleError,
  BundleExportResult,
  BundleFile,
  BundleManifest,
  BundlePreview,
  CollectSpec,
  RedactionLevel,
} from '../../../shared/contract/methods/bundles';
import { BUNDLE_COLLECT_TIMEOUT_MS, BUNDLE_DEFAULT_SINCE_MS, BUNDLE_RETRY_POLL_MS } from '../../../shared/domain/limits';
import { redactText } from '../../../shared/logic/redact';
import { PseudonymTable } from '../../../shared/logic/redact-pseudonyms';
import type { ServiceCore } from '../create-services';
import type { StartedOperation } from '../operations/runner';
import { ProbeResultsRepo } from '../store/repos/probe-results';
import { controlPlaneLines } from '../report/facts';
import { collectToStage, type CollectDeps, type CollectResult } from './collect';
import { BundleJobsRepo, type BundleJob } from './jobs';
import { buildManifest } from './manifest';
import { buildPreview } from './preview';
import { LiveClusterSource, liveHostSource, type ClusterSnapshotSource, type NodeHostSource } from './sources';
import { BundleStage } from './stage';
import { writeBundleDir, writeBundleZip } from './zip';

/**
 * Bundles as operations (DESIGN.md sections 6 and 8): preview (collect into a private staging area and show what
 * was redacted where), export (a previewed staging area or a fresh collection, to a zip or a folder), and the
 * retry jobs for nodes that dropped out. One per services instance: `bundleService(core)`.
 */

/** `30m`, `2h`, `1d`, `90s` -> milliseconds. */
export function parseSince(text: string | undefined): number {
  if (!text) return BUNDLE_DEFAULT_SINCE_MS;
  const m = /^(\d{1,6})([smhd])$/.exec(text.trim());
  if (!m) throw new WindeckError('VALIDATION', `--since takes a duration such as 30m, 2h or 1d, not "${text}".`);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}

/** Output kind from the path: a folder when it ends with a separator or is an existing folder, else a `.zip`. */
export async function outputKind(output: string): Promise<{ kind: 'zip' | 'dir'; path: string }> {
  const abs = path.resolve(output);
  if (/[\\/]$/.test(output)) return { kind: 'dir', path: abs };
  const st = await fsp.stat(abs).catch(() => null);
  if (st?.isDirectory()) return { kind: 'dir', path: abs };
  if (!/\.zip$/i.test(abs)) throw new WindeckError('VALIDATION', `-o must name a .zip file or a folder ending in "/", not "${output}".`, { path: abs });
  return { kind: 'zip', path: abs };
}

interface PreviewEntry {
  stage: BundleStage;
  spec: CollectSpec;
  result: CollectResult;
  expiresAt: number;
  clusterId: string | null;
}

export interface BundleServiceOptions {
  /** Replace the live sources (tests: an in-test NodeTransport, a recorded cluster). */
  sources?: (spec: CollectSpec) => { cluster: ClusterSnapshotSource; hosts: NodeHostSource | null; dispose?: () => void };
  /** Run the retry worker on a timer (default true; tests call `retryDue()` themselves). */
  retryTimer?: boolean;
  scriptDirs?: string[];
  maxPartBytes?: number;
}

const PREVIEW_TTL_MS = 60 * 60_000;

export class BundleService {
  readonly jobs: BundleJobsRepo;
  private readonly previews = new Map<string, PreviewEntry>();
  private timer: NodeJS.Timeout | null = null;
  private retrying: Promise<void> | null = null;
  private disposed = false;

  constructor(
    private readonly core: ServiceCore,
    private readonly options: BundleServiceOptions = {},
  ) {
    this.jobs = new BundleJobsRepo(core.store.db);
    this.jobs.requeueStale(core.clock.now(), BUNDLE_COLLECT_TIMEOUT_MS);
    if (options.retryTimer !== false && !core.offline) {
      this.timer = setInterval(() => void this.retryDue().catch((e) => core.log.warn('bundle retry failed', { error: String(e) })), BUNDLE_RETRY_POLL_MS);
      this.timer.unref();
    }
  }

  private sources(spec: CollectSpec): { cluster: ClusterSnapshotSource; hosts: NodeHostSource | null; dispose?: () => void } {
    if (this.options.sources) return this.options.sources(spec);
    const offline = spec.offline === true || this.core.offline;
    const target = { cluster: spec.cluster, kubeconfig: spec.kubeconfig, context: spec.context };
    const cluster = new LiveClusterSource(this.core, target, offline);
    return { cluster, hosts: offline ? null : liveHostSource(this.core, { ...target, transport: spec.transport }), dispose: () => cluster.dispose() };
  }

  private stagingParent(): string {
    return path.join(this.core.home, 'bundles', 'staging');
  }

  /** Collect into `stage` (the shared part of preview and export). */
  private async collect(
    spec: CollectSpec,
    stage: BundleStage,
    signal: AbortSignal,
    progress: (p: { step?: { index: number; count: number; title: string }; fraction?: number | null; message?: string }) => void,
  ): Promise<{ result: CollectResult; clusterId: string | null }> {
    const since = parseSince(spec.since);
    const { cluster, hosts, dispose } = this.sources(spec);
    try {
      const clusterId = cluster.info.clusterId;
      const deps: CollectDeps = {
        cluster,
        hosts,
        probeResults: new ProbeResultsRepo(this.core.store.db),
        now: () => this.core.clock.now(),
        toolVersion: this.core.version,
        controlPlane: clusterId ? controlPlaneLines(this.core.repos.nodes.listModels(clusterId)) : [],
        ...(this.options.scriptDirs ? { scriptDirs: this.options.scriptDirs } : {}),
      };
      const result = await collectToStage({ nodes: [...new Set(spec.nodes)], sinceEpochMs: this.core.clock.now() - since, level: spec.redact }, stage, deps, {
        signal,
        progress: (p) => progress(p),
      });
      if (clusterId) this.core.changed(['probes'], clusterId);
      return { result, clusterId };
    } finally {
      dispose?.();
    }
  }

  private table(level: RedactionLevel): PseudonymTable | null {
    return level === 'strict' ? new PseudonymTable(() => crypto.randomBytes(4).readUInt32LE(0)) : null;
  }

  /** Errors and cluster info as they go into the manifest: redacted with the bundle's pseudonyms too. */
  private manifestFactory(stage: BundleStage, result: CollectResult): (files: BundleFile[], part?: { index: number; count: number }) => BundleManifest {
    const opts = { level: stage.level, pseudonyms: stage.pseudonyms };
    const clean = (s: string | null) => (s === null ? null : redactText(s, opts).text);
    const errors: BundleError[] = result.errors.map((e) => ({
      node: e.node === null ? null : (stage.pseudonyms?.host(e.node) ?? e.node),
      step: e.step,
      message: clean(e.message) ?? '',
    }));
    const created = new Date(this.core.clock.now());
    return (files, part) =>
      buildManifest({
        created,
        toolVersion: this.core.version,
        cluster: { context: clean(result.cluster.context), server: clean(result.cluster.server), kubernetesVersion: result.cluster.kubernetesVersion },
        nodes: result.bundleNodes,
        files,
        level: stage.level,
        counts: stage.counts,
        errors,
        ...(part ? { part } : {}),
      });
  }

  private async write(
    stage: BundleStage,
    result: CollectResult,
    output: string,
    signal: AbortSignal,
    keepStage: boolean,
  ): Promise<{ paths: string[]; manifest: BundleManifest }> {
    const target = await outputKind(output);
    const factory = this.manifestFactory(stage, result);
    const all = [...stage.records.values()].map((r) => ({ path: r.path, sha256: r.sha256, size: r.size }));
    if (target.kind === 'dir') {
      const manifest = factory(all);
      const written = await writeBundleDir(stage, target.path, manifest, { keepStage });
      return { paths: [written], manifest };
    }
    const zipped = await writeBundleZip(stage, target.path, factory, {
      signal,
      ...(this.options.maxPartBytes ? { maxPartBytes: this.options.maxPartBytes } : {}),
    });
    return { paths: zipped.paths, manifest: factory(all) };
  }

  private enqueueRetries(spec: CollectSpec, output: string, clusterId: string | null, result: CollectResult): Array<{ id: number; node: string }> {
    const out: Array<{ id: number; node: string }> = [];
    for (const r of result.retry) {
      const id = this.jobs.enqueue({
        clusterId,
        node: r.node,
        spec: { spec: { ...spec, nodes: [r.node] }, output: path.resolve(output), missing: r.steps, reason: r.reason },
        now: this.core.clock.now(),
      });
      out.push({ id, node: r.node });
    }
    if (out.length) this.core.changed(['bundles'], clusterId);
    return out;
  }

  /** Collect and keep the staged result for `bundles:export { previewId }`. */
  startPreview(spec: CollectSpec, signal?: AbortSignal): StartedOperation<BundlePreview> {
    this.pruneExpired();
    return this.core.ops.start(
      {
        kind: 'collect',
        title: `Preview bundle of ${spec.nodes.join(', ')}`,
        timeoutMs: BUNDLE_COLLECT_TIMEOUT_MS,
        ...(spec.nodes.length === 1 ? { node: spec.nodes[0] } : {}),
        ...(signal ? { signal } : {}),
      },
      async (op) => {
        const stage = await BundleStage.create(this.stagingParent(), { level: spec.redact, pseudonyms: this.table(spec.redact) }, 'preview');
        try {
          const { result, clusterId } = await this.collect(spec, stage, op.signal, (p) => op.progress(p));
          const previewId = `pv-${Date.now().toString(36)}-${crypto.randomBytes(5).toString('hex')}`;
          const expiresAt = this.core.clock.now() + PREVIEW_TTL_MS;
          this.previews.set(previewId, { stage, spec, result, expiresAt, clusterId });
          return buildPreview({
            previewId,
            stage,
            level: spec.redact,
            nodes: result.bundleNodes,
            errors: this.manifestFactory(stage, result)([]).errors,
            expiresAt,
          });
        } catch (error) {
          await stage.remove();
          throw error;
        }
      },
    );
  }

  /** Write a bundle from a preview or a fresh collection. */
  startExport(
    request: { previewId?: string | undefined; spec?: CollectSpec | undefined; output: string },
    signal?: AbortSignal,
  ): StartedOperation<BundleExportResult> {
    const preview = request.previewId ? this.previews.get(request.previewId) : undefined;
    if (request.previewId && (!preview || preview.expiresAt < this.core.clock.now())) {
      throw new WindeckError('NOT_FOUND', `Preview ${request.previewId} is gone (expired or already exported); preview again.`);
    }
    const spec = preview?.spec ?? request.spec;
    if (!spec) throw new WindeckError('VALIDATION', 'Give a previewId or a collection spec.');
    return this.core.ops.start(
      {
        kind: 'collect',
        title: `Bundle of ${spec.nodes.join(', ')}`,
        timeoutMs: BUNDLE_COLLECT_TIMEOUT_MS,
        ...(spec.nodes.length === 1 ? { node: spec.nodes[0] } : {}),
        ...(signal ? { signal } : {}),
      },
      async (op) => {
        await outputKind(request.output);
        if (preview) {
          this.previews.delete(request.previewId!);
          try {
            op.progress({ step: { index: 0, count: 1, title: 'Writing the bundle' }, fraction: null });
            const written = await this.write(preview.stage, preview.result, request.output, op.signal, false);
            const retryJobs = this.enqueueRetries(spec, request.output, preview.clusterId, preview.result);
            return { paths: written.paths, manifest: written.manifest, retryJobs };
          } finally {
            await preview.stage.remove();
          }
        }
        const target = await outputKind(request.output);
        const parent = path.dirname(target.path);
        // A zip needs only the deflated copies of streamed logs (no plain staged copy); a folder needs the files.
        const stage = await BundleStage.create(parent, { level: spec.redact, pseudonyms: this.table(spec.redact), zipOnly: target.kind !== 'dir' });
        try {
          const { result, clusterId } = await this.collect(spec, stage, op.signal, (p) => op.progress(p));
          op.throwIfAborted();
          op.progress({ step: { index: 0, count: 1, title: 'Writing the bundle' }, fraction: null });
          const written = await this.write(stage, result, request.output, op.signal, false);
          const retryJobs = this.enqueueRetries(spec, request.output, clusterId, result);
          return { paths: written.paths, manifest: written.manifest, retryJobs };
        } finally {
          await stage.remove();
        }
      },
    );
  }

  /** Name of a retry bundle next to the original: `x.zip` -> `x.retry-<node>-<time>.zip`; folders likewise. */
  static retryOutput(original: string, node: string, now: number): string {
    const stamp = new Date(now)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    const safe = node.replace(/[^A-Za-z0-9._-]/g, '_');
    if (/\.zip$/i.test(original)) return original.replace(/\.zip$/i, `.retry-${safe}-${stamp}.zip`);
    return `${original.replace(/[\\/]+$/, '')}.retry-${safe}-${stamp}${path.sep}`;
  }

  /**
   * Run due retry jobs: each first checks that the node answers (opening a transport); if it does, the node is
   * collected into a bundle next to the original; if not, the job is rescheduled with backoff.
   */
  async retryDue(): Promise<BundleJob[]> {
    if (this.retrying) await this.retrying;
    const touched: BundleJob[] = [];
    let release: () => void = () => undefined;
    this.retrying = new Promise((r) => (release = r));
    try {
      for (const job of this.jobs.due(this.core.clock.now())) {
        if (this.disposed) break;
        if (!this.jobs.claim(job.id, this.core.clock.now())) continue;
        const spec = job.spec.spec;
        const { hosts, dispose } = this.sources(spec);
        let reachable = false;
        try {
          if (hosts) {
            const t = await hosts.open(job.node, AbortSignal.timeout(60_000));
            reachable = true;
            await t.close().catch(() => undefined);
          }
        } catch (error) {
          this.jobs.reschedule(job.id, (error as Error).message ?? String(error), this.core.clock.now());
        } finally {
          dispose?.();
        }
        if (!hosts) this.jobs.reschedule(job.id, 'offline: nodes are not contacted', this.core.clock.now());
        if (!reachable) {
          touched.push(this.jobs.get(job.id)!);
          continue;
        }
        const output = BundleService.retryOutput(job.spec.output, job.node, this.core.clock.now());
        try {
          const started = this.startExport({ spec, output });
          const result = await started.done;
          if (result.manifest.status === 'incomplete' && result.manifest.errors.some((e) => e.node !== null)) {
            this.jobs.reschedule(job.id, result.manifest.errors.map((e) => e.message).join('; '), this.core.clock.now());
          } else this.jobs.finish(job.id, 'done', { result: { paths: result.paths } }, this.core.clock.now());
        } catch (error) {
          this.jobs.reschedule(job.id, (error as Error).message ?? String(error), this.core.clock.now());
        }
        touched.push(this.jobs.get(job.id)!);
        this.core.changed(['bundles'], job.clusterId, job.node);
      }
    } finally {
      this.retrying = null;
      release();
    }
    return touched;
  }

  private pruneExpired(): void {
    const now = this.core.clock.now();
    for (const [id, p] of this.previews) {
      if (p.expiresAt < now) {
        this.previews.delete(id);
        void p.stage.remove();
      }
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.retrying) await this.retrying.catch(() => undefined);
    await Promise.all([...this.previews.values()].map((p) => p.stage.remove()));
    this.previews.clear();
  }
}

export function bundleService(core: ServiceCore): BundleService {
  return core.lazy('bundles.service', (c) => new BundleService(c));
}
