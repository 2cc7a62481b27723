import { afterEach, describe, expect, it } from 'vitest';
import type { RestartPlan, RestartResult } from '../../../shared/contract/methods/restarts';
import type { RestartComponent } from '../../../shared/logic/restart-plan';
import { startRig, type Rig } from './rig';

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) await r.cleanup();
});

async function rig(scenario: string, extra: Parameters<typeof startRig>[0] extends infer O ? Partial<O> : never = {}): Promise<Rig> {
  const r = await startRig({ scenario, ...extra });
  rigs.push(r);
  return r;
}

async function plan(r: Rig, component: RestartComponent, options: { cordon?: boolean; drain?: boolean } = {}): Promise<RestartPlan> {
  const op = r.restarts.startPlan({ node: r.node, component, ...options });
  return op.done;
}

async function execute(r: Rig, p: RestartPlan, extra: { settleMs?: number } = {}): Promise<RestartResult> {
  return r.restarts.startExecute({ planHash: p.planHash, confirm: { node: p.node, component: p.component }, ...extra }).result;
}

function serviceStatus(r: Rig, name: string): string | undefined {
  return r.sim.model.service(name)?.status;
}

describe('guided restarts against the simulators (SSH + Kubernetes API on loopback)', () => {
  it('kube-proxy stopped: the restart recovers it, and the outcome and the audit row say so', async () => {
    const r = await rig('kube-proxy-stopped');
    expect(serviceStatus(r, 'kube-proxy')).toBe('Stopped');
    const p = await plan(r, 'kube-proxy');
    expect(p.canExecute).toBe(true);
    expect(p.method).toBe('nssm-service');
    expect(p.serviceName).toBe('kube-proxy');
    expect(p.before.loadBalancerCount).toBe(0);
    expect(r.mutatingCalls()).toEqual([]);

    const result = await execute(r, p);
    expect(result.outcome).toBe('succeeded');
    expect(result.summary).toMatch(/kube-proxy on win-r1 recovered/);
    expect(result.steps.map((s) => [s.kind, s.state])).toEqual([['restart-service', 'succeeded']]);
    expect(result.postChecks.find((c) => c.id === 'service-running')?.status).toBe('passed');
    expect(result.postChecks.find((c) => c.id === 'service-stays-up')?.status).toBe('passed');
    expect(result.postChecks.find((c) => c.id === 'load-balancers')).toMatchObject({
      status: 'passed',
      detail: expect.stringMatching(/3 load balancer\(s\) \(0 before\)/),
    });
    expect(result.postChecks.find((c) => c.id === 'hns-networks')?.status).toBe('passed');
    expect(result.postChecks.find((c) => c.id === 'node-ready')?.status).toBe('passed');
    // The diagnostics engine ran before and after: the stopped-service finding is gone, nothing new appeared.
    expect(result.before.findings).toContain('service-not-running');
    expect(result.after?.findings).not.toContain('service-not-running');
    expect(result.postChecks.find((c) => c.id === 'no-new-findings')).toMatchObject({
      status: 'passed',
      detail: expect.stringMatching(/resolved: .*service-not-running/),
    });
    expect(result.after?.services.find((s) => s.name === 'kube-proxy')?.status).toBe('Running');
    expect(serviceStatus(r, 'kube-proxy')).toBe('Running');
    expect(r.mutatingCalls()).toEqual([JSON.stringify({ name: 'kube-proxy', timeoutSeconds: 20 })]);

    const audit = r.services.core.repos.audit.list({ node: r.node });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ id: result.auditId, action: 'restart', node: 'win-r1', outcome: 'succeeded' });
    expect(audit[0]!.finishedAt).not.toBeNull();
    expect((audit[0]!.detail as { result: RestartResult }).result.outcome).toBe('succeeded');
    // The audit row was committed before the first remote call of the execution.
    const firstMutation = r.sim.commandHost.invocations.find((i) => i.scriptId === 'restart-service')!;
    expect(audit[0]!.at).toBeLessThanOrEqual(firstMutation.at);
    const op = r.services.core.ops.get(result.operationId);
    expect(op?.state).toBe('succeeded');
    expect((op?.result as RestartResult).auditId).toBe(result.auditId);
  });

  it('kubelet whose start fails: outcome failed, with the reason and what to do next', async () => {
    const r = await rig('kubelet-restart-fails');
    const p = await plan(r, 'kubelet');
    expect(p.steps[0]?.title).toMatch(/Restart kubelet \(and its dependents kube-proxy\)/);
    const result = await execute(r, p);
    expect(result.outcome).toBe('failed');
    expect(result.summary).toMatch(/kubelet on win-r1 did not come back/);
    expect(result.summary).toMatch(/did not respond to the start or control request in a timely fashion/);
    expect(result.steps[0]).toMatchObject({ state: 'failed', detail: expect.stringMatching(/kubelet did not come back/) });
    expect(result.postChecks).toEqual([expect.objectContaining({ id: 'service-running', status: 'failed', critical: true })]);
    expect(result.nextSteps.join('\n')).toMatch(/C:\\k\\kubelet\.log/);
    expect(result.nextSteps.join('\n')).toMatch(/windeck diagnose win-r1/);
    expect(result.after?.services.find((s) => s.name === 'kubelet')?.status).toBe('Stopped');
    expect(r.services.core.repos.audit.list({ node: r.node })[0]).toMatchObject({ outcome: 'failed' });
  });

  it('a crash after start is caught by the settle period: failed, service did not stay up', async () => {
    const r = await rig('restart-kube-proxy-crashes');
    const p = await plan(r, 'kube-proxy');
    const result = await execute(r, p, { settleMs: 1_500 });
    expect(result.outcome).toBe('failed');
    expect(result.steps[0]?.state).toBe('succeeded');
    expect(result.postChecks.find((c) => c.id === 'service-stays-up')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/kube-proxy is Stopped/),
    });
  });

  it('HNS restart where the network does not come back: partial, names the missing network', async () => {
    const r = await rig('restart-network-lost');
    const p = await plan(r, 'hns');
    expect(p.steps.map((s) => `${s.kind}:${s.target}`)).toEqual([
      'restart-service:hns',
      'restart-service:flanneld',
      'wait-network:flannel.4096',
      'restart-service:kube-proxy',
    ]);
    const result = await execute(r, p);
    expect(result.outcome).toBe('partial');
    expect(result.steps.map((s) => s.state)).toEqual(['succeeded', 'succeeded', 'failed', 'skipped']);
    expect(result.stillWrong.join(' ')).toMatch(/flannel\.4096/);
    expect(result.nextSteps.join(' ')).toMatch(/Waiting for the Network to be created/);
    expect(r.sim.model.hnsNetworks().map((n) => n.Name)).toEqual(['External']);
  });

  it('HNS restart on a healthy node: networks and load balancers come back in dependency order', async () => {
    const r = await rig('healthy');
    const p = await plan(r, 'hns');
    const result = await execute(r, p);
    expect(result.outcome).toBe('succeeded');
    expect(result.before.loadBalancerCount).toBe(3);
    expect(result.after?.loadBalancerCount).toBe(3);
    expect(result.after?.hnsNetworks?.map((n) => n.name).sort()).toEqual(['External', 'flannel.4096']);
    const order = r.sim.commandHost.invocations.filter((i) => i.scriptId === 'restart-service').map((i) => (i.args as { name: string }).name);
    expect(order).toEqual(['hns', 'flanneld', 'kube-proxy']);
  });
});

describe('layouts', () => {
  it('service layout (AKS): restarts the `kubeproxy` service under its real name', async () => {
    const r = await rig('restart-aks-services');
    const p = await plan(r, 'kube-proxy');
    expect(p.method).toBe('service');
    expect(p.serviceName).toBe('kubeproxy');
    expect(p.steps[0]!.commands[0]!.sent).toBe('restart-service v1 {"name":"kubeproxy","timeoutSeconds":20}');
    const result = await execute(r, p);
    expect(result.outcome).toBe('succeeded');
    expect(r.mutatingCalls()).toEqual([JSON.stringify({ name: 'kubeproxy', timeoutSeconds: 20 })]);
  });

  it('nssm layout: plan shows the nssm service and its AppParameters count, restart goes through the service', async () => {
    const r = await rig('healthy');
    const p = await plan(r, 'kubelet');
    expect(p.method).toBe('nssm-service');
    expect(p.layout).toMatch(/nssm service "kubelet" running C:\\k\\kubelet\.exe/);
    const result = await execute(r, p);
    expect(result.outcome).toBe('succeeded');
    expect(serviceStatus(r, 'kube-proxy')).toBe('Running');
    expect(result.steps[0]!.detail).toMatch(/dependents started again: kube-proxy (Running|StartPending)/);
    expect(result.postChecks.find((c) => c.id === 'follow-ups')).toMatchObject({ status: 'passed', detail: 'kube-proxy Running.' });
  });

  it('DaemonSet layout: deletes the HostProcess pod through the API and waits for a Ready replacement', async () => {
    const r = await rig('restart-hostprocess');
    const before = r.podNames().filter((n) => n.startsWith('kube-proxy-windows-'));
    expect(before).toHaveLength(1);
    const p = await plan(r, 'kube-proxy');
    expect(p.method).toBe('daemonset-pod');
    expect(p.serviceName).toBe(`kube-system/${before[0]}`);
    expect(p.steps[0]!.commands[0]!.sent).toBe(`DELETE /api/v1/namespaces/kube-system/pods/${before[0]}`);
    const result = await execute(r, p);
    expect(result.outcome).toBe('succeeded');
    expect(result.postChecks.find((c) => c.id === 'pod-replaced')?.status).toBe('passed');
    const after = r.podNames().filter((n) => n.startsWith('kube-proxy-windows-'));
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before[0]);
    expect(r.mutatingCalls()).toEqual([]);
  });

  it('bare process layout: no plan to run, a clear explanation, nothing sent', async () => {
    const r = await rig('flannel-bare-process');
    const p = await plan(r, 'flanneld');
    expect(p.method).toBe('bare-process');
    expect(p.canExecute).toBe(false);
    expect(p.steps).toEqual([]);
    expect(p.refusal).toMatch(/bare process \(flanneld\.exe\)/);
    expect(p.refusal).toMatch(/start\.ps1/);
    expect(() => r.restarts.startExecute({ planHash: p.planHash, confirm: { node: p.node, component: 'flanneld' } })).toThrow(/bare process/);
    expect(r.mutatingCalls()).toEqual([]);
    expect(r.services.core.repos.audit.list({ node: r.node })).toEqual([]);
  });
});
