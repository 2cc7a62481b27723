import readline from 'node:readline';
import { WindeckError, type WireError } from '../../../shared/contract/errors';
import type { RestartPlan, RestartResult } from '../../../shared/contract/methods/restarts';
import { TERMINAL_STATES, type OperationProgress, type OperationRecord } from '../../../shared/domain/operation';
import { componentRefusal, parseRestartComponent, RESTART_COMPONENTS } from '../../../shared/logic/restart-plan';
import type { CommandDef } from '../command';
import { EXIT } from '../exit-codes';
import type { CliIo } from '../io';

/**
 * `windeck restart NODE COMPONENT [--dry-run] [--yes] [--json]` (DESIGN.md section 10): plan (pre-checks, every
 * command), then a typed confirmation of the node name on a terminal (or `--yes`), then the audited restart with
 * progress on stderr. Ctrl-C cancels (exit 130) and still prints what state the node was left in.
 */

const USAGE = `windeck restart NODE COMPONENT [--dry-run] [--yes] [--json] [--cordon] [--drain]   COMPONENT: ${RESTART_COMPONENTS.join(', ')}`;

/** Wait until the operation is terminal (events, with one read first so a fast one is not missed). */
async function waitOperation(io: CliIo, operationId: string, onAbort: () => void): Promise<OperationRecord> {
  const services = io.services();
  return new Promise<OperationRecord>((resolve, reject) => {
    let done = false;
    const finish = () => {
      if (done) return;
      const record = services.core.ops.get(operationId);
      if (!record || !TERMINAL_STATES.has(record.state)) return;
      done = true;
      unsubscribe();
      io.signal.removeEventListener('abort', abort);
      resolve(record);
    };
    const unsubscribe = services.events.subscribe((event, payload) => {
      if (event === 'ops:progress' && (payload as OperationProgress).operationId === operationId && TERMINAL_STATES.has((payload as OperationProgress).state)) {
        // The runner publishes before the row is final in the same tick; read it after.
        setImmediate(finish);
      }
    });
    const abort = () => onAbort();
    if (io.signal.aborted) onAbort();
    else io.signal.addEventListener('abort', abort, { once: true });
    try {
      finish();
    } catch (error) {
      reject(error);
    }
  });
}

function operationError(record: OperationRecord): WindeckError {
  const e: WireError = record.error ?? { code: 'INTERNAL', message: `${record.title} ended ${record.state}.`, retryable: false };
  return new WindeckError(e.code, e.message, e.context);
}

/**
 * The restart's result after a cancel: the audit row carries it once the bounded look at the node that follows a
 * cancel is done (a few seconds at most).
 */
async function resultAfterCancel(io: CliIo, operationId: string): Promise<RestartResult | null> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await io.call('restarts:result', { operationId });
    } catch (error) {
      if (!(error instanceof WindeckError && error.code === 'NOT_FOUND' && /still running/.test(error.message)) || Date.now() > deadline) return null;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function planText(plan: RestartPlan): string {
  const lines: string[] = [];
  lines.push(`Restart ${plan.component} on ${plan.node}`);
  lines.push(`  how it runs: ${plan.layout}`);
  lines.push(`  method:      ${plan.method}${plan.serviceName ? ` (${plan.serviceName})` : ''}`);
  lines.push('', 'Pre-checks:');
  for (const c of plan.preChecks) lines.push(`  [${c.status.toUpperCase().padEnd(7)}] ${c.title}: ${c.detail}`);
  lines.push('', `Disruption: ${plan.disruption.summary}`);
  if (plan.disruption.services.length > 0) lines.push(`  services restarted: ${plan.disruption.services.join(', ')}`);
  for (const p of plan.disruption.pods.slice(0, 20)) lines.push(`  pod ${p.namespace}/${p.name}: ${p.reason}`);
  if (plan.disruption.pods.length > 20) lines.push(`  ... and ${plan.disruption.pods.length - 20} more pod(s)`);
  lines.push('', plan.steps.length > 0 ? 'Steps and the exact commands:' : 'Steps: none.');
  for (const s of plan.steps) {
    lines.push(`  ${s.index + 1}. ${s.title}   (at most ${Math.round(s.timeoutMs / 1000)} s)`);
    for (const c of s.commands) {
      lines.push(`       ${c.mutating ? 'CHANGE' : 'read  '} ${c.via === 'node' ? 'node    ' : 'kube-api'} sends: ${c.sent}`);
      lines.push(`                         same as: ${c.equivalent}`);
    }
  }
  lines.push('', 'Then post-checks: service Running and staying up, node Ready, HNS networks back, load balancers vs before, no new findings.');
  if (!plan.canExecute) lines.push('', `Windeck will not run this: ${plan.refusal ?? ''}`);
  lines.push(`plan ${plan.planHash}`);
  return lines.join('\n');
}

function resultText(r: RestartResult): string {
  const lines = [`${r.outcome.toUpperCase()}: ${r.summary}`, '', 'Steps:'];
  for (const s of r.steps)
    lines.push(`  ${s.index + 1}. [${s.state}] ${s.title}${s.durationMs !== null ? ` (${(s.durationMs / 1000).toFixed(1)} s)` : ''}\n       ${s.detail}`);
  if (r.postChecks.length > 0) {
    lines.push('', 'Post-checks:');
    for (const c of r.postChecks) lines.push(`  [${c.status}] ${c.title}: ${c.detail}`);
  }
  if (r.stillWrong.length > 0) lines.push('', 'Still wrong:', ...r.stillWrong.map((s) => `  - ${s}`));
  if (r.nextSteps.length > 0) lines.push('', 'What to do next:', ...r.nextSteps.map((s) => `  - ${s}`));
  lines.push('', `audit #${r.auditId}, operation ${r.operationId}`);
  return lines.join('\n');
}

/** Ask for the node name on the terminal; resolves true when typed exactly. */
async function confirmOnTerminal(io: CliIo, plan: RestartPlan): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await new Promise<boolean>((resolve, reject) => {
      const cancel = () => reject(new WindeckError('CANCELLED', 'Not confirmed: cancelled. Nothing was changed.', { node: plan.node }));
      rl.once('SIGINT', cancel);
      io.signal.addEventListener('abort', cancel, { once: true });
      rl.question(`Type the node name (${plan.node}) to restart ${plan.component} there, anything else to stop: `, (answer) => {
        io.signal.removeEventListener('abort', cancel);
        resolve(answer.trim() === plan.node);
      });
    });
  } finally {
    rl.close();
  }
}

export const restartCommand: CommandDef = {
  name: 'restart',
  summary: 'Guided restart of a node component (plan, confirm, audited restart, post-checks)',
  usage: USAGE,
  flags: { '--dry-run': 'boolean', '--yes': 'boolean', '--cordon': 'boolean', '--drain': 'boolean' },
  async run(io) {
    const [node, componentText, ...extra] = io.args.positionals;
    if (!node || !componentText || extra.length > 0) throw new WindeckError('VALIDATION', `Usage: ${USAGE}`);
    const component = parseRestartComponent(componentText);
    if (!component) throw new WindeckError('VALIDATION', componentRefusal(componentText));
    const dryRun = io.args.bool('--dry-run');
    const yes = io.args.bool('--yes');
    if (!dryRun && !yes && !io.streams.stdinIsTTY) {
      throw new WindeckError(
        'VALIDATION',
        `windeck restart changes ${node}: it asks for a typed confirmation on a terminal, and there is none. Pass --yes to confirm (see what would run with --dry-run first).`,
        { node },
      );
    }
    const transport = io.args.string('--transport') as 'auto' | 'ssh' | 'winrm' | undefined;
    const stopProgress = io.showProgress();
    try {
      // 1. Plan (read-only).
      const { operationId: planOp } = await io.call('restarts:plan', {
        node,
        component,
        ...(io.args.string('--kubeconfig') ? { kubeconfig: io.args.string('--kubeconfig')! } : {}),
        ...(io.args.string('--context') ? { context: io.args.string('--context')! } : {}),
        ...(io.args.bool('--cordon') ? { cordon: true } : {}),
        ...(io.args.bool('--drain') ? { drain: true } : {}),
        ...(transport ? { transport } : {}),
      });
      const planRecord = await waitOperation(io, planOp, () => void io.call('ops:cancel', { operationId: planOp }).catch(() => undefined));
      if (planRecord.state !== 'succeeded') throw operationError(planRecord);
      const plan = planRecord.result as RestartPlan;

      if (dryRun) {
        stopProgress();
        io.emit(
          {
            node: plan.node,
            component: plan.component,
            method: plan.method,
            dryRun: true,
            outcome: null,
            serviceName: plan.serviceName,
            layout: plan.layout,
            canExecute: plan.canExecute,
            refusal: plan.refusal,
            preChecks: plan.preChecks,
            disruption: plan.disruption,
            steps: plan.steps,
            before: plan.before,
            after: null,
            auditId: null,
            planHash: plan.planHash,
          },
          () => `${planText(plan)}\n\nDry run: nothing was changed.`,
        );
        return EXIT.OK;
      }
      if (!plan.canExecute) {
        if (!io.json) io.err(planText(plan));
        throw new WindeckError('UNSUPPORTED', plan.refusal ?? `Windeck cannot restart ${component} on ${node}.`, { node });
      }

      // 2. Confirm: --yes, or the node name typed on the terminal.
      if (yes && !io.json) io.err(planText(plan));
      if (!yes) {
        io.err(planText(plan));
        stopProgress();
        if (!(await confirmOnTerminal(io, plan)))
          throw new WindeckError('VALIDATION', 'Not confirmed: the answer was not the node name. Nothing was changed.', { node });
      }

      // 3. Execute (audited operation), Ctrl-C cancels it.
      const stop2 = yes ? () => undefined : io.showProgress();
      const { operationId } = await io.call('restarts:execute', { planHash: plan.planHash, confirm: { node: plan.node, component: plan.component } });
      const record = await waitOperation(io, operationId, () => void io.call('ops:cancel', { operationId }).catch(() => undefined));
      stop2();
      let result: RestartResult | null = record.state === 'succeeded' ? (record.result as RestartResult) : null;
      if (!result && (record.state === 'cancelled' || record.state === 'timed-out')) result = await resultAfterCancel(io, operationId);
      if (!result) throw operationError(record);
      stopProgress();
      io.emit(result, () => resultText(result));
      return result.outcome === 'cancelled' ? EXIT.CANCELLED : EXIT.OK;
    } finally {
      stopProgress();
    }
  },
};
