import type { ServiceCore } from '../create-services';
import { diagnoseProbeRun } from '../diagnose/diagnose-node';
import { probeService } from '../probes/probe-service';
import { runProbes } from '../probes/runner';
import type { NodeTransport } from '../transports/node-transport';

/**
 * "No new findings" for restarts: the diagnostic probes over the restart's own transport, parsed and evaluated
 * by the same engine as `windeck diagnose NODE`, reduced to the rule ids found. The probe results are stored
 * like any probe run, so the before/after evidence stays in the node's history.
 */
export function probeFindings(core: ServiceCore, clusterId: string, node: string): (transport: NodeTransport, signal: AbortSignal) => Promise<string[]> {
  return async (transport, signal) => {
    const report = await runProbes({ clusterId, transport, signal, repo: probeService(core).results, now: () => core.clock.now() });
    core.changed(['probes'], clusterId, node);
    const result = diagnoseProbeRun({
      node,
      transport: report.transport,
      results: Object.entries(report.probes).map(([probeId, o]) => ({ probeId, ok: o.ok, raw: o.raw, error: o.error?.message ?? null })),
      nodeObject: core.repos.nodes.get(clusterId, node),
    });
    return [...new Set(result.findings.map((f) => f.ruleId))].sort();
  };
}
