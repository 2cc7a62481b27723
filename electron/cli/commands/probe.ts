import { WindeckError, type WireError } from '../../../shared/contract/errors';
import type { OperationRecord } from '../../../shared/domain/operation';
import { PROBE_IDS, type ProbeId, type ProbeReport } from '../../../shared/domain/probe';
import type { CommandDef } from '../command';
import { EXIT } from '../exit-codes';
import { waitForOperation } from '../wait-for-operation';

/**
 * `windeck probe NODE [--probe ID ...] [--transport auto|ssh|winrm] [--accept-host-key SHA256:...] [--json]`
 * (DESIGN.md section 10). Runs the probes (default: all) as an operation through the chosen transport (or the
 * first that works), stores every result, prints `{"node", "transport", "probes": {...}}` with --json.
 * Ctrl-C cancels (exit 130). When no probe could run at all, it fails with the first probe's error.
 */

const USAGE = `windeck probe NODE [--probe ID ...] [--transport auto|ssh|winrm] [--accept-host-key SHA256:...] [--json]   ID: ${PROBE_IDS.join(', ')}`;


function summary(id: string, parsed: unknown): string {
  if (id === 'services' && parsed && typeof parsed === 'object') {
    const p = parsed as { services?: Array<{ name: string; status: string; startType: string }>; missing?: string[] };
    return (p.services ?? []).map((s) => `${s.name}=${s.status}/${s.startType}`).join(' ');
  }
  if (Array.isArray(parsed)) return `${parsed.length} item(s)`;
  if (parsed && typeof parsed === 'object') return Object.keys(parsed).slice(0, 6).join(', ');
  return '';
}

export const probeCommand: CommandDef = {
  name: 'probe',
  summary: 'Run probes on a Windows node over SSH or WinRM',
  usage: USAGE,
  flags: { '--probe': 'multi', '--accept-host-key': 'multi' },
  async run(io) {
    const [node, ...extra] = io.args.positionals;
    if (!node || extra.length > 0) throw new WindeckError('VALIDATION', `Usage: ${USAGE}`);
    const probes = io.args.all('--probe');
    for (const p of probes) {
      if (!(PROBE_IDS as readonly string[]).includes(p)) throw new WindeckError('VALIDATION', `Unknown probe "${p}". Probes: ${PROBE_IDS.join(', ')}.`);
    }
    const transport = (io.args.string('--transport') ?? 'auto') as 'auto' | 'ssh' | 'winrm';
    const kubeconfig = io.args.string('--kubeconfig');
    const context = io.args.string('--context');
    const stopProgress = io.showProgress();
    let record: OperationRecord;
    try {
      const { operationId } = await io.call('probes:run', {
        node,
        transport,
        ...(probes.length > 0 ? { probes: probes as ProbeId[] } : {}),
        ...(kubeconfig ? { kubeconfig } : {}),
        ...(context ? { context } : {}),
        ...(io.args.all('--accept-host-key').length > 0 ? { acceptHostKeys: io.args.all('--accept-host-key') } : {}),
      });
      record = await waitForOperation(io, operationId);
    } finally {
      stopProgress();
    }
    if (record.state !== 'succeeded') {
      const e: WireError = record.error ?? { code: record.state === 'cancelled' ? 'CANCELLED' : 'INTERNAL', message: `Probing ${node} ended ${record.state}.`, retryable: false };
      throw new WindeckError(e.code, e.message, e.context);
    }
    const report = record.result as ProbeReport;
    const outcomes = Object.values(report.probes);
    if (outcomes.length > 0 && outcomes.every((o) => !o.ok)) {
      const first = outcomes.find((o) => o.error)?.error;
      if (first) throw new WindeckError(first.code, `No probe could run on ${node}: ${first.message}`, first.context);
    }
    io.emit(report, () => {
      const lines = [`${report.node} via ${report.transport}`];
      for (const [id, o] of Object.entries(report.probes)) {
        lines.push(`  ${id.padEnd(15)} ${o.ok ? 'ok   ' : 'FAIL '} ${String(o.durationMs).padStart(6)} ms  ${o.ok ? summary(id, o.parsed) : (o.error?.message ?? '')}`);
      }
      return lines.join('\n');
    });
    return EXIT.OK;
  },
};
