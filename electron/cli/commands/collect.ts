import { WindeckError, type WireError } from '../../../shared/contract/errors';
import { BundleExportResult, SinceText } from '../../../shared/contract/methods/bundles';
import type { OperationRecord } from '../../../shared/domain/operation';
import type { CommandDef } from '../command';
import { EXIT } from '../exit-codes';
import { waitForOperation } from '../wait-for-operation';

/**
 * `windeck collect NODE ... -o FILE.zip|DIR/ [--since 30m|2h|1d] [--redact standard|strict]` (DESIGN.md
 * section 10): a redacted bundle of the nodes, as an operation with progress on stderr; Ctrl-C cancels (exit
 * 130, no temp files left). `--json` prints the manifest. A node that could not be reached still gives a bundle,
 * marked incomplete, and a retry job that runs when the node answers again (the app runs queued jobs).
 */

const USAGE = 'windeck collect NODE ... -o FILE.zip|DIR/ [--since 30m|2h|1d] [--redact standard|strict] [--transport auto|ssh|winrm] [--json]';


export function throwOperationError(record: OperationRecord, fallback: string): never {
  const e: WireError = record.error ?? { code: 'INTERNAL', message: fallback, retryable: false };
  throw new WindeckError(e.code, e.message, e.context);
}

export const collectCommand: CommandDef = {
  name: 'collect',
  summary: 'Collect a redacted log bundle from nodes',
  usage: USAGE,
  flags: { '--output': 'string', '--since': 'string', '--redact': 'string' },
  async run(io) {
    const nodes = io.args.positionals;
    const output = io.args.string('--output');
    if (nodes.length === 0 || !output) throw new WindeckError('VALIDATION', `Usage: ${USAGE}`);
    const since = io.args.string('--since');
    if (since !== undefined && !SinceText.safeParse(since).success) throw new WindeckError('VALIDATION', `--since takes a duration such as 30m, 2h or 1d, not "${since}".`);
    const redact = io.args.string('--redact') ?? 'standard';
    if (redact !== 'standard' && redact !== 'strict') throw new WindeckError('VALIDATION', `--redact must be standard or strict, not "${redact}".`);
    const kubeconfig = io.args.string('--kubeconfig');
    const context = io.args.string('--context');
    const transport = io.args.string('--transport') as 'auto' | 'ssh' | 'winrm' | undefined;
    const stopProgress = io.showProgress();
    let record: OperationRecord;
    try {
      const { operationId } = await io.call('bundles:export', {
        output: output.endsWith('/') || output.endsWith('\\') ? output : output,
        spec: {
          nodes,
          redact,
          ...(since ? { since } : {}),
          ...(kubeconfig ? { kubeconfig } : {}),
          ...(context ? { context } : {}),
          ...(transport ? { transport } : {}),
          ...(io.args.bool('--offline') ? { offline: true } : {}),
        },
      });
      record = await waitForOperation(io, operationId);
    } finally {
      stopProgress();
    }
    if (record.state !== 'succeeded') throwOperationError(record, 'The bundle could not be written.');
    const result = BundleExportResult.parse(record.result);
    const m = result.manifest;
    io.emit(m, () => {
      const counts = Object.entries(m.redaction.counts)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ');
      const lines = [
        ...result.paths.map((p) => `wrote ${p}`),
        `${m.status}: ${m.files.length} files from ${m.nodes.join(', ')}; redacted (${m.redaction.level}): ${counts || 'nothing'}`,
        ...m.errors.map((e) => `  ${e.node ?? 'cluster'} ${e.step}: ${e.message}`),
        ...result.retryJobs.map((j) => `  queued retry job ${j.id} for ${j.node}: it runs when the node answers again (while Windeck runs)`),
      ];
      return lines.join('\n');
    });
    return EXIT.OK;
  },
};
