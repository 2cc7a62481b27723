import crypto from 'node:crypto';
import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { WindeckError, isWindeckError } from '../../../shared/contract/errors';
import type { Finding } from '../../../shared/domain/finding';
import { INVENTORY_FLUSH_INTERVAL_MS, INVENTORY_LIVE_STAMP_INTERVAL_MS, INVENTORY_SYNC_TIMEOUT_MS } from '../../../shared/domain/limits';
import type { NodeModel, NodeSummary } from '../../../shared/domain/node';
import { toNodeModel, type NodeObject } from '../../../shared/logic/node-model';
import type { EndpointSliceObject, ServiceObject } from '../../../shared/rules/cluster/cluster-facts';
import { evaluateClusterRules, WORKLOAD_RULES, CLUSTER_RULES } from '../../../shared/rules/cluster/cluster-rules';
import type { ServiceCore } from '../create-services';
import type { Clock } from '../lib/clock';
import { clusterIdFor } from '../store/repos/clusters';
import { DaemonSetsRepo } from '../store/repos/daemonsets';
import { ExecApprovalsRepo } from '../store/repos/exec-approvals';
import { InventoryStatusRepo } from '../store/repos/inventory-status';
import { KubeEventsRepo } from '../store/repos/kube-events';
import { PodsRepo } from '../store/repos/pods';
import { WorkloadsRepo } from '../store/repos/workloads';
import { KubeClient, KubeStatusError, type VersionInfo } from './client';
import { fingerprintExec, type ExecFingerprint } from './exec-credential';
import { loadKubeconfig, resolveContext, type ResolvedContext } from './kubeconfig';
import {
  daemonSetKey,
  eventKey,
  nodeKey,
  podKey,
  projectBarePod,
  projectDaemonSet,
  projectEvent,
  projectNode,
  projectPod,
  projectWorkload,
  type DaemonSetProjection,
  type EventProjection,
  type PodProjection,
} from './projections';
import { Reflector, type ReflectorChange, type ReflectorState } from './reflector';
import { processAlive } from '../lib/process-alive';

/** Which cluster: a kubeconfig (default: KUBECONFIG / ~/.kube/config) and a context (default: current). */
export interface KubeTarget {
  kubeconfig?: string | null;
  context?: string | null;
}

export interface SyncProgress {
  step: { index: number; count: number; title: string };
  fraction: number | null;
  message?: string;
}

export interface SyncResult {
  clusterId: string;
  context: string;
  server: string;
  kubernetesVersion: string;
  syncedAt: number;
  nodes: number;
  windowsNodes: number;
  pods: number;
  events: number;
  daemonSets: number;
  durationMs: number;
  /** Where the time went: API version, the paged lists, the store writes. */
  timings: { versionMs: number; listMs: number; writeMs: number };
  warnings: string[];
}

export interface LintResult {
  inputs: Array<{ path: string; kind: string }>;
  findings: Finding[];
  /** True when the data came from the store (the cluster did not answer). */
  fromStore: boolean;
  syncedAt: number | null;
  warnings: string[];
}

const RESOURCES = {
  nodes: '/api/v1/nodes',
  pods: '/api/v1/pods',
  events: '/api/v1/events',
  daemonsets: '/apis/apps/v1/daemonsets',
} as const;

/** Errors that mean "could not reach the cluster" (the store is then shown instead). */
export function isUnreachable(error: unknown): boolean {
  return isWindeckError(error) && ['UNREACHABLE', 'TIMEOUT'].includes((error as WindeckError).code);
}

/** Errors that mean "the cluster refused us" (bad credentials, RBAC, an exec plugin not approved or failing). */
export function isAuthFailure(error: unknown): boolean {
  return isWindeckError(error) && ['AUTH_FAILED', 'PERMISSION_DENIED'].includes((error as WindeckError).code);
}

/**
 * The cluster inventory service: resolves kubeconfig contexts, syncs nodes/pods/events/DaemonSets into the
 * store (once, as an operation, or live with watches), lints workloads, and keeps exec-plugin approvals.
 * One per services instance (`core.lazy('kube.inventory', ...)`).
 */
export class KubeInventory {
  readonly pods: PodsRepo;
  readonly events: KubeEventsRepo;
  readonly daemonSets: DaemonSetsRepo;
  readonly workloads: WorkloadsRepo;
  readonly approvals: ExecApprovalsRepo;
  readonly status: InventoryStatusRepo;
  private readonly live = new Map<string, LiveInventory>();

  constructor(private readonly core: ServiceCore) {
    const db = core.store.db;
    this.pods = new PodsRepo(db);
    this.events = new KubeEventsRepo(db);
    this.daemonSets = new DaemonSetsRepo(db);
    this.workloads = new WorkloadsRepo(db);
    this.approvals = new ExecApprovalsRepo(db, () => core.clock.now());
    this.status = new InventoryStatusRepo(db);
  }

  private get env(): NodeJS.ProcessEnv {
    return this.core.config.env ?? process.env;
  }

  /** Resolve the kubeconfig context and the store's cluster id for it. */
  resolve(target: KubeTarget): { ctx: ResolvedContext; clusterId: string } {
    const loaded = loadKubeconfig({ explicitPath: target.kubeconfig ?? null, env: this.env });
    const ctx = resolveContext(loaded, target.context ?? null);
    return { ctx, clusterId: clusterIdFor(ctx.sourceFile, ctx.contextName) };
  }

  /** The store's cluster id for a target without touching the network (null when the kubeconfig is unusable). */
  clusterIdOf(target: KubeTarget): string | null {
    try {
      return this.resolve(target).clusterId;
    } catch {
      return null;
    }
  }

  client(ctx: ResolvedContext): KubeClient {
    return new KubeClient(ctx, { approvals: this.approvals, env: this.env, userAgent: `windeck/${this.core.version}`, now: () => this.core.clock.now() });
  }

  /** Record the cluster in the store (keeps the `simulated` flag of an existing row unless given). */
  register(ctx: ResolvedContext, clusterId: string, simulated?: boolean): void {
    const existing = this.core.repos.clusters.get(clusterId);
    this.core.repos.clusters.upsert(
      { id: clusterId, name: ctx.contextName, context: ctx.contextName, server: ctx.server, kubeconfigPath: ctx.sourceFile, simulated: simulated ?? existing?.simulated ?? false },
      this.core.clock.now(),
    );
  }

  /** The exec plugin the context needs, fingerprinted (null when it needs none). */
  execPlugin(target: KubeTarget): { fingerprint: ExecFingerprint; approved: boolean; ctx: ResolvedContext } | null {
    const { ctx } = this.resolve(target);
    if (!ctx.exec) return null;
    const fingerprint = fingerprintExec(ctx.exec, this.env);
    return { fingerprint, approved: this.approvals.isApproved(fingerprint.fingerprint), ctx };
  }

  /** Approve the exact exec plugin the context names (the user saw its path, hash and arguments). */
  approveExec(target: KubeTarget): ExecFingerprint | null {
    const found = this.execPlugin(target);
    if (!found) return null;
    this.approvals.approve(found.fingerprint, { kubeconfig: found.ctx.sourceFile, user: found.ctx.userName });
    return found.fingerprint;
  }

  /** Sync once, as an `inventory-sync` operation (progress, cancel, timeout). */
  syncOperation(target: KubeTarget, options: { signal?: AbortSignal } = {}): { operationId: string; done: Promise<SyncResult> } {
    const { ctx, clusterId } = this.resolve(target);
    return this.core.ops.start({ kind: 'inventory-sync', title: `Sync cluster ${ctx.contextName}`, cluster: clusterId, steps: 4, timeoutMs: INVENTORY_SYNC_TIMEOUT_MS, ...(options.signal ? { signal: options.signal } : {}) }, (op) =>
      this.sync(target, { signal: op.signal, progress: (p) => op.progress(p) }),
    );
  }

  /**
   * One full sync: /version, then nodes, pods, events and DaemonSets listed in pages (in parallel), projected,
   * and written to the store; node models get pod counts and health. Updates the cluster's sync state
   * (`live` with syncedAt on success, `offline`/`error` with the reason on failure) and rethrows failures.
   */
  async sync(target: KubeTarget, options: { signal?: AbortSignal; progress?: (p: SyncProgress) => void } = {}): Promise<SyncResult> {
    const { ctx, clusterId } = this.resolve(target);
    const clock = this.core.clock;
    const started = clock.now();
    this.register(ctx, clusterId);
    this.core.repos.clusters.setSync(clusterId, 'syncing');
    this.core.changed(['clusters'], clusterId);
    const client = this.client(ctx);
    const progress = options.progress ?? (() => undefined);
    try {
      progress({ step: { index: 0, count: 4, title: 'API server version' }, fraction: null });
      const version = await client.version(options.signal ? { signal: options.signal } : {});
      const listStarted = clock.now();
      progress({ step: { index: 1, count: 4, title: 'Listing nodes, pods, events and DaemonSets' }, fraction: 0 });
      const make = <T>(resource: keyof typeof RESOURCES, project: (raw: unknown) => T | null, keyOf: (t: T) => string, onListProgress?: (n: number, rest: number | null) => void) =>
        new Reflector<T>({ client, path: RESOURCES[resource], resource, project, keyOf, clock, ...(onListProgress ? { onListProgress } : {}), log: this.core.log.child('kube') });
      const nodesR = make<NodeObject>('nodes', projectNode, nodeKey);
      const podsR = make<PodProjection>('pods', projectPod, podKey, (n, rest) => progress({ step: { index: 1, count: 4, title: 'Listing nodes, pods, events and DaemonSets' }, fraction: rest === null ? null : n / (n + rest), message: `${n} pods` }));
      const eventsR = make<EventProjection>('events', projectEvent, eventKey);
      const dsR = make<DaemonSetProjection>('daemonsets', projectDaemonSet, daemonSetKey);
      const signal = options.signal;
      const [nodes, pods, events, daemonSets] = await Promise.all([nodesR.listOnce(signal), podsR.listOnce(signal), eventsR.listOnce(signal), dsR.listOnce(signal)]);
      progress({ step: { index: 2, count: 4, title: 'Writing the store' }, fraction: null });
      const syncedAt = clock.now();
      const listMs = syncedAt - listStarted;
      const counts = new Map<string, number>();
      for (const p of pods.values()) if (p.node) counts.set(p.node, (counts.get(p.node) ?? 0) + 1);
      const models = [...nodes.values()].map((n) => toNodeModel(n, { podCount: counts.get(n.metadata?.name ?? '') ?? 0, syncedAt, kubernetesVersion: version.gitVersion }));
      this.core.repos.nodes.replaceAll(clusterId, models);
      this.pods.replaceAll(clusterId, pods.values());
      this.events.replaceAll(clusterId, events.values());
      this.daemonSets.replaceAll(clusterId, daemonSets.values());
      for (const [resource, r] of [
        ['nodes', nodesR],
        ['pods', podsR],
        ['events', eventsR],
        ['daemonsets', dsR],
      ] as const) {
        this.status.put({ clusterId, resource, state: 'synced', resourceVersion: r.stats.resourceVersion, items: r.stats.items, stats: { ...r.stats }, lastError: null, updatedAt: syncedAt });
      }
      progress({ step: { index: 3, count: 4, title: 'Cluster rules' }, fraction: null });
      this.storeClusterFindings(clusterId, version.gitVersion, models, syncedAt);
      this.core.repos.clusters.setSync(clusterId, 'live', { syncedAt, kubernetesVersion: version.gitVersion });
      this.core.changed(['clusters', 'nodes', 'pods', 'events', 'findings'], clusterId);
      return {
        clusterId,
        context: ctx.contextName,
        server: ctx.server,
        kubernetesVersion: version.gitVersion,
        syncedAt,
        nodes: models.length,
        windowsNodes: models.filter((m) => m.os === 'windows').length,
        pods: pods.size,
        events: events.size,
        daemonSets: daemonSets.size,
        durationMs: clock.now() - started,
        timings: { versionMs: listStarted - started, listMs, writeMs: clock.now() - syncedAt },
        warnings: [...ctx.warnings],
      };
    } catch (error) {
      const e = isWindeckError(error) ? (error as WindeckError) : new WindeckError('INTERNAL', String((error as Error)?.message ?? error));
      this.core.repos.clusters.setSync(clusterId, isUnreachable(e) ? 'offline' : isAuthFailure(e) ? 'auth-failed' : e.code === 'CANCELLED' ? 'stale' : 'error', { error: e.message });
      this.core.changed(['clusters'], clusterId);
      throw e;
    } finally {
      client.close();
    }
  }

  /** Node-level cluster rules (not-ready, build support, skew) from the synced models, stored as findings. */
  private storeClusterFindings(clusterId: string, serverVersion: string, models: NodeModel[], now: number): void {
    const nodeRules = CLUSTER_RULES.filter((r) => ['node-not-ready', 'windows-build-unsupported', 'version-skew'].includes(r.id));
    const { findings } = evaluateClusterRules({ serverVersion, nodes: models }, nodeRules);
    this.core.repos.findings.replaceForCluster(clusterId, 'cluster-rules', findings, now);
  }

  /** Stored node rows of a cluster (for offline output). */
  storedNodes(clusterId: string): NodeSummary[] {
    return this.core.repos.nodes.listSummaries(clusterId);
  }

  /**
   * Lint the workloads that can land on Windows nodes (WORKLOAD_RULES). Lists live and writes the projections
   * to the store; when the cluster does not answer (or `offline`), lints what the store holds.
   */
  async lint(target: KubeTarget, options: { namespace?: string | null; signal?: AbortSignal; offline?: boolean } = {}): Promise<LintResult> {
    const { ctx, clusterId } = this.resolve(target);
    const ns = options.namespace ?? null;
    const input = { path: `kubernetes-api:${ctx.contextName}${ns ? `/${ns}` : ''}`, kind: 'kubernetes-api' };
    const fromStore = (warning: string | null): LintResult => {
      const workloads = this.workloads.list(clusterId, ns);
      const syncedAt = this.workloads.syncedAt(clusterId);
      if (workloads.length === 0 && syncedAt === null) {
        throw new WindeckError('UNREACHABLE', `${warning ?? 'Offline'}, and the store holds no workloads for context "${ctx.contextName}" yet.`, { cluster: ctx.contextName });
      }
      const models = this.core.repos.nodes.listModels(clusterId);
      const cluster = this.core.repos.clusters.get(clusterId);
      const { findings } = evaluateClusterRules({ serverVersion: cluster?.kubernetesVersion ?? null, nodes: models, workloads }, WORKLOAD_RULES);
      return { inputs: [{ ...input, kind: 'store' }], findings, fromStore: true, syncedAt, warnings: warning ? [warning] : [] };
    };
    if (options.offline) return fromStore(null);
    this.register(ctx, clusterId);
    const client = this.client(ctx);
    const signal = options.signal;
    // Ten lists run at once, each listening for the abort.
    if (signal) setMaxListeners(64, signal);
    const nsPath = (group: string, plural: string) => `${group}${ns ? `/namespaces/${encodeURIComponent(ns)}` : ''}/${plural}`;
    const listAll = async <T>(p: string, project: (raw: unknown) => T | null, optional = false): Promise<T[]> => {
      const out: T[] = [];
      let cont: string | null = null;
      try {
        do {
          const page: Awaited<ReturnType<KubeClient['listPage']>> = await client.listPage(p, { limit: 500, continue: cont }, project, signal ? { signal } : {});
          out.push(...(page.items as T[]));
          cont = page.continue;
        } while (cont);
      } catch (error) {
        if (optional && error instanceof KubeStatusError && error.status === 404) return [];
        throw error;
      }
      return out;
    };
    try {
      const [version, nodes, deployments, daemonsets, statefulsets, jobs, cronjobs, pods, services, slices] = await Promise.all([
        client.version(signal ? { signal } : {}),
        listAll('/api/v1/nodes', projectNode),
        listAll(nsPath('/apis/apps/v1', 'deployments'), (r) => projectWorkload('Deployment', r)),
        listAll(nsPath('/apis/apps/v1', 'daemonsets'), (r) => projectWorkload('DaemonSet', r)),
        listAll(nsPath('/apis/apps/v1', 'statefulsets'), (r) => projectWorkload('StatefulSet', r)),
        listAll(nsPath('/apis/batch/v1', 'jobs'), (r) => projectWorkload('Job', r), true),
        listAll(nsPath('/apis/batch/v1', 'cronjobs'), (r) => projectWorkload('CronJob', r), true),
        listAll(nsPath('/api/v1', 'pods'), projectBarePod),
        listAll(nsPath('/api/v1', 'services'), (r) => projectService(r)),
        listAll(nsPath('/apis/discovery.k8s.io/v1', 'endpointslices'), (r) => projectSlice(r), true),
      ]);
      const now = this.core.clock.now();
      const models = nodes.map((n) => toNodeModel(n, { syncedAt: now, kubernetesVersion: version.gitVersion }));
      const workloads = [...deployments, ...daemonsets, ...statefulsets, ...jobs, ...cronjobs, ...pods];
      // The store keeps the whole-cluster view; a namespaced lint only refreshes when it saw everything.
      if (!ns) this.workloads.replaceAll(clusterId, workloads, now);
      const { findings } = evaluateClusterRules({ serverVersion: version.gitVersion, nodes: models, workloads, services, endpointSlices: slices }, WORKLOAD_RULES);
      if (!ns) this.core.repos.findings.replaceForCluster(clusterId, 'lint-workloads', findings, now);
      this.core.changed(['findings'], clusterId);
      return { inputs: [input], findings, fromStore: false, syncedAt: now, warnings: [...ctx.warnings] };
    } catch (error) {
      if (isUnreachable(error)) return fromStore((error as WindeckError).message);
      throw error;
    } finally {
      client.close();
    }
  }

  /** Start (or return) the live sync of a cluster: list + watch into the store until disposed. */
  startLive(target: KubeTarget, options: { clock?: Clock; flushIntervalMs?: number } = {}): LiveInventory {
    const { ctx, clusterId } = this.resolve(target);
    const existing = this.live.get(clusterId);
    if (existing && !existing.disposed) return existing;
    this.register(ctx, clusterId);
    this.core.repos.clusters.setSync(clusterId, 'syncing', { error: null });
    this.core.changed(['clusters'], clusterId);
    const live = new LiveInventory(this, this.core, ctx, clusterId, { clock: options.clock ?? this.core.clock, flushIntervalMs: options.flushIntervalMs ?? INVENTORY_FLUSH_INTERVAL_MS });
    live.start();
    this.live.set(clusterId, live);
    return live;
  }

  /** The running live sync of a cluster, if any. */
  liveOf(clusterId: string): LiveInventory | null {
    const l = this.live.get(clusterId);
    return l && !l.disposed ? l : null;
  }

  /** Clusters with a live sync running in this process. */
  liveClusterIds(): string[] {
    return [...this.live.entries()].filter(([, l]) => !l.disposed).map(([id]) => id);
  }

  /** Stop the live sync of a cluster (its stored data stays, marked stale). */
  async stopLive(clusterId: string): Promise<void> {
    const l = this.live.get(clusterId);
    this.live.delete(clusterId);
    if (l) {
      await l.dispose();
      this.core.changed(['clusters'], clusterId);
    }
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.live.values()].map((l) => l.dispose()));
    this.live.clear();
  }
}

// Services and EndpointSlices: only the fields the rules read.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function projectService(raw: any): ServiceObject | null {
  if (!raw?.metadata?.name) return null;
  return {
    metadata: { name: raw.metadata.name, namespace: raw.metadata.namespace ?? '' },
    spec: { type: raw.spec?.type, selector: raw.spec?.selector ?? null, sessionAffinity: raw.spec?.sessionAffinity, sessionAffinityConfig: raw.spec?.sessionAffinityConfig ?? null },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function projectSlice(raw: any): EndpointSliceObject | null {
  if (!raw?.metadata?.name) return null;
  return {
    metadata: { name: raw.metadata.name, namespace: raw.metadata.namespace ?? '', labels: raw.metadata.labels ?? {} },
    addressType: raw.addressType,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    endpoints: Array.isArray(raw.endpoints) ? raw.endpoints.map((e: any) => ({ addresses: e?.addresses ?? [], conditions: { ready: e?.conditions?.ready ?? null } })) : [],
  };
}

/**
 * A live list+watch of one cluster into the store. Changes are batched and written every `flushIntervalMs` in
 * short transactions; node rows are recomputed when the node or its pod count changes. Only one process holds
 * the live sync of a cluster (a lock file in WINDECK_HOME).
 */
export class LiveInventory {
  disposed = false;
  version: VersionInfo | null = null;
  readonly reflectors: { nodes: Reflector<NodeObject>; pods: Reflector<PodProjection>; events: Reflector<EventProjection>; daemonsets: Reflector<DaemonSetProjection> };
  private readonly client: KubeClient;
  private readonly clock: Clock;
  private flushTimer: { cancel(): void } | null = null;
  private readonly dirtyNodes = new Set<string>();
  private allNodes = false;
  private pods: { replace: boolean; upserts: Map<string, PodProjection>; deletes: Set<string> } = { replace: false, upserts: new Map(), deletes: new Set() };
  private events: { replace: boolean; upserts: Map<string, EventProjection>; deletes: Set<string> } = { replace: false, upserts: new Map(), deletes: new Set() };
  private dsDirty = false;
  private readonly podNode = new Map<string, string | null>();
  private readonly podCounts = new Map<string, number>();
  private lockFile: string | null = null;
  private readonly lastStatus = new Map<string, string>();

  constructor(
    private readonly inventory: KubeInventory,
    private readonly core: ServiceCore,
    readonly ctx: ResolvedContext,
    readonly clusterId: string,
    private readonly options: { clock: Clock; flushIntervalMs: number },
  ) {
    this.clock = options.clock;
    this.client = inventory.client(ctx);
    const log = core.log.child('kube');
    const onState = (resource: string) => (state: ReflectorState) => this.onState(resource, state);
    const common = { client: this.client, clock: this.clock, log };
    this.reflectors = {
      // Node events are coalesced: a node modified several times between two flushes is parsed and written once
      // (its newest state). `flush()` drains them; the reflector's own timer is only a backstop.
      nodes: new Reflector<NodeObject>({
        ...common,
        path: RESOURCES.nodes,
        resource: 'nodes',
        project: projectNode,
        keyOf: nodeKey,
        coalesceMs: options.flushIntervalMs * 2,
        onChange: (c) => this.onNodes(c),
        onState: onState('nodes'),
      }),
      pods: new Reflector<PodProjection>({ ...common, path: RESOURCES.pods, resource: 'pods', project: projectPod, keyOf: podKey, onChange: (c) => this.onPods(c), onState: onState('pods') }),
      events: new Reflector<EventProjection>({ ...common, path: RESOURCES.events, resource: 'events', project: projectEvent, keyOf: eventKey, onChange: (c) => this.onEvents(c), onState: onState('events') }),
      daemonsets: new Reflector<DaemonSetProjection>({ ...common, path: RESOURCES.daemonsets, resource: 'daemonsets', project: projectDaemonSet, keyOf: daemonSetKey, onChange: () => (this.dsDirty = true), onState: onState('daemonsets') }),
    };
  }

  private claimLock(): void {
    const dir = path.join(this.core.home, 'locks');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `live-${crypto.createHash('sha256').update(this.clusterId).digest('hex').slice(0, 16)}.lock`);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
        this.lockFile = file;
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const pid = Number(fs.readFileSync(file, 'utf8'));
        const alive = pid !== process.pid && processAlive(pid);
        if (alive) throw new WindeckError('CONFLICT', `Another Windeck process (pid ${pid}) already runs the live sync of context "${this.ctx.contextName}".`, { cluster: this.ctx.contextName });
        // A lock left by a process that is gone (or by this one): take it over.
        fs.rmSync(file, { force: true });
      }
    }
  }

  start(): void {
    try {
      this.claimLock();
    } catch (error) {
      this.disposed = true;
      this.client.close();
      throw error;
    }
    void this.client
      .version()
      .then((v) => {
        this.version = v;
        this.core.repos.clusters.setSync(this.clusterId, 'syncing', { kubernetesVersion: v.gitVersion });
        this.allNodes = true;
      })
      .catch(() => undefined);
    for (const r of Object.values(this.reflectors)) r.start();
    this.scheduleFlush();
  }

  /** Resolves when every resource finished its first list (rejects on an auth stop). */
  async synced(): Promise<void> {
    await Promise.all(Object.values(this.reflectors).map((r) => r.synced));
  }

  private onState(resource: string, state: ReflectorState): void {
    const r = this.reflectors[resource as keyof LiveInventory['reflectors']];
    this.inventory.status.put({ clusterId: this.clusterId, resource, state, resourceVersion: r.stats.resourceVersion, items: r.stats.items, stats: { ...r.stats }, lastError: r.stats.lastError, updatedAt: this.clock.now() });
    const states = Object.values(this.reflectors).map((x) => x.state);
    const failed = Object.values(this.reflectors).find((x) => x.state === 'failed');
    if (failed) this.core.repos.clusters.setSync(this.clusterId, isAuthFailure(failed.error) ? 'auth-failed' : 'error', { error: failed.error?.message ?? 'stopped' });
    else if (states.some((s) => s === 'backoff')) this.core.repos.clusters.setSync(this.clusterId, 'offline', { error: Object.values(this.reflectors).find((x) => x.state === 'backoff')?.stats.lastError ?? null });
    this.core.changed(['clusters'], this.clusterId);
  }

  private onNodes(change: ReflectorChange<NodeObject>): void {
    if (change.type === 'replace') this.allNodes = true;
    else this.dirtyNodes.add(change.key);
  }

  private bump(node: string | null, delta: number): void {
    if (!node) return;
    this.podCounts.set(node, (this.podCounts.get(node) ?? 0) + delta);
    this.dirtyNodes.add(node);
  }

  private onPods(change: ReflectorChange<PodProjection>): void {
    if (change.type === 'replace') {
      this.podNode.clear();
      this.podCounts.clear();
      for (const [k, p] of change.items) {
        this.podNode.set(k, p.node);
        if (p.node) this.podCounts.set(p.node, (this.podCounts.get(p.node) ?? 0) + 1);
      }
      this.pods = { replace: true, upserts: new Map(), deletes: new Set() };
      this.allNodes = true;
      return;
    }
    const before = this.podNode.get(change.key) ?? null;
    if (change.type === 'delete') {
      this.podNode.delete(change.key);
      this.bump(before, -1);
      this.pods.upserts.delete(change.key);
      this.pods.deletes.add(change.key);
    } else {
      const now = change.item.node;
      if (!this.podNode.has(change.key)) this.bump(now, 1);
      else if (before !== now) {
        this.bump(before, -1);
        this.bump(now, 1);
      }
      this.podNode.set(change.key, now);
      this.pods.deletes.delete(change.key);
      this.pods.upserts.set(change.key, change.item);
    }
  }

  private onEvents(change: ReflectorChange<EventProjection>): void {
    if (change.type === 'replace') this.events = { replace: true, upserts: new Map(), deletes: new Set() };
    else if (change.type === 'delete') {
      this.events.upserts.delete(change.key);
      this.events.deletes.add(change.key);
    } else {
      this.events.deletes.delete(change.key);
      this.events.upserts.set(change.key, change.item);
    }
  }

  private scheduleFlush(): void {
    if (this.disposed) return;
    this.flushTimer = this.clock.setTimeout(() => {
      try {
        this.flush();
      } catch (error) {
        this.core.log.warn('inventory flush failed', { error: String(error) });
      }
      this.scheduleFlush();
    }, this.options.flushIntervalMs);
  }

  /** Write what changed since the last flush (short transactions) and tell the hosts. */
  flush(): void {
    const scopes = new Set<'nodes' | 'pods' | 'events' | 'clusters'>();
    const now = this.clock.now();
    const split = (key: string) => {
      const at = key.indexOf('/');
      return { namespace: key.slice(0, at), name: key.slice(at + 1) };
    };
    const pods = this.pods;
    if (pods.replace && this.reflectors.pods.stats.listedAt !== null) {
      this.inventory.pods.replaceAll(this.clusterId, this.reflectors.pods.cache.values());
      scopes.add('pods');
    } else if (pods.upserts.size || pods.deletes.size) {
      this.inventory.pods.apply(this.clusterId, [...pods.upserts.values()], [...pods.deletes].map(split));
      scopes.add('pods');
    }
    this.pods = { replace: false, upserts: new Map(), deletes: new Set() };
    const events = this.events;
    if (events.replace) {
      this.inventory.events.replaceAll(this.clusterId, this.reflectors.events.cache.values());
      scopes.add('events');
    } else if (events.upserts.size || events.deletes.size) {
      this.inventory.events.apply(this.clusterId, [...events.upserts.values()], [...events.deletes].map(split));
      scopes.add('events');
    }
    this.events = { replace: false, upserts: new Map(), deletes: new Set() };
    if (this.dsDirty) {
      this.inventory.daemonSets.replaceAll(this.clusterId, this.reflectors.daemonsets.cache.values());
      this.dsDirty = false;
    }
    // The node events held since the last flush (newest per node) are parsed and applied now.
    this.reflectors.nodes.drain();
    const version = this.version?.gitVersion ?? null;
    const nodesReady = this.reflectors.nodes.stats.listedAt !== null && this.reflectors.pods.stats.listedAt !== null;
    if (nodesReady && (this.allNodes || this.dirtyNodes.size)) {
      const model = (n: NodeObject) => toNodeModel(n, { podCount: this.podCounts.get(n.metadata?.name ?? '') ?? 0, syncedAt: now, kubernetesVersion: version });
      if (this.allNodes) {
        this.core.repos.nodes.replaceAll(this.clusterId, [...this.reflectors.nodes.cache.values()].map(model));
      } else {
        const upserts: NodeModel[] = [];
        for (const name of this.dirtyNodes) {
          const n = this.reflectors.nodes.cache.get(name);
          if (n) upserts.push(model(n));
          else this.core.repos.nodes.remove(this.clusterId, name);
        }
        this.core.repos.nodes.upsertMany(this.clusterId, upserts);
      }
      this.allNodes = false;
      this.dirtyNodes.clear();
      scopes.add('nodes');
    }
    // Counters (relists, stalls, garbage lines) change without a state change: keep the status rows current.
    for (const [resource, r] of Object.entries(this.reflectors)) {
      const text = JSON.stringify(r.stats);
      if (this.lastStatus.get(resource) === text) continue;
      this.lastStatus.set(resource, text);
      this.inventory.status.put({ clusterId: this.clusterId, resource, state: r.state, resourceVersion: r.stats.resourceVersion, items: r.stats.items, stats: { ...r.stats }, lastError: r.stats.lastError, updatedAt: now });
    }
    const all = Object.values(this.reflectors);
    // While retrying, the cluster row carries the newest error (the first one is often "watch ended").
    const retrying = all.find((r) => r.state === 'backoff');
    if (retrying && !all.some((r) => r.state === 'failed')) {
      const cluster = this.core.repos.clusters.get(this.clusterId);
      if (cluster && (cluster.syncState !== 'offline' || cluster.syncError !== retrying.stats.lastError)) {
        this.core.repos.clusters.setSync(this.clusterId, 'offline', { error: retrying.stats.lastError });
        scopes.add('clusters');
      }
    }
    if (all.every((r) => r.state === 'watching') && version) {
      // The cluster row says "live" with a recent stamp; rewriting it (and waking every screen) on each flush
      // would cost a write and a change event per flush while nothing else changes.
      const cluster = this.core.repos.clusters.get(this.clusterId);
      const stampAge = now - (cluster?.syncedAt ?? 0);
      if (!cluster || cluster.syncState !== 'live' || cluster.kubernetesVersion !== version || stampAge >= INVENTORY_LIVE_STAMP_INTERVAL_MS) {
        this.core.repos.clusters.setSync(this.clusterId, 'live', { syncedAt: now, kubernetesVersion: version });
        scopes.add('clusters');
      }
    }
    if (scopes.size) this.core.changed([...scopes], this.clusterId);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.flushTimer?.cancel();
    await Promise.all(Object.values(this.reflectors).map((r) => r.stop()));
    try {
      this.flush();
    } catch {
      // the store may already be closing
    }
    this.client.close();
    if (this.lockFile) fs.rmSync(this.lockFile, { force: true });
    const cluster = this.core.repos.clusters.get(this.clusterId);
    // The data stays, but nothing keeps it current any more; an auth error stays visible.
    if (cluster && cluster.syncState !== 'error' && cluster.syncState !== 'auth-failed') this.core.repos.clusters.setSync(this.clusterId, 'stale', { error: null });
  }
}

/** The per-services singleton. */
export function kubeInventory(core: ServiceCore): KubeInventory {
  return core.lazy('kube.inventory', (c) => new KubeInventory(c));
}
