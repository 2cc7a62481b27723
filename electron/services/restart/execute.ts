import { WindeckError, isWindeckError } from '../../../shared/contract/errors';
import type { NodeSnapshot, PostCheck, RestartPlan, RestartResult, StepResult } from '../../../shared/contract/methods/restarts';
import { classifyOutcome, nextStepsFor, type PostCheckId } from '../../../shared/logic/restart-plan';
import type { OperationContext } from '../operations/runner';
import { detectAll, type NodeFacts } from './detect';
import { snapshotOf } from './plan';
import type { KubePod, RestartKube, RestartNodeHost } from './ports';
import type { RestartTunables } from './tunables';

/**
 * Executes a confirmed plan (STYLE.md section 5): a cancellable grace countdown, a fresh look at the node (the
 * plan must still be what the user confirmed), the steps in dependency order with per-step timeouts and live
 * progress, a settle period, post-checks, and an outcome that says what is still wrong and what to do next.
 * The caller commits the audit row before calling this, and completes it with the result.
 */

export interface ExecuteInput {
  plan: RestartPlan;
  host: RestartNodeHost;
  kube: RestartKube | null;
  tunables: RestartTunables;
  op: OperationContext;
  auditId: number;
  now: () => number;
  /** Re-read the node (with findings) and rebuild the plan from what it shows now, with the same options. */
  replan(signal: AbortSignal): Promise<{ plan: RestartPlan; facts: NodeFacts }>;
  /** Read the node for a snapshot (with findings), under `signal`. */
  gather(signal: AbortSignal): Promise<NodeFacts>;
}

/** Resolves after `ms`, or early when `signal` aborts (the caller checks the signal). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function message(error: unknown): string {
  return isWindeckError(error) ? error.message : error instanceof Error ? error.message : String(error);
}

function seconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1).replace(/\.0$/, '')} s`;
}

class StepFailure extends Error {}

export async function executePlan(input: ExecuteInput): Promise<RestartResult> {
  const { plan, host, kube, op, tunables, now } = input;
  const startedAt = now();
  const node = plan.node;
  const name = plan.serviceName ?? plan.component;
  const steps: StepResult[] = plan.steps.map((s) => ({
    index: s.index,
    kind: s.kind,
    component: s.component,
    target: s.target,
    title: s.title,
    state: 'skipped',
    startedAt: null,
    durationMs: null,
    detail: 'Not run.',
    commands: s.commands,
  }));
  const total = plan.steps.length + 3;
  const checks: PostCheck[] = [];
  const check = (id: PostCheckId, status: PostCheck['status'], critical: boolean, title: string, detail: string) =>
    checks.push({ id, status, critical, title, detail });
  let before: NodeSnapshot = plan.before;
  let after: NodeSnapshot | null = null;
  let changed = false;
  let primaryFailed = false;
  let primaryReason = '';
  let currentStep = 'grace period';
  const extraNextSteps: string[] = [];
  /** Dependents each restart-service step started again (from the script's report). */
  const dependentsOf = new Map<string, string[]>();

  const aborted = (): 'CANCELLED' | 'TIMEOUT' | null => {
    if (!op.signal.aborted) return null;
    try {
      op.throwIfAborted();
    } catch (error) {
      return isWindeckError(error) && error.code === 'TIMEOUT' ? 'TIMEOUT' : 'CANCELLED';
    }
    return 'CANCELLED';
  };

  try {
    // 1. Grace: a countdown the user can still cancel; nothing has been sent yet.
    op.progress({
      step: { index: 0, count: total, title: 'Grace period' },
      fraction: 0,
      message: `Restarting ${name} on ${node} in ${seconds(tunables.graceMs)}; cancel to stop`,
    });
    const graceEnd = now() + tunables.graceMs;
    while (now() < graceEnd && !op.signal.aborted) {
      await sleep(Math.min(1000, graceEnd - now()), op.signal);
      if (!op.signal.aborted && now() < graceEnd) op.progress({ message: `Restarting ${name} on ${node} in ${seconds(graceEnd - now())}; cancel to stop` });
    }
    op.throwIfAborted();

    // 2. A fresh look: the node must still match the confirmed plan.
    currentStep = 'checking the node again';
    op.progress({
      step: { index: 1, count: total, title: 'Checking the node again' },
      fraction: 1 / total,
      message: 'Reading services, processes, HNS and the cluster',
    });
    const fresh = await input.replan(op.signal);
    if (fresh.plan.planHash !== plan.planHash) {
      throw new WindeckError('CONFLICT', `The node changed since the plan was made (now: ${fresh.plan.layout}); nothing was changed. Plan the restart again.`, {
        node,
        step: 'plan',
      });
    }
    before = snapshotOf(fresh.facts, detectAll(fresh.facts)[plan.component]);

    // 3. The steps, in dependency order. Uncordon waits for the post-checks.
    for (const [i, step] of plan.steps.entries()) {
      if (step.kind === 'uncordon') continue;
      op.throwIfAborted();
      currentStep = step.title;
      op.progress({ step: { index: i + 2, count: total, title: step.title }, fraction: (i + 2) / total, message: `Step ${i + 1} of ${plan.steps.length}` });
      const result = steps[i]!;
      result.startedAt = now();
      const stepSignal = AbortSignal.any([op.signal, AbortSignal.timeout(step.timeoutMs)]);
      try {
        changed = changed || step.commands.some((c) => c.mutating);
        result.detail = await runStep(step, stepSignal);
        result.state = 'succeeded';
      } catch (error) {
        if (op.signal.aborted) {
          result.state = 'cancelled';
          result.detail = 'Cancelled while this step ran; its remote command may still have completed.';
          throw error;
        }
        result.state = 'failed';
        result.detail =
          stepSignal.aborted && !(error instanceof StepFailure) ? `${step.title} did not finish within ${seconds(step.timeoutMs)}.` : message(error);
        if (step.component === plan.component) {
          primaryFailed = true;
          primaryReason = result.detail;
        }
        for (const rest of steps.slice(i + 1)) rest.detail = `Not run: step ${i + 1} (${step.title}) failed.`;
        break;
      } finally {
        result.durationMs = now() - (result.startedAt ?? now());
      }
    }

    // 4. Settle and post-checks.
    currentStep = 'post-checks';
    op.progress({
      step: { index: total - 1, count: total, title: 'Post-checks' },
      fraction: (total - 1) / total,
      message: `Watching ${name} for ${seconds(tunables.settleMs)}`,
    });
    const anyFailed = steps.some((s) => s.state === 'failed');
    if (primaryFailed) {
      check(plan.method === 'daemonset-pod' ? 'pod-replaced' : 'service-running', 'failed', true, `${name} back`, primaryReason);
    } else {
      await postChecks();
      if (anyFailed) {
        const failed = steps.filter((s) => s.state === 'failed');
        check('steps-completed', 'failed', false, 'Every step ran', failed.map((s) => s.detail).join(' '));
      }
    }
    const facts = await input.gather(AbortSignal.any([op.signal, AbortSignal.timeout(tunables.readTimeoutMs * 6)])).catch((error: unknown) => {
      if (op.signal.aborted) throw error;
      return null;
    });
    if (facts) {
      after = snapshotOf(facts, detectAll(facts)[plan.component]);
      if (!primaryFailed) findingsCheck(facts);
    }

    // 5. Uncordon what Windeck cordoned, once the component is back.
    const uncordon = plan.steps.findIndex((s) => s.kind === 'uncordon');
    if (uncordon >= 0) {
      const result = steps[uncordon]!;
      const outcomeSoFar = classifyOutcome({ cancelled: false, primaryFailed, checks });
      if (outcomeSoFar === 'failed') {
        result.detail = `Left cordoned because the restart failed; run kubectl uncordon ${node} once it is fixed.`;
        extraNextSteps.push(`${node} is still cordoned: kubectl uncordon ${node} once ${name} runs again.`);
      } else {
        op.throwIfAborted();
        result.startedAt = now();
        try {
          if (!kube) throw new StepFailure('No cluster to uncordon the node through.');
          await kube.setUnschedulable(node, false, AbortSignal.any([op.signal, AbortSignal.timeout(plan.steps[uncordon]!.timeoutMs)]));
          result.state = 'succeeded';
          result.detail = `${node} is schedulable again.`;
        } catch (error) {
          if (op.signal.aborted) throw error;
          result.state = 'failed';
          result.detail = message(error);
          extraNextSteps.push(`Uncordon ${node} by hand: kubectl uncordon ${node}.`);
        } finally {
          result.durationMs = now() - result.startedAt;
        }
      }
    }
  } catch (error) {
    const code = aborted();
    if (!code) {
      if (!changed) throw error;
      // A failure outside a step after something changed: report it as the outcome, not as a lost operation.
      primaryFailed = true;
      primaryReason = `Windeck stopped during ${currentStep}: ${message(error)}`;
      check(plan.method === 'daemonset-pod' ? 'pod-replaced' : 'service-running', 'failed', true, `${name} back`, primaryReason);
    } else {
      for (const s of steps)
        if (s.state === 'skipped' && s.detail === 'Not run.') s.detail = code === 'TIMEOUT' ? 'Not run: the restart ran out of time.' : 'Not run: cancelled.';
      if (changed) after = await lookAfterCancel();
      return finish(code === 'TIMEOUT' ? 'timeout' : 'cancel');
    }
  }
  return finish(null);

  // ---- helpers (closures over the state above) ----

  async function runStep(step: RestartPlan['steps'][number], signal: AbortSignal): Promise<string> {
    switch (step.kind) {
      case 'restart-service': {
        const timeoutSeconds = Math.max(1, Math.round((step.timeoutMs - 30_000) / 1000));
        const report = await host.restartService(step.target, timeoutSeconds, signal);
        const deps = report.dependents.map((d) => `${d.name} ${d.status ?? 'unknown'}`);
        if (!report.succeeded || report.statusAfter !== 'Running') {
          throw new StepFailure(`${step.target} did not come back: ${report.error ?? `it is ${report.statusAfter ?? 'in an unknown state'}`}.`);
        }
        dependentsOf.set(
          step.target,
          report.dependents.map((d) => d.name),
        );
        // A dependent still StartPending is on its way up; the settle period decides whether it got there.
        const down = report.dependents.filter((d) => d.status !== 'Running' && d.status !== 'StartPending');
        if (down.length > 0) throw new StepFailure(`${step.target} is Running, but its dependents did not start again: ${deps.join(', ')}.`);
        return `${step.target}: ${report.statusBefore ?? '?'} -> Running${report.durationMs !== null ? ` in ${seconds(report.durationMs)}` : ''}${deps.length > 0 ? `; dependents started again: ${deps.join(', ')}` : ''}.`;
      }
      case 'delete-pod': {
        if (!kube) throw new StepFailure('No cluster to delete the pod through.');
        const [namespace, podName] = step.target.split('/') as [string, string];
        const pods = await kube.podsOnNode(node, signal);
        const old = pods.find((p) => p.namespace === namespace && p.name === podName);
        if (!old) throw new StepFailure(`Pod ${step.target} is gone already; plan again.`);
        await kube.deletePod(namespace, podName, signal);
        let last: KubePod | null = null;
        for (;;) {
          op.progress({
            message: `Waiting for the ${old.ownerName ?? 'DaemonSet'} replacement pod${last ? ` (${last.name}: ${last.phase ?? '?'}${last.ready ? ', Ready' : ''})` : ''}`,
          });
          await sleep(tunables.pollMs, signal);
          if (signal.aborted)
            throw new StepFailure(
              `No Ready replacement for ${step.target} within ${seconds(step.timeoutMs)}${last ? ` (last seen: ${last.name} ${last.phase ?? '?'}, ${last.ready ? 'Ready' : 'not Ready'})` : ' (none appeared)'}.`,
            );
          const current = await kube.podsOnNode(node, signal);
          const replacement =
            current.find(
              (p) => p.ownerKind === 'DaemonSet' && p.ownerName === old.ownerName && p.namespace === namespace && p.uid !== old.uid && !p.deleting,
            ) ?? null;
          if (replacement) last = replacement;
          if (replacement && replacement.phase === 'Running' && replacement.ready)
            return `${step.target} deleted; replacement ${replacement.namespace}/${replacement.name} is Running and Ready.`;
        }
      }
      case 'wait-network': {
        for (;;) {
          const networks = await host.hnsNetworks(signal);
          if (networks.some((n) => n.name.toLowerCase() === step.target.toLowerCase())) return `HNS network ${step.target} exists.`;
          op.progress({ message: `Waiting for HNS network ${step.target}` });
          await sleep(tunables.pollMs, signal);
          if (signal.aborted) throw new StepFailure(`HNS network ${step.target} did not appear within ${seconds(step.timeoutMs)}.`);
        }
      }
      case 'cordon': {
        if (!kube) throw new StepFailure('No cluster to cordon the node through.');
        await kube.setUnschedulable(node, true, signal);
        return `${node} cordoned.`;
      }
      case 'drain': {
        if (!kube) throw new StepFailure('No cluster to drain the node through.');
        const evictable = (await kube.podsOnNode(node, signal)).filter((p) => p.ownerKind !== 'DaemonSet' && !p.mirror && !p.deleting);
        const pending = new Map(evictable.map((p) => [`${p.namespace}/${p.name}`, p]));
        for (;;) {
          for (const [key, p] of pending) {
            try {
              await kube.evictPod(p.namespace, p.name, signal);
              pending.delete(key);
            } catch (error) {
              if (signal.aborted) throw error;
              // A PodDisruptionBudget says not yet (429): try again on the next round; anything else stops the drain.
              if (!(isWindeckError(error) && error.code === 'CONFLICT')) throw new StepFailure(`Evicting ${key} failed: ${message(error)}`);
            }
          }
          const left = (await kube.podsOnNode(node, signal)).filter((p) => evictable.some((e) => e.uid === p.uid));
          if (pending.size === 0 && left.length === 0) return `${evictable.length} pod(s) evicted from ${node}.`;
          op.progress({ message: `Draining ${node}: ${left.length} pod(s) still there` });
          await sleep(tunables.pollMs, signal);
          if (signal.aborted)
            throw new StepFailure(
              `Drain of ${node} did not finish within ${seconds(step.timeoutMs)}: ${left.map((p) => `${p.namespace}/${p.name}`).join(', ')} still there.`,
            );
        }
      }
      case 'uncordon':
        return 'Runs after the post-checks.';
    }
  }

  /** Poll `probe` until it says done or `ms` pass (or the operation aborts). */
  async function pollUntil<T>(ms: number, probe: () => Promise<{ done: boolean; value: T }>): Promise<{ done: boolean; value: T }> {
    const deadline = now() + ms;
    for (;;) {
      const r = await probe();
      if (r.done || now() >= deadline) return r;
      await sleep(Math.min(tunables.pollMs, Math.max(0, deadline - now())), op.signal);
      op.throwIfAborted();
    }
  }

  async function readOrNull<T>(f: (s: AbortSignal) => Promise<T>): Promise<T | null> {
    try {
      return await f(AbortSignal.any([op.signal, AbortSignal.timeout(tunables.readTimeoutMs)]));
    } catch (error) {
      if (op.signal.aborted) throw error;
      return null;
    }
  }

  async function postChecks(): Promise<void> {
    // After a failed step, look once instead of waiting for what the failed step was needed for.
    const wait = (ms: number) => (steps.some((s) => s.state === 'failed') ? 0 : ms);
    const restarted = plan.steps.filter((s, i) => s.kind === 'restart-service' && steps[i]!.state === 'succeeded');
    const primaryStep = plan.steps.find((s) => s.component === plan.component && (s.kind === 'restart-service' || s.kind === 'delete-pod'));
    // Settle: every restarted service reaches Running (a dependent may still be StartPending when its step
    // ended) and then stays Running, with the same process, for the settle period.
    if (restarted.length > 0) {
      const names = [...new Set(restarted.flatMap((s) => [s.target, ...(dependentsOf.get(s.target) ?? [])]))];
      const firstPid = new Map<string, number | null>();
      const upAt = new Map<string, number>();
      const problems = new Map<string, string>();
      const began = now();
      const settled = (n: string) => problems.has(n) || (upAt.has(n) && now() - upAt.get(n)! >= tunables.settleMs);
      for (;;) {
        const services = await readOrNull((s) => host.services(names, s));
        if (services) {
          for (const n of names) {
            if (problems.has(n)) continue;
            const s = services.find((x) => x.name.toLowerCase() === n.toLowerCase());
            if (!upAt.has(n)) {
              if (s?.status === 'Running') {
                upAt.set(n, now());
                firstPid.set(n, s.pid);
              } else if (s?.status !== 'StartPending' || now() - began > tunables.serviceTimeoutMs) {
                problems.set(n, `${n} is ${s ? s.status : 'gone'} ${seconds(now() - startedAt)} after the restart began`);
              }
              continue;
            }
            if (!s || s.status !== 'Running')
              problems.set(n, `${n} is ${s ? s.status : 'gone'} ${seconds(now() - startedAt)} after the restart began: it did not stay up`);
            else if (s.pid !== null && firstPid.get(n) != null && s.pid !== firstPid.get(n))
              problems.set(n, `${n} restarted on its own during the settle period (pid ${firstPid.get(n)} -> ${s.pid})`);
          }
        }
        if (names.every(settled)) break;
        if (now() - began > tunables.serviceTimeoutMs + tunables.settleMs) {
          // Reads kept failing: say so instead of waiting forever.
          for (const n of names) if (!settled(n)) problems.set(n, `${n} could not be read on ${node} during the settle period`);
          break;
        }
        const left = Math.max(0, ...names.filter((n) => upAt.has(n) && !problems.has(n)).map((n) => tunables.settleMs - (now() - upAt.get(n)!)));
        op.progress({ message: `Watching ${names.join(', ')}: ${seconds(left)} left` });
        await sleep(tunables.pollMs, op.signal);
        op.throwIfAborted();
      }
      const primaryName = primaryStep?.kind === 'restart-service' ? primaryStep.target : null;
      if (primaryName) {
        const up = upAt.has(primaryName);
        check(
          'service-running',
          up ? 'passed' : 'failed',
          true,
          `${primaryName} Running`,
          up ? `${primaryName} is Running (pid ${firstPid.get(primaryName) ?? '?'}).` : (problems.get(primaryName) ?? `${primaryName} was never seen Running.`),
        );
        const p = problems.get(primaryName);
        if (up) check('service-stays-up', p ? 'failed' : 'passed', true, `${primaryName} stays up`, p ?? `Stayed Running for ${seconds(tunables.settleMs)}.`);
      }
      const others = [...problems.entries()].filter(([n]) => n !== primaryName);
      const followers = names.filter((n) => n !== primaryName);
      if (followers.length > 0) {
        check(
          'follow-ups',
          others.length > 0 ? 'failed' : 'passed',
          false,
          'Dependent components back',
          others.length > 0 ? others.map(([, d]) => d).join('; ') : `${followers.join(', ')} Running.`,
        );
      }
    }
    // DaemonSet pod: the replacement stays Running and Ready.
    if (primaryStep?.kind === 'delete-pod' && kube) {
      const [namespace] = primaryStep.target.split('/') as [string, string];
      let problem: string | null = null;
      let seen: KubePod | null = null;
      const deadline = now() + tunables.settleMs;
      const oldUid = plan.before.pod?.uid ?? before.pod?.uid ?? null;
      for (;;) {
        const pods = await readOrNull((s) => kube.podsOnNode(node, s));
        if (pods) {
          const replacement =
            pods.find(
              (p) => p.namespace === namespace && p.ownerKind === 'DaemonSet' && p.uid !== oldUid && !p.deleting && (seen ? p.uid === seen.uid : true),
            ) ?? null;
          if (!replacement) problem = problem ?? `The replacement pod ${seen ? seen.name + ' ' : ''}disappeared during the settle period.`;
          else {
            seen = seen ?? replacement;
            if (!(replacement.phase === 'Running' && replacement.ready))
              problem = problem ?? `${replacement.name} is ${replacement.phase ?? '?'}${replacement.ready ? '' : ', not Ready'} during the settle period.`;
          }
        }
        if (now() >= deadline) break;
        await sleep(Math.min(tunables.pollMs, Math.max(0, deadline - now())), op.signal);
        op.throwIfAborted();
      }
      check(
        'pod-replaced',
        seen && !problem ? 'passed' : 'failed',
        true,
        'Replacement pod Ready',
        problem ?? `${seen?.namespace}/${seen?.name} Running and Ready for ${seconds(tunables.settleMs)}.`,
      );
    }

    // Node Ready.
    if (kube) {
      const r = await pollUntil(wait(tunables.nodeReadyWaitMs), async () => {
        const n = await readOrNull((s) => kube.node(node, s));
        return { done: n?.ready === true, value: n };
      });
      if (r.value === null) check('node-ready', 'skipped', false, 'Node Ready', 'The cluster could not be read.');
      else
        check(
          'node-ready',
          r.value.ready ? 'passed' : 'failed',
          false,
          'Node Ready',
          r.value.ready
            ? `${node} is Ready.`
            : `${node} is ${r.value.ready === false ? 'NotReady' : 'Unknown'}${r.value.readyReason ? ` (${r.value.readyReason})` : ''}.`,
        );
    } else check('node-ready', 'skipped', false, 'Node Ready', 'No cluster to ask.');

    // HNS networks that existed before exist again.
    const wanted = before.hnsNetworks?.map((n) => n.name) ?? null;
    if (wanted === null) check('hns-networks', 'skipped', false, 'HNS networks back', 'The networks before the restart are unknown.');
    else {
      const r = await pollUntil(wait(tunables.networkWaitMs), async () => {
        const nets = await readOrNull((s) => host.hnsNetworks(s));
        const missing = nets ? wanted.filter((w) => !nets.some((n) => n.name.toLowerCase() === w.toLowerCase())) : null;
        return { done: missing !== null && missing.length === 0, value: missing };
      });
      if (r.value === null) check('hns-networks', 'skipped', false, 'HNS networks back', 'HNS could not be read after the restart.');
      else
        check(
          'hns-networks',
          r.value.length === 0 ? 'passed' : 'failed',
          false,
          'HNS networks back',
          r.value.length === 0 ? `${wanted.length} network(s) present: ${wanted.join(', ') || 'none'}.` : `Missing after the restart: ${r.value.join(', ')}.`,
        );
    }

    // kube-proxy's load balancers: at least as many as before (kube-proxy always programs the kubernetes Service).
    const lbBefore = before.loadBalancerCount;
    const kubeProxyInvolved = kubeProxyPresent();
    if (lbBefore === null) check('load-balancers', 'skipped', false, 'Load balancers back', 'The count before the restart is unknown.');
    else {
      const need = Math.max(lbBefore, kubeProxyInvolved ? 1 : 0);
      const r = await pollUntil(wait(tunables.loadBalancerWaitMs), async () => {
        const count = await readOrNull((s) => host.loadBalancerCount(s));
        return { done: count !== null && count >= need, value: count };
      });
      if (r.value === null) check('load-balancers', 'skipped', false, 'Load balancers back', 'HNS policy lists could not be read after the restart.');
      else
        check(
          'load-balancers',
          r.value >= need ? 'passed' : 'failed',
          false,
          'Load balancers back',
          r.value >= need
            ? `${r.value} load balancer(s) (${lbBefore} before).`
            : `${r.value} load balancer(s) after the restart, ${lbBefore} before${need > lbBefore ? ' (kube-proxy programs at least the kubernetes Service)' : ''}.`,
        );
    }
  }

  /** Whether kube-proxy runs on the node (as a service, or as the DaemonSet pod this restart replaced). */
  function kubeProxyPresent(): boolean {
    return (
      before.services.some((s) => s.name.toLowerCase() === 'kube-proxy' || s.name.toLowerCase() === 'kubeproxy') ||
      (plan.component === 'kube-proxy' && plan.method === 'daemonset-pod')
    );
  }

  function findingsCheck(facts: NodeFacts): void {
    if (!host.findings) {
      check('no-new-findings', 'skipped', false, 'No new findings', 'The diagnostics engine is not available in this build, so findings were not compared.');
      return;
    }
    if (before.findings === null || facts.findings === null) {
      check('no-new-findings', 'skipped', false, 'No new findings', 'Diagnostics could not run before or after the restart.');
      return;
    }
    const fresh = facts.findings.filter((f) => !before.findings!.includes(f));
    const gone = before.findings.filter((f) => !facts.findings!.includes(f));
    check(
      'no-new-findings',
      fresh.length === 0 ? 'passed' : 'failed',
      false,
      'No new findings',
      fresh.length === 0 ? `No new findings${gone.length > 0 ? `; resolved: ${gone.join(', ')}` : ''}.` : `New after the restart: ${fresh.join(', ')}.`,
    );
  }

  async function lookAfterCancel(): Promise<NodeSnapshot | null> {
    try {
      const facts = await input.gather(AbortSignal.timeout(tunables.cancelCheckTimeoutMs));
      return snapshotOf(facts, detectAll(facts)[plan.component]);
    } catch {
      return null;
    }
  }

  function finish(abortedBy: 'cancel' | 'timeout' | null): RestartResult {
    const cancelled = abortedBy !== null;
    const outcome = classifyOutcome({ cancelled, primaryFailed, checks });
    const failedChecks = checks.filter((c) => c.status === 'failed');
    const stillWrong = failedChecks.map((c) => c.detail);
    const nextSteps = [
      ...new Set([
        ...failedChecks.flatMap((c) =>
          nextStepsFor(c.id, { component: plan.component, serviceName: plan.serviceName, node, networks: before.hnsNetworks?.map((n) => n.name) ?? [] }),
        ),
        ...extraNextSteps,
      ]),
    ];
    let summary: string;
    if (cancelled) {
      const state = after?.services.find((s) => s.name.toLowerCase() === name.toLowerCase());
      const wasCordoned =
        steps.some((s) => s.kind === 'cordon' && s.state === 'succeeded') && !steps.some((s) => s.kind === 'uncordon' && s.state === 'succeeded');
      summary = changed
        ? `${abortedBy === 'timeout' ? 'Ran out of time' : 'Cancelled'} during ${currentStep}; ${state ? `${state.name} is ${state.status} now` : `the state of ${name} is unknown`}.`
        : `${abortedBy === 'timeout' ? 'Ran out of time' : 'Cancelled'} before anything was changed on ${node}.`;
      if (changed) {
        if (state && state.status !== 'Running') stillWrong.push(`${state.name} is ${state.status}.`);
        nextSteps.push(
          `Check ${name} on ${node} (windeck probe ${node} --probe services) and run windeck restart ${node} ${plan.component} again if it is not Running.`,
        );
      }
      if (wasCordoned) {
        stillWrong.push(`${node} is still cordoned.`);
        nextSteps.push(`kubectl uncordon ${node} when you are done.`);
      }
    } else if (outcome === 'succeeded') {
      const lb = checks.find((c) => c.id === 'load-balancers' && c.status === 'passed');
      summary = `${name} on ${node} recovered: ${checks.filter((c) => c.status === 'passed').length} post-check(s) passed${lb ? `, ${lb.detail.replace(/\.$/, '')}` : ''}.`;
    } else if (outcome === 'partial') {
      summary = `${name} on ${node} is running again, but not everything recovered: ${stillWrong.join(' ')}`;
    } else {
      summary = `${name} on ${node} did not come back: ${primaryReason || stillWrong.join(' ')}`;
    }
    op.progress({ message: summary.slice(0, 300) });
    return {
      node,
      cluster: plan.cluster,
      component: plan.component,
      method: plan.method,
      serviceName: plan.serviceName,
      transport: host.transport,
      outcome,
      summary,
      steps,
      postChecks: checks,
      stillWrong,
      nextSteps,
      before,
      after,
      auditId: input.auditId,
      operationId: op.operationId,
      planHash: plan.planHash,
      startedAt,
      finishedAt: now(),
    };
  }
}
