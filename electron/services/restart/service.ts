import { WindeckError, isWindeckError } from '../../../shared/contract/errors';
import type { RestartAuditEntry, RestartPlan, RestartResult } from '../../../shared/contract/methods/restarts';
import type { ClusterSummary } from '../../../shared/domain/cluster';
import type { RestartComponent } from '../../../shared/logic/restart-plan';
import type { ServiceCore } from '../create-services';
import { kubeInventory } from '../kube/inventory';
import type { StartedOperation } from '../operations/runner';
import { executePlan } from './execute';
import { assertExecutable, buildPlan, gatherFacts } from './plan';
import type { NodeTarget, RestartKube, RestartNodeHost, RestartPorts } from './ports';
import { DEFAULT_RESTART_TUNABLES, type RestartTunables } from './tunables';

/**
 * Guided restarts as a service (DESIGN.md section 7, STYLE.md section 5): plans kept for their TTL by hash,
 * execution as an operation with an audit row committed before the first remote call, one restart per node at a
 * time (CONFLICT), and a dispose that lets a cancelled restart finish its bounded look at the node.
 */

export const AUDIT_ACTION = 'restart';
const EXECUTE_TITLE = 'Restart ';

interface StoredPlan {
  plan: RestartPlan;
  target: NodeTarget;
}

export interface PlanRequest {
  cluster?: string | undefined;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  node: string;
  component: RestartComponent;
  cordon?: boolean | undefined;
  drain?: boolean | undefined;
  transport?: 'auto' | 'ssh' | 'winrm' | undefined;
}

export interface ExecuteRequest {
  planHash: string;
  confirm: { node: string; component: string };
  graceMs?: number | undefined;
  settleMs?: number | undefined;
}

export interface StartedRestart {
  operationId: string;
  /** The restart's result, also when it was cancelled (the operation itself then ends `cancelled`). */
  result: Promise<RestartResult>;
}

/** The cluster a call means: the named one, else the active one, else the first one (same rule as nodes:*). */
export function resolveClusterRef(core: ServiceCore, ref: string | undefined): ClusterSummary | null {
  if (ref) {
    const found = core.repos.clusters.find(ref);
    if (!found) throw new WindeckError('NOT_FOUND', `No cluster "${ref}" in the store. Run \`windeck nodes\` with its kubeconfig first.`, { cluster: ref });
    return found;
  }
  const active = core.repos.settings.get<string>('activeCluster');
  if (active) {
    const found = core.repos.clusters.get(active);
    if (found) return found;
  }
  return core.repos.clusters.list()[0] ?? null;
}

export class RestartService {
  private readonly plans = new Map<string, StoredPlan>();
  /** node key -> operation id of the restart running there. */
  private readonly busy = new Map<string, string>();
  private readonly inflight = new Set<Promise<unknown>>();
  readonly tunables: RestartTunables;

  constructor(
    private readonly core: ServiceCore,
    private readonly ports: RestartPorts,
    tunables: Partial<RestartTunables> = {},
  ) {
    this.tunables = { ...DEFAULT_RESTART_TUNABLES, ...tunables };
  }

  /**
   * The node and its cluster: a store cluster (id or name), else the kubeconfig/context the caller named (its
   * store id, even before an inventory sync), else the active cluster, else none.
   */
  private target(request: PlanRequest): NodeTarget {
    let cluster: ClusterSummary | null = null;
    let clusterId: string | null = null;
    if (request.cluster) {
      cluster = resolveClusterRef(this.core, request.cluster);
      clusterId = cluster?.id ?? null;
    } else if (request.kubeconfig || request.context) {
      clusterId = kubeInventory(this.core).clusterIdOf({ kubeconfig: request.kubeconfig ?? null, context: request.context ?? null });
      if (!clusterId)
        throw new WindeckError(
          'VALIDATION',
          `The kubeconfig${request.kubeconfig ? ` ${request.kubeconfig}` : ''}${request.context ? ` (context "${request.context}")` : ''} cannot be used; run \`windeck nodes\` with it to see why.`,
        );
      cluster = this.core.repos.clusters.get(clusterId);
    } else {
      cluster = resolveClusterRef(this.core, undefined);
      clusterId = cluster?.id ?? null;
    }
    return {
      clusterId,
      cluster,
      node: request.node,
      transport: request.transport ?? 'auto',
      ...(request.kubeconfig ? { kubeconfig: request.kubeconfig } : {}),
      ...(request.context ? { context: request.context } : {}),
    };
  }

  private now(): number {
    return this.core.clock.now();
  }

  private key(target: NodeTarget): string {
    return `${target.clusterId ?? '-'}/${target.node}`;
  }

  /** Why the node is busy (another restart here or in another Windeck process), or null. */
  busyReason(target: NodeTarget): string | null {
    const mine = this.busy.get(this.key(target));
    if (mine) return `Another restart (${mine}) is running on ${target.node}; one mutating operation per node at a time.`;
    const other = this.core.repos.operations
      .list(200)
      .find(
        (o) =>
          o.kind === 'restart' &&
          (o.state === 'running' || o.state === 'queued') &&
          o.node === target.node &&
          (o.cluster ?? null) === target.clusterId &&
          o.title.startsWith(EXECUTE_TITLE),
      );
    return other ? `Another restart (${other.operationId}, "${other.title}") is running on ${target.node}; one mutating operation per node at a time.` : null;
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inflight.add(p);
    const done = () => this.inflight.delete(p);
    p.then(done, done);
    return p;
  }

  private async open(target: NodeTarget, signal: AbortSignal): Promise<{ host: RestartNodeHost; kube: RestartKube | null }> {
    const host = await this.ports.openNode(target, signal);
    try {
      const kube = this.core.offline ? null : await this.ports.kube(target);
      return { host, kube };
    } catch (error) {
      await host.close().catch(() => undefined);
      throw error;
    }
  }

  /** `restarts:plan`: read-only pre-checks as an operation whose result is the plan. */
  startPlan(request: PlanRequest, signal?: AbortSignal): StartedOperation<RestartPlan> {
    const target = this.target(request);
    return this.core.ops.start(
      {
        kind: 'restart',
        title: `Plan restart of ${request.component} on ${request.node}`,
        node: request.node,
        cluster: target.clusterId,
        steps: 3,
        timeoutMs: this.tunables.readTimeoutMs * 8,
        ...(signal ? { signal } : {}),
      },
      async (ctx) => {
        ctx.progress({ step: { index: 0, count: 3, title: `Connecting to ${request.node}` }, fraction: 0 });
        const { host, kube } = await this.open(target, ctx.signal);
        try {
          ctx.progress({ step: { index: 1, count: 3, title: 'Pre-checks: services, processes, HNS, pods' }, fraction: 1 / 3 });
          const facts = await gatherFacts({
            node: request.node,
            host,
            kube,
            signal: ctx.signal,
            readTimeoutMs: this.tunables.readTimeoutMs,
            now: () => this.now(),
            withFiles: true,
          });
          ctx.progress({ step: { index: 2, count: 3, title: 'Laying out the steps' }, fraction: 2 / 3 });
          const plan = buildPlan({
            clusterId: target.clusterId,
            node: request.node,
            component: request.component,
            options: { cordon: request.cordon === true, drain: request.drain === true },
            facts,
            versions: { restartService: await host.scriptVersion('restart-service'), hnsNetworks: await host.scriptVersion('hns-networks') },
            tunables: this.tunables,
            transport: host.transport,
            now: this.now(),
            busy: this.busyReason(target),
          });
          this.prune();
          this.plans.set(plan.planHash, { plan, target });
          ctx.progress({ message: plan.canExecute ? `Ready: ${plan.steps.length} step(s)` : `Cannot restart: ${plan.refusal ?? ''}`.slice(0, 300) });
          return plan;
        } finally {
          kube?.close?.();
          await host.close().catch(() => undefined);
        }
      },
    );
  }

  private prune(): void {
    const t = this.now();
    for (const [hash, entry] of this.plans) if (entry.plan.expiresAt <= t) this.plans.delete(hash);
  }

  /** `restarts:execute`: a confirmed plan as an audited operation. */
  startExecute(request: ExecuteRequest, signal?: AbortSignal): StartedRestart {
    this.prune();
    const entry = this.plans.get(request.planHash);
    if (!entry)
      throw new WindeckError(
        'NOT_FOUND',
        'No restart plan with this hash: plans expire after a while and live in the Windeck process that made them. Plan the restart again.',
        { step: 'plan' },
      );
    const { plan, target } = entry;
    if (request.confirm.node !== plan.node || request.confirm.component !== plan.component) {
      throw new WindeckError('VALIDATION', `The confirmation must name the node "${plan.node}" and the component "${plan.component}" exactly.`, {
        node: plan.node,
        step: 'confirm',
      });
    }
    assertExecutable(plan);
    const busy = this.busyReason(target);
    if (busy) throw new WindeckError('CONFLICT', busy, { node: plan.node });

    const tunables: RestartTunables = {
      ...this.tunables,
      ...(request.graceMs !== undefined ? { graceMs: request.graceMs } : {}),
      ...(request.settleMs !== undefined ? { settleMs: request.settleMs } : {}),
    };
    const stepsMs = plan.steps.reduce((sum, s) => sum + s.timeoutMs, 0);
    const timeoutMs =
      tunables.graceMs +
      stepsMs +
      tunables.settleMs +
      tunables.nodeReadyWaitMs +
      tunables.networkWaitMs +
      tunables.loadBalancerWaitMs +
      tunables.readTimeoutMs * 6 +
      60_000;
    const key = this.key(target);

    let settle: { resolve(r: RestartResult): void; reject(e: unknown): void } = { resolve: () => undefined, reject: () => undefined };
    const result = new Promise<RestartResult>((resolve, reject) => {
      settle = { resolve, reject };
    });
    result.catch(() => undefined);
    let started = false;

    const op = this.core.ops.start<RestartResult>(
      {
        kind: 'restart',
        title: `${EXECUTE_TITLE}${plan.component} on ${plan.node}`,
        node: plan.node,
        cluster: target.clusterId,
        steps: plan.steps.length + 3,
        timeoutMs,
        ...(signal ? { signal } : {}),
      },
      (ctx) => {
        started = true;
        const work = this.track(this.run(plan, target, tunables, ctx));
        // Settle the caller's promise once the operation row is final too (a cancel finishes the row first).
        void Promise.allSettled([work, op.done]).then(() => work.then(settle.resolve, settle.reject));
        return work;
      },
    );
    this.busy.set(key, op.operationId);
    const release = () => {
      if (this.busy.get(key) === op.operationId) this.busy.delete(key);
    };
    result.then(release, release);
    op.done.catch((error: unknown) => {
      // Cancelled before the work began: nothing ran, nothing was audited.
      if (!started) {
        release();
        settle.reject(error);
      }
    });
    return { operationId: op.operationId, result };
  }

  private async run(
    plan: RestartPlan,
    target: NodeTarget,
    tunables: RestartTunables,
    ctx: Parameters<Parameters<ServiceCore['ops']['start']>[1]>[0],
  ): Promise<RestartResult> {
    const clusterId = target.clusterId;
    // The audit row is committed before anything is sent to the node or the cluster.
    const auditId = this.core.repos.audit.begin({
      at: this.now(),
      clusterId,
      node: plan.node,
      action: AUDIT_ACTION,
      detail: {
        component: plan.component,
        method: plan.method,
        serviceName: plan.serviceName,
        planHash: plan.planHash,
        operationId: ctx.operationId,
        host: this.core.host,
        steps: plan.steps.map((s) => ({ kind: s.kind, target: s.target, commands: s.commands.filter((c) => c.mutating).map((c) => c.sent) })),
      },
    });
    this.core.changed(['audit'], clusterId, plan.node);
    let host: RestartNodeHost | null = null;
    let kube: RestartKube | null = null;
    try {
      const opened = await this.open(target, ctx.signal);
      host = opened.host;
      kube = opened.kube;
      const h = host;
      const gather = (signal: AbortSignal) =>
        gatherFacts({
          node: plan.node,
          host: h,
          kube,
          signal,
          readTimeoutMs: tunables.readTimeoutMs,
          now: () => this.now(),
          withFiles: true,
          withFindings: true,
        });
      const result = await executePlan({
        plan,
        host,
        kube,
        tunables,
        op: ctx,
        auditId,
        now: () => this.now(),
        gather,
        replan: async (signal) => {
          const facts = await gather(signal);
          const fresh = buildPlan({
            clusterId: target.clusterId,
            node: plan.node,
            component: plan.component,
            options: { cordon: plan.options.cordon, drain: plan.options.drain },
            facts,
            versions: { restartService: await h.scriptVersion('restart-service'), hnsNetworks: await h.scriptVersion('hns-networks') },
            tunables,
            transport: h.transport,
            now: this.now(),
          });
          return { plan: fresh, facts };
        },
      });
      this.core.repos.audit.complete(auditId, result.outcome, this.now(), { ...this.auditDetail(plan, ctx.operationId), result });
      this.core.changed(['audit'], clusterId, plan.node);
      return result;
    } catch (error) {
      const wire = isWindeckError(error) ? error.toWire() : { code: 'INTERNAL', message: String((error as Error)?.message ?? error) };
      const outcome = wire.code === 'CONFLICT' ? 'refused' : wire.code === 'CANCELLED' ? 'cancelled' : 'failed';
      this.core.repos.audit.complete(auditId, outcome, this.now(), {
        ...this.auditDetail(plan, ctx.operationId),
        error: { code: wire.code, message: wire.message },
        changed: false,
      });
      this.core.changed(['audit'], clusterId, plan.node);
      throw error;
    } finally {
      kube?.close?.();
      if (host) await host.close().catch(() => undefined);
    }
  }

  private auditDetail(plan: RestartPlan, operationId: string) {
    return { component: plan.component, method: plan.method, serviceName: plan.serviceName, planHash: plan.planHash, operationId, host: this.core.host };
  }

  /** `restarts:history`: audit rows of restarts, newest first. */
  history(input: { cluster?: string | undefined; node?: string | undefined; limit?: number | undefined }): RestartAuditEntry[] {
    const cluster = input.cluster ? resolveClusterRef(this.core, input.cluster) : null;
    return this.core.repos.audit
      .list({ clusterId: cluster?.id ?? null, node: input.node ?? null, limit: input.limit ?? 50 })
      .filter((e) => e.action === AUDIT_ACTION)
      .map((e) => ({
        id: e.id,
        at: e.at,
        cluster: e.clusterId,
        node: e.node,
        action: e.action,
        outcome: e.outcome,
        finishedAt: e.finishedAt,
        detail: e.detail,
      }));
  }

  /** The result of a finished restart, from its audit row. NOT_FOUND while it runs or when there is none. */
  resultOf(operationId: string): RestartResult {
    const row = this.core.repos.audit
      .list({ limit: 500 })
      .find((e) => e.action === AUDIT_ACTION && (e.detail as { operationId?: unknown } | null)?.operationId === operationId);
    const result = row && row.finishedAt !== null ? (row.detail as { result?: RestartResult }).result : undefined;
    if (!result) {
      const why = !row
        ? 'no restart ran under this operation id'
        : row.finishedAt === null
          ? 'it is still running'
          : `it ended "${row.outcome ?? '?'}" before anything was changed`;
      throw new WindeckError('NOT_FOUND', `No restart result for ${operationId}: ${why}.`, { operationId });
    }
    return result;
  }

  /** The plan made for `hash` (tests, CLI), or null. */
  planFor(hash: string): RestartPlan | null {
    return this.plans.get(hash)?.plan ?? null;
  }

  /** Let running restarts finish their bounded after-cancel look (the operations were cancelled already). */
  async dispose(): Promise<void> {
    const all = [...this.inflight];
    if (all.length === 0) return;
    await Promise.race([Promise.allSettled(all), new Promise((resolve) => setTimeout(resolve, this.tunables.cancelCheckTimeoutMs + 2_000).unref())]);
  }
}
