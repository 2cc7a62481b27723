import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WindeckError } from '../../shared/contract/errors';
import type { ClusterContexts, ConsoleSourceInfo, KubeContext } from '../../shared/contract/methods/clusters';
import type { ClusterSummary } from '../../shared/domain/cluster';
import type { ServiceCore, Services } from './create-services';
import { listKubeContexts, validateKubeconfigPath } from './kube/contexts';
import { kubeInventory, type KubeTarget } from './kube/inventory';
import { startDemo, type RunningDemo } from './kube/demo';
import { processAlive } from './lib/process-alive';

export interface ConsoleSource {
  kind: 'live' | 'demo' | 'stored';
  /** One sentence for the user: what the console shows and why. */
  message: string;
  /** Set for the demo: its console-independent kubeconfig. */
  kubeconfig?: string;
}

/** Settings key of the kubeconfig files the user added (absolute paths; the files are not copied). */
export const ADDED_KUBECONFIGS_KEY = 'kubeconfigFiles';
/** Settings key of the cluster the user last switched the live source to (`clusters:select`). */
export const CONSOLE_SELECTION_KEY = 'consoleSelection';

/** Whether kubectl would find a kubeconfig: KUBECONFIG entries that exist, else ~/.kube/config. */
export function kubeconfigPresent(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): boolean {
  if (env.KUBECONFIG) return env.KUBECONFIG.split(path.delimiter).some((p) => p !== '' && fs.existsSync(p));
  return fs.existsSync(path.join(home, '.kube', 'config'));
}

/**
 * What the console syncs live, and the switching between kubeconfig contexts (`clusters:*` methods). One per
 * services instance. Only one cluster is kept live at a time; the store keeps the data of every cluster (the others
 * show as stale with their age).
 */
export class ConsoleSources {
  /** The demo this manager started (the desktop window without a kubeconfig); stopped when switching away. */
  private demo: RunningDemo | null = null;
  private note: string | null = null;
  /** Serializes switches so two quick clicks cannot leave two live syncs. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly core: ServiceCore) {}

  private get env(): NodeJS.ProcessEnv {
    return this.core.config.env ?? process.env;
  }

  private get inventory() {
    return kubeInventory(this.core);
  }

  /** Kubeconfig files the user added, in the order added. */
  addedFiles(): string[] {
    const v = this.core.repos.settings.get<unknown>(ADDED_KUBECONFIGS_KEY);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  }

  private listing() {
    return listKubeContexts({ env: this.env, added: this.addedFiles(), approvals: this.inventory.approvals });
  }

  source(): ConsoleSourceInfo {
    const live = this.inventory.liveClusterIds();
    if (this.demo && live.includes(this.demo.clusterId))
      return { kind: 'demo', clusterId: this.demo.clusterId, message: 'Showing the built-in SIMULATED demo cluster, synced live.' };
    const id = live[0] ?? null;
    if (id) {
      const c = this.core.repos.clusters.get(id);
      return { kind: 'live', clusterId: id, message: `Syncing context "${c?.context ?? id}" live into the store.` };
    }
    return { kind: 'stored', clusterId: null, message: this.note ?? 'No cluster is synced live: the console shows stored data only.' };
  }

  contexts(): ClusterContexts {
    const { files, entries } = this.listing();
    return { files, contexts: entries.map((e) => e.context), activeCluster: this.core.repos.settings.get<string>('activeCluster'), source: this.source() };
  }

  /** Validate and remember a kubeconfig file (the path only). Returns its contexts. */
  addKubeconfig(input: string): { path: string; contexts: KubeContext[] } {
    const { path: file } = validateKubeconfigPath(input, this.env);
    const added = this.addedFiles();
    if (!added.includes(file)) this.core.repos.settings.set(ADDED_KUBECONFIGS_KEY, [...added, file]);
    this.core.changed(['settings', 'clusters']);
    const contexts = this.listing()
      .entries.filter((e) => e.context.kubeconfigPath === file || e.target.kubeconfig === file)
      .map((e) => e.context);
    return { path: file, contexts };
  }

  removeKubeconfig(input: string): { removed: boolean } {
    const file = path.normalize(input.trim());
    const added = this.addedFiles();
    if (!added.includes(file)) return { removed: false };
    this.core.repos.settings.set(
      ADDED_KUBECONFIGS_KEY,
      added.filter((f) => f !== file),
    );
    this.core.changed(['settings', 'clusters']);
    return { removed: true };
  }

  /** The target that reaches a cluster id: a known kubeconfig context first, else the stored cluster's kubeconfig. */
  targetFor(clusterId: string): KubeTarget {
    const entry = this.listing().entries.find((e) => e.context.clusterId === clusterId);
    if (entry) {
      if (entry.context.problem && !entry.context.exec)
        throw new WindeckError('VALIDATION', entry.context.problem, { cluster: entry.context.name, path: entry.context.kubeconfigPath });
      return entry.target;
    }
    const stored = this.core.repos.clusters.get(clusterId);
    if (stored?.kubeconfigPath) return { kubeconfig: stored.kubeconfigPath, context: stored.context };
    throw new WindeckError('NOT_FOUND', `No kubeconfig context or stored cluster "${clusterId}". Add its kubeconfig file first.`, { cluster: clusterId });
  }

  private checkOnline(what: string): void {
    if (this.core.offline) throw new WindeckError('UNSUPPORTED', `This Windeck runs with --offline: it does not ${what}. Restart it without --offline.`);
  }

  /** Throws PERMISSION_DENIED (step exec-approval) with what to run when the context's exec plugin is not approved. */
  private checkExecApproved(target: KubeTarget): void {
    const exec = this.inventory.execPlugin(target);
    if (!exec || exec.approved) return;
    const flags = `${target.kubeconfig ? ` --kubeconfig ${target.kubeconfig}` : ''}${target.context ? ` --context ${target.context}` : ''}`;
    throw new WindeckError(
      'PERMISSION_DENIED',
      `Context "${exec.ctx.contextName}" gets its credentials from the plugin ${exec.fingerprint.path} ${exec.fingerprint.args.join(' ')}`.trimEnd() +
        ` (sha256 ${exec.fingerprint.sha256.slice(0, 16)}...). Windeck runs a credential plugin only after you approve that exact command: run \`windeck nodes --approve-exec${flags}\` in a terminal with the same data directory, then switch again.`,
      { cluster: exec.ctx.contextName, path: exec.ctx.sourceFile, step: 'exec-approval' },
    );
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Switch the live source: stop every other live sync (and a demo this manager started), start a live list+watch of
   * the cluster's context, and make it the active cluster. Returns at once; the sync state follows in `store:changed`.
   */
  select(clusterId: string): Promise<{ cluster: ClusterSummary; source: ConsoleSourceInfo }> {
    return this.serial(async () => {
      this.checkOnline('connect to clusters');
      const target = this.targetFor(clusterId);
      const { ctx, clusterId: resolvedId } = this.inventory.resolve(target);
      this.checkExecApproved(target);
      for (const id of this.inventory.liveClusterIds()) if (id !== resolvedId) await this.inventory.stopLive(id);
      if (this.demo && this.demo.clusterId !== resolvedId) {
        const demo = this.demo;
        this.demo = null;
        await demo.stop();
      }
      this.inventory.startLive(target);
      this.note = null;
      this.core.repos.settings.set('activeCluster', resolvedId);
      this.core.repos.settings.set(CONSOLE_SELECTION_KEY, resolvedId);
      this.core.log.info('console source switched', { context: ctx.contextName });
      this.core.changed(['clusters', 'settings'], resolvedId);
      const cluster = this.core.repos.clusters.get(resolvedId);
      if (!cluster) throw new WindeckError('INTERNAL', `Cluster "${ctx.contextName}" was not recorded in the store.`);
      return { cluster, source: this.source() };
    });
  }

  /**
   * List the cluster again now, as an operation. A failing live watch of it is restarted after a good list; a cluster
   * nobody watches is marked stale afterwards (with the new sync time), since nothing keeps it current.
   */
  sync(clusterId: string): { operationId: string } {
    this.checkOnline('connect to clusters');
    const target = this.targetFor(clusterId);
    const { operationId, done } = this.inventory.syncOperation(target);
    done.then(
      (result) => {
        const live = this.inventory.liveOf(result.clusterId);
        // Listed just now, but no watch keeps it current: stale, with the new sync time.
        if (!live) {
          this.core.repos.clusters.setSync(result.clusterId, 'stale', { error: null });
          this.core.changed(['clusters'], result.clusterId);
        }
        if (live && Object.values(live.reflectors).some((r) => r.state === 'failed' || r.state === 'backoff')) {
          void this.serial(async () => {
            await this.inventory.stopLive(result.clusterId);
            this.inventory.startLive(target);
          }).catch((error: unknown) => this.core.log.warn('live restart failed', { error: String(error) }));
        }
      },
      () => undefined,
    );
    return { operationId };
  }

  /** Forget a cluster's stored data; `confirm` must be its name. Audit and operation history stay. */
  async remove(clusterId: string, confirm: string): Promise<{ removed: string }> {
    const cluster = this.core.repos.clusters.get(clusterId);
    if (!cluster) throw new WindeckError('NOT_FOUND', `No cluster "${clusterId}" in the store.`, { cluster: clusterId });
    if (confirm !== cluster.name)
      throw new WindeckError('VALIDATION', `To forget the stored data of "${cluster.name}", confirm with its exact name.`, { cluster: cluster.name });
    const demo = this.core.repos.settings.get<{ kubeconfig?: string; pid?: number }>('demo');
    if (cluster.simulated && demo?.kubeconfig && demo.kubeconfig === cluster.kubeconfigPath && demo.pid && processAlive(demo.pid)) {
      throw new WindeckError('CONFLICT', `The demo cluster "${cluster.name}" is running (pid ${demo.pid}); stop the demo first.`, { cluster: cluster.name });
    }
    await this.serial(() => this.inventory.stopLive(clusterId));
    const db = this.core.store.db;
    db.transaction(() => {
      for (const table of ['nodes', 'pods', 'kube_events', 'daemonsets', 'workloads', 'inventory_status', 'findings', 'probe_results']) {
        db.prepare(`DELETE FROM ${table} WHERE cluster_id = ?`).run(clusterId);
      }
      this.core.repos.clusters.remove(clusterId);
      if (this.core.repos.settings.get<string>('activeCluster') === clusterId) this.core.repos.settings.delete('activeCluster');
    })();
    this.core.changed(['clusters', 'nodes', 'pods', 'events', 'findings', 'probes', 'settings'], clusterId);
    return { removed: clusterId };
  }

  /**
   * The context the user last switched to, when it can still be reached through a known kubeconfig (hosts reopen on
   * it). Null for none, for the demo (its kubeconfig is recreated at each start), and when it no longer resolves.
   */
  rememberedTarget(): KubeTarget | null {
    const id = this.core.repos.settings.get<string>(CONSOLE_SELECTION_KEY);
    if (!id || this.core.repos.clusters.get(id)?.simulated) return null;
    try {
      const target = this.targetFor(id);
      return this.inventory.resolve(target).clusterId === id ? target : null;
    } catch {
      return null;
    }
  }

  /** Adopt a demo this host started: it is stopped when the user switches to another cluster, and at shutdown. */
  adoptDemo(demo: RunningDemo): void {
    this.demo = demo;
  }

  /** Remember why nothing is live (shown in `clusters:contexts`). */
  setNote(note: string | null): void {
    this.note = note;
  }

  async dispose(): Promise<void> {
    const demo = this.demo;
    this.demo = null;
    if (demo) await demo.stop();
  }
}


/** The per-services singleton. */
export function consoleSources(core: ServiceCore): ConsoleSources {
  return core.lazy('console.sources', (c) => new ConsoleSources(c));
}

/**
 * Start the live sync of a kubeconfig context for a console host (`windeck serve`, the desktop window). A context
 * that cannot be used is reported (and remembered for `clusters:contexts`); the console then shows stored data.
 */
export function startLiveSource(core: ServiceCore, target: KubeTarget): ConsoleSource & { warnings: string[] } {
  const sources = consoleSources(core);
  const inventory = kubeInventory(core);
  // No context named on the command line: reopen on the one the user switched to last (when it still resolves).
  if (!target.kubeconfig && !target.context) target = sources.rememberedTarget() ?? target;
  try {
    const { ctx, clusterId } = inventory.resolve(target);
    inventory.startLive(target);
    core.repos.settings.set('activeCluster', clusterId);
    sources.setNote(null);
    return { kind: 'live', message: `Syncing context "${ctx.contextName}" live into the store.`, warnings: [...ctx.warnings] };
  } catch (error) {
    const message = `No live cluster sync: ${(error as Error).message} The console shows stored data only.`;
    sources.setNote(message);
    return { kind: 'stored', message, warnings: [] };
  }
}

/**
 * What a console host (the desktop window, `npm start`) shows: a live list+watch of the kubeconfig's context when
 * there is a kubeconfig, else the built-in SIMULATED demo cluster (DESIGN.md sections 1 and 9), whose Windows nodes
 * are diagnosed in the background so their planted problems show without a click. The demo stops with the services,
 * or when the user switches to another cluster (`clusters:select`).
 */
export async function startConsoleSource(
  services: Services,
  options: { kubeconfig?: string | null; context?: string | null; env?: NodeJS.ProcessEnv } = {},
): Promise<ConsoleSource> {
  const { core } = services;
  const env = options.env ?? process.env;
  if (options.kubeconfig || kubeconfigPresent(env) || (!options.context && consoleSources(core).rememberedTarget())) {
    const { warnings: _warnings, ...source } = startLiveSource(core, { kubeconfig: options.kubeconfig ?? null, context: options.context ?? null });
    return source;
  }
  const demo = await startDemo(core);
  consoleSources(core).adoptDemo(demo);
  for (const n of demo.nodes) if (n.os === 'windows') void services.dispatch('diagnose:node', { node: n.name });
  return {
    kind: 'demo',
    message: 'No kubeconfig found (KUBECONFIG, ~/.kube/config): showing the built-in SIMULATED demo cluster.',
    kubeconfig: demo.kubeconfig,
  };
}
