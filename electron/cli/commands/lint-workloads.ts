import type { Finding } from '../../../shared/domain/finding';
import { kubeInventory, type LintResult } from '../../services/kube/inventory';
import type { CommandDef } from '../command';
import { EXIT } from '../exit-codes';
import type { CliIo } from '../io';
import { formatAge, targetOf } from './nodes';

/**
 * `windeck lint-workloads [-n NAMESPACE]` (DESIGN.md section 10): every workload whose pods can be scheduled onto
 * a Windows node is checked for fields Windows does not support, for a missing OS selector in a mixed cluster,
 * and Services for more than 64 backends. `--json` prints `{"inputs", "findings"}` like `windeck diagnose`.
 * Runs as an operation; when the cluster does not answer it lints what the store holds (age on stderr).
 */

function human(result: LintResult): string {
  if (result.findings.length === 0) return 'No findings: every workload that can land on Windows nodes looks fine.';
  const order = { error: 0, warning: 1, info: 2 } as const;
  const sorted = [...result.findings].sort((a, b) => order[a.severity] - order[b.severity]);
  const lines: string[] = [];
  for (const f of sorted as Finding[]) {
    lines.push(`${f.severity.toUpperCase().padEnd(7)} ${f.ruleId}  ${f.title}`);
    for (const e of f.evidence.slice(0, 6)) lines.push(`        ${e.source}: ${e.excerpt}`);
    if (f.evidence.length > 6) lines.push(`        ... ${f.evidence.length - 6} more`);
    lines.push(`        fix: ${f.remediation.summary}`);
  }
  const counts = sorted.reduce<Record<string, number>>((acc, f) => ((acc[f.severity] = (acc[f.severity] ?? 0) + 1), acc), {});
  lines.push('', `${sorted.length} finding(s): ${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ')}`);
  return lines.join('\n');
}

export async function runLintWorkloads(io: CliIo): Promise<number> {
  const target = targetOf(io);
  const core = io.services().core;
  const inventory = kubeInventory(core);
  const namespace = io.args.string('--namespace') ?? null;
  const offline = io.args.bool('--offline');
  const { ctx, clusterId } = inventory.resolve(target);
  const stop = io.showProgress();
  let result: LintResult;
  try {
    const op = core.ops.start({ kind: 'diagnose', title: `Lint workloads in ${ctx.contextName}${namespace ? `/${namespace}` : ''}`, cluster: clusterId, signal: io.signal }, (o) =>
      inventory.lint(target, { namespace, signal: o.signal, offline }),
    );
    result = await op.done;
  } finally {
    stop();
  }
  for (const w of result.warnings) io.err(`windeck: ${w}`);
  if (result.fromStore) io.err(`windeck: linted the workloads stored ${result.syncedAt === null ? '' : `${formatAge(core.clock.now() - result.syncedAt)} ago`} for context "${ctx.contextName}".`);
  io.emit({ inputs: result.inputs, findings: result.findings }, () => human(result));
  return EXIT.OK;
}

export const lintWorkloadsCommand: CommandDef = {
  name: 'lint-workloads',
  summary: 'Check workloads that can land on Windows nodes',
  usage: 'windeck lint-workloads [-n NAMESPACE] [--kubeconfig PATH] [--context NAME] [--offline] [--json]',
  flags: { '--namespace': 'string' },
  run: runLintWorkloads,
};
