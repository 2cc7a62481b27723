/**
 * `windeck diagnose NODE | --bundle PATH | --from DIR [--fail-on SEVERITY]` (DESIGN.md section 10).
 * Offline inputs run through electron/services/diagnose; the live form runs the `diagnose:node` operation (probes
 * over --transport, file/probe rules + the node's cluster rules, findings stored). `--json` prints
 * `{"inputs", "findings"}`; exit 2 when the node cannot be reached, 4 when a finding is at or above --fail-on,
 * 130 on Ctrl-C (the operation is cancelled).
 */
import path from 'node:path';
import { WindeckError, type WireError } from '../../../shared/contract/errors';
import type { Finding, Severity } from '../../../shared/domain/finding';
import type { OperationRecord } from '../../../shared/domain/operation';
import { hasFindingAtOrAbove } from '../../../shared/rules/evaluate';
import { diagnoseFiles, type DiagnoseProgress, type DiagnoseResult } from '../../services/diagnose/diagnose-files';
import type { CommandDef } from '../command';
import { EXIT } from '../exit-codes';
import type { CliIo } from '../io';
import { waitForOperation } from '../wait-for-operation';

const TRANSPORTS = ['auto', 'ssh', 'winrm'] as const;


/** Live diagnosis of one node through the `diagnose:node` operation (same path as the UI). */
async function diagnoseLive(io: CliIo, node: string): Promise<DiagnoseResult> {
  const transport = io.args.string('--transport') ?? 'auto';
  if (!(TRANSPORTS as readonly string[]).includes(transport)) throw new WindeckError('VALIDATION', `--transport must be auto, ssh or winrm, not "${transport}".`);
  const kubeconfig = io.args.string('--kubeconfig');
  const context = io.args.string('--context');
  const accept = io.args.all('--accept-host-key');
  const stopProgress = io.showProgress();
  let record: OperationRecord;
  try {
    const { operationId } = await io.call('diagnose:node', {
      node,
      transport: transport as (typeof TRANSPORTS)[number],
      ...(kubeconfig ? { kubeconfig: path.resolve(kubeconfig) } : {}),
      ...(context ? { context } : {}),
      ...(accept.length > 0 ? { acceptHostKeys: accept } : {}),
    });
    record = await waitForOperation(io, operationId);
  } finally {
    stopProgress();
  }
  if (record.state !== 'succeeded') {
    const e: WireError = record.error ?? { code: record.state === 'cancelled' ? 'CANCELLED' : record.state === 'timed-out' ? 'TIMEOUT' : 'INTERNAL', message: `Diagnosing ${node} ended ${record.state}.`, retryable: false };
    throw new WindeckError(e.code, e.message, e.context);
  }
  const value = record.result as DiagnoseResult & { transport?: string };
  if (value.transport) io.err(`diagnose: ${node} via ${value.transport}`);
  return { inputs: value.inputs, findings: value.findings };
}

const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

function parseFailOn(value: string | undefined): Severity | null {
  if (value === undefined) return null;
  if (value === 'error' || value === 'warning' || value === 'info') return value;
  throw new WindeckError('VALIDATION', `--fail-on must be error or warning, not "${value}".`);
}

function megabytes(n: number): string {
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** Progress on stderr: a bar on a terminal, nothing per file elsewhere (a summary line at the end). */
function progressPrinter(io: CliIo): { update(p: DiagnoseProgress): void; done(result: DiagnoseResult, ms: number, bytes: number): void } {
  const tty = io.streams.stderr.isTTY === true;
  let width = 0;
  return {
    update(p) {
      if (!tty) return;
      const frac = p.bytesTotal > 0 ? Math.min(1, p.bytesDone / p.bytesTotal) : p.filesTotal > 0 ? p.filesDone / p.filesTotal : 0;
      const bar = '#'.repeat(Math.round(frac * 24)).padEnd(24, '.');
      const line = `\r[${bar}] ${String(Math.round(frac * 100)).padStart(3)}% ${p.filesDone}/${p.filesTotal} files ${p.path ?? ''}`.slice(0, 150);
      io.streams.stderr.write(line.padEnd(width));
      width = line.length;
    },
    done(result, ms, bytes) {
      if (tty && width > 0) io.streams.stderr.write('\r'.padEnd(width + 1) + '\r');
      const unknown = result.inputs.filter((i) => i.kind === 'unknown').length;
      io.err(`diagnose: ${result.inputs.length} inputs (${megabytes(bytes)}, ${unknown} unknown) in ${(ms / 1000).toFixed(1)} s; ${result.findings.length} findings`);
    },
  };
}

function formatFinding(f: Finding): string[] {
  const lines = [`${f.severity.toUpperCase().padEnd(7)} ${f.ruleId}${f.node ? ` [${f.node}]` : ''}: ${f.title}`];
  for (const e of f.evidence.slice(0, 5)) lines.push(`        evidence: ${e.source}${e.line !== null ? `:${e.line}` : ''}  ${e.excerpt.replace(/\s+/g, ' ').slice(0, 160)}`);
  if (f.evidence.length > 5) lines.push(`        (${f.evidence.length - 5} more evidence lines)`);
  lines.push(`        why: ${f.remediation.summary}`);
  f.remediation.steps.forEach((s, i) => lines.push(`        ${i + 1}. ${s}`));
  for (const c of f.remediation.commands) lines.push(`        $ ${c}`);
  for (const l of f.remediation.links) lines.push(`        see ${l}`);
  return lines;
}

/** Human-readable result. */
export function formatDiagnoseText(result: DiagnoseResult): string {
  const out: string[] = [];
  const byKind = new Map<string, number>();
  for (const i of result.inputs) byKind.set(i.kind, (byKind.get(i.kind) ?? 0) + 1);
  out.push(`Inputs: ${result.inputs.length} (${[...byKind.entries()].map(([k, n]) => `${k} ${n}`).join(', ')})`);
  const unknown = result.inputs.filter((i) => i.kind === 'unknown' || i.kind === 'unreadable');
  for (const u of unknown.slice(0, 50)) out.push(`  ${u.kind}: ${u.path}`);
  if (unknown.length > 50) out.push(`  ... ${unknown.length - 50} more not recognized`);
  out.push('');
  if (result.findings.length === 0) {
    out.push('No findings: nothing in these inputs matches a known problem.');
  } else {
    const counts = SEVERITIES.map((s) => `${result.findings.filter((f) => f.severity === s).length} ${s}`).join(', ');
    out.push(`Findings: ${result.findings.length} (${counts})`);
    for (const f of result.findings) out.push('', ...formatFinding(f));
  }
  return out.join('\n');
}

/** Run `windeck diagnose`; returns the exit code. */
export async function runDiagnose(io: CliIo): Promise<number> {
  const from = io.args.string('--from');
  const bundle = io.args.string('--bundle');
  const failOn = parseFailOn(io.args.string('--fail-on'));
  const nodes = io.args.positionals;
  const given = [from !== undefined, bundle !== undefined, nodes.length > 0].filter(Boolean).length;
  if (given !== 1 || nodes.length > 1) throw new WindeckError('VALIDATION', 'Usage: windeck diagnose NODE | --bundle PATH | --from DIR [--fail-on error|warning]');
  const verbose = io.args.bool('--verbose');
  const onWarning = verbose ? (p: string, m: string) => io.err(`${p}: ${m}`) : undefined;
  const started = Date.now();
  let result: DiagnoseResult;
  let bytes = 0;
  const printer = progressPrinter(io);
  if (nodes.length === 1) {
    result = await diagnoseLive(io, nodes[0]!);
  } else {
    result = await diagnoseFiles(from !== undefined ? { from: path.resolve(from) } : { bundle: path.resolve(bundle!) }, {
      signal: io.signal,
      onWarning,
      onProgress: (p) => {
        bytes = p.bytesDone;
        printer.update(p);
      },
    });
  }
  printer.done(result, Date.now() - started, bytes);
  io.emit({ inputs: result.inputs, findings: result.findings }, () => formatDiagnoseText(result));
  if (failOn && hasFindingAtOrAbove(result.findings, failOn)) return EXIT.FINDINGS;
  return EXIT.OK;
}

export const diagnoseCommand: CommandDef = {
  name: 'diagnose',
  summary: 'Diagnose a node, a bundle or a folder of files',
  usage: 'windeck diagnose NODE [--transport auto|ssh|winrm] [--accept-host-key SHA256:...] | --bundle PATH | --from DIR [--fail-on error|warning] [--verbose]',
  flags: { '--bundle': 'string', '--from': 'string', '--fail-on': 'string', '--verbose': 'boolean', '--accept-host-key': 'multi' },
  run: runDiagnose,
};
