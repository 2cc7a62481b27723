import { afterEach, describe, expect, it } from 'vitest';
import { isWindeckError } from '../../../shared/contract/errors';
import type { OperationProgress } from '../../../shared/domain/operation';
import { waitFor } from '../../helpers/temp-dir';
import { startRig, type Rig } from './rig';

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) await r.cleanup();
});

async function rig(scenario: string, extra: Omit<Parameters<typeof startRig>[0], 'scenario'> = {}): Promise<Rig> {
  const r = await startRig({ scenario, ...extra });
  rigs.push(r);
  return r;
}

function codeOf(f: () => unknown): string | null {
  try {
    f();
    return null;
  } catch (error) {
    return isWindeckError(error) ? error.code : 'not-a-windeck-error';
  }
}

/** Resolve when the operation reports a step whose title matches. */
function stepReached(r: Rig, operationId: string, title: RegExp): Promise<void> {
  return new Promise((resolve) => {
    const off = r.services.events.subscribe((event, payload) => {
      const p = payload as OperationProgress;
      if (event === 'ops:progress' && p.operationId === operationId && title.test(p.step.title)) {
        off();
        resolve();
      }
    });
  });
}

describe('cancel mid-restart', () => {
  it('cancelled while the service restarts: outcome cancelled, the state it was left in, audit says cancelled', async () => {
    const r = await rig('restart-slow-start');
    const plan = await r.restarts.startPlan({ node: r.node, component: 'kube-proxy' }).done;
    const started = r.restarts.startExecute({ planHash: plan.planHash, confirm: { node: r.node, component: 'kube-proxy' } });
    await stepReached(r, started.operationId, /^Restart kube-proxy/);
    // The restart-service script is running on the node (kube-proxy needs ~4 s to come up).
    await waitFor(() => r.sim.commandHost.invocations.some((i) => i.scriptId === 'restart-service'));
    expect(r.services.core.ops.cancel(started.operationId)).toBe(true);
    const result = await started.result;
    expect(result.outcome).toBe('cancelled');
    expect(result.steps[0]).toMatchObject({ kind: 'restart-service', state: 'cancelled' });
    expect(result.summary).toMatch(/Cancelled during Restart kube-proxy; kube-proxy is StartPending now/);
    expect(result.stillWrong).toEqual(['kube-proxy is StartPending.']);
    expect(result.nextSteps.join(' ')).toMatch(/windeck restart win-r1 kube-proxy again/);
    expect(result.after?.services.find((s) => s.name === 'kube-proxy')?.status).toBe('StartPending');
    expect(r.services.core.ops.get(started.operationId)?.state).toBe('cancelled');
    const audit = r.services.core.repos.audit.list({ node: r.node });
    expect(audit[0]).toMatchObject({ outcome: 'cancelled', id: result.auditId });
    expect(audit[0]!.finishedAt).not.toBeNull();
    // The operation ends `cancelled` with an error; the result stays readable through the contract.
    const viaContract = await r.services.dispatch('restarts:result', { operationId: started.operationId });
    expect(viaContract.ok && (viaContract.value as { outcome: string }).outcome).toBe('cancelled');
  });

  it('cancelled during the wait for the network: later steps never run', async () => {
    const r = await rig('restart-network-lost', { tunables: { networkWaitMs: 30_000 } });
    const plan = await r.restarts.startPlan({ node: r.node, component: 'hns' }).done;
    const started = r.restarts.startExecute({ planHash: plan.planHash, confirm: { node: r.node, component: 'hns' } });
    await stepReached(r, started.operationId, /^Wait for HNS network/);
    r.services.core.ops.cancel(started.operationId);
    const result = await started.result;
    expect(result.outcome).toBe('cancelled');
    expect(result.steps.map((s) => s.state)).toEqual(['succeeded', 'succeeded', 'cancelled', 'skipped']);
    expect(result.steps[3]!.detail).toBe('Not run: cancelled.');
    const restarted = r.sim.commandHost.invocations.filter((i) => i.scriptId === 'restart-service').map((i) => (i.args as { name: string }).name);
    expect(restarted).toEqual(['hns', 'flanneld']);
  });

  it('cancelled in the grace period: nothing is sent to the node, the audit row says so', async () => {
    const r = await rig('healthy', { tunables: { graceMs: 30_000 } });
    const plan = await r.restarts.startPlan({ node: r.node, component: 'kubelet' }).done;
    const callsBefore = r.sim.commandHost.invocations.length;
    const started = r.restarts.startExecute({ planHash: plan.planHash, confirm: { node: r.node, component: 'kubelet' } });
    await stepReached(r, started.operationId, /^Grace period/);
    r.services.core.ops.cancel(started.operationId);
    const result = await started.result;
    expect(result.outcome).toBe('cancelled');
    expect(result.summary).toMatch(/Cancelled before anything was changed on win-r1/);
    expect(result.after).toBeNull();
    expect(r.sim.commandHost.invocations.slice(callsBefore).map((i) => i.scriptId)).toEqual([]);
    expect(r.services.core.repos.audit.list({ node: r.node })[0]?.outcome).toBe('cancelled');
  });
});

describe('safety', () => {
  it('execute needs the plan hash and a confirmation naming node and component exactly', async () => {
    const r = await rig('healthy');
    const plan = await r.restarts.startPlan({ node: r.node, component: 'kube-proxy' }).done;
    expect(codeOf(() => r.restarts.startExecute({ planHash: 'f'.repeat(64), confirm: { node: r.node, component: 'kube-proxy' } }))).toBe('NOT_FOUND');
    expect(codeOf(() => r.restarts.startExecute({ planHash: plan.planHash, confirm: { node: 'WIN-R1', component: 'kube-proxy' } }))).toBe('VALIDATION');
    expect(codeOf(() => r.restarts.startExecute({ planHash: plan.planHash, confirm: { node: r.node, component: 'kubelet' } }))).toBe('VALIDATION');
    expect(r.services.core.repos.audit.list({ node: r.node })).toEqual([]);
    expect(r.mutatingCalls()).toEqual([]);
  });

  it('only the allowed components, through the contract too', async () => {
    const r = await rig('healthy', { cluster: false });
    const res = await r.services.dispatch('restarts:plan', { node: r.node, component: 'vmcompute' });
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error.code).toBe('VALIDATION');
  });

  it('one restart per node at a time: a second one is CONFLICT, also at plan time', async () => {
    const r = await rig('healthy', { tunables: { graceMs: 30_000 } });
    const plan = await r.restarts.startPlan({ node: r.node, component: 'kube-proxy' }).done;
    const first = r.restarts.startExecute({ planHash: plan.planHash, confirm: { node: r.node, component: 'kube-proxy' } });
    expect(codeOf(() => r.restarts.startExecute({ planHash: plan.planHash, confirm: { node: r.node, component: 'kube-proxy' } }))).toBe('CONFLICT');
    const other = await r.restarts.startPlan({ node: r.node, component: 'kubelet' }).done;
    expect(other.canExecute).toBe(false);
    expect(other.preChecks.find((c) => c.id === 'one-at-a-time')?.detail).toMatch(/Another restart/);
    r.services.core.ops.cancel(first.operationId);
    expect((await first.result).outcome).toBe('cancelled');
    // Free again once the first one ended.
    expect(r.restarts.busyReason({ clusterId: null, cluster: null, node: r.node })).toBeNull();
  });

  it('the node changed since the plan: CONFLICT at execution, nothing changed, audit says refused', async () => {
    const r = await rig('restart-hostprocess');
    const plan = await r.restarts.startPlan({ node: r.node, component: 'kube-proxy' }).done;
    // Someone else deletes the pod; the DaemonSet replaces it under a new name.
    const [ns, name] = plan.serviceName!.split('/') as [string, string];
    r.kube!.store.remove('pods', ns, name);
    await waitFor(() => r.podNames().some((n) => n.startsWith('kube-proxy-windows-') && n !== name));
    const started = r.restarts.startExecute({ planHash: plan.planHash, confirm: { node: r.node, component: 'kube-proxy' } });
    await expect(started.result).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/changed since the plan/) });
    expect(r.services.core.ops.get(started.operationId)?.state).toBe('failed');
    expect(r.services.core.repos.audit.list({ node: r.node })[0]).toMatchObject({ outcome: 'refused' });
  });

  it('a plan expires', async () => {
    const r = await rig('healthy', { tunables: { planTtlMs: 1 } });
    const plan = await r.restarts.startPlan({ node: r.node, component: 'kube-proxy' }).done;
    await waitFor(() => Date.now() > plan.expiresAt);
    expect(codeOf(() => r.restarts.startExecute({ planHash: plan.planHash, confirm: { node: r.node, component: 'kube-proxy' } }))).toBe('NOT_FOUND');
  });

  it('the plan is read-only: no mutating script, no change in the cluster', async () => {
    const r = await rig('kube-proxy-stopped');
    const rv = r.kube!.store.resourceVersion;
    const plan = await r.restarts.startPlan({ node: r.node, component: 'hns', drain: true }).done;
    expect(plan.steps.map((s) => s.kind)).toEqual(['cordon', 'drain', 'restart-service', 'restart-service', 'wait-network', 'restart-service', 'uncordon']);
    expect(r.sim.commandHost.invocations.map((i) => i.scriptId).filter((id) => id === 'restart-service')).toEqual([]);
    expect(r.kube!.store.resourceVersion).toBe(rv);
    expect(r.sim.model.service('hns')?.status).toBe('Running');
  });

  it('cordon and drain: evicts the non-DaemonSet pods, restarts, uncordons', async () => {
    const r = await rig('healthy');
    const plan = await r.restarts.startPlan({ node: r.node, component: 'containerd', drain: true }).done;
    expect(plan.steps.map((s) => s.kind)).toEqual(['cordon', 'drain', 'restart-service', 'uncordon']);
    const result = await r.restarts.startExecute({ planHash: plan.planHash, confirm: { node: r.node, component: 'containerd' } }).result;
    expect(result.steps.map((s) => [s.kind, s.state])).toEqual([
      ['cordon', 'succeeded'],
      ['drain', 'succeeded'],
      ['restart-service', 'succeeded'],
      ['uncordon', 'succeeded'],
    ]);
    expect(result.outcome, result.stillWrong.join(' ')).toBe('succeeded');
    const nodeObj = r.kube!.store.getObject('nodes', '', r.node) as { spec?: { unschedulable?: boolean } };
    expect(nodeObj.spec?.unschedulable ?? false).toBe(false);
    // Only DaemonSet pods are left on the node.
    const left = r.kube!.store.list('pods', { fields: [{ field: 'spec.nodeName', value: r.node, negate: false }] }).items.map((i) => r.kube!.store.render(i));
    expect(left.every((p) => (p.metadata.ownerReferences ?? []).some((o: { kind: string }) => o.kind === 'DaemonSet'))).toBe(true);
  });
});
