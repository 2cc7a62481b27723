/**
 * Live diagnosis of one node (issue 5, live part): run the probe catalogue on the node through the probes service
 * (transport per request, or the first that works), diagnose the raw outputs with the same parsers and rules as
 * the offline engine (diagnoseProbeRun), add the cluster rules that concern this node (from the stored Node object
 * and the cluster's server version), store the findings (source 'diagnose') and announce the change.
 *
 * Throws WindeckError: NOT_FOUND (unknown node/cluster), UNREACHABLE / AUTH_FAILED / HOST_KEY_* / TIMEOUT when the
 * node cannot be reached (also when not a single probe could run), CANCELLED.
 */
import { WindeckError } from '../../../shared/contract/errors';
import type { NodeTransportChoice } from '../../../shared/domain/probe';
import type { Finding } from '../../../shared/domain/finding';
import { CLUSTER_RULES, evaluateClusterRules } from '../../../shared/rules/cluster/cluster-rules';
import type { ServiceCore } from '../create-services';
import { probeService, type ClusterTarget } from '../probes/probe-service';
import type { DiagnoseResult } from './diagnose-files';
import { diagnoseProbeRun, type NodeProbeProgress, type NodeProbeRun } from './diagnose-node';

/** The cluster rules that speak about one node (the workload rules are cluster-wide: lint-workloads). */
export const NODE_CLUSTER_RULE_IDS: readonly string[] = ['node-not-ready', 'windows-build-unsupported', 'version-skew'];

/** The findings source live diagnosis stores under (FindingsRepo.replace). */
export const DIAGNOSE_FINDINGS_SOURCE = 'diagnose';

export interface LiveDiagnoseRequest extends ClusterTarget {
  node: string;
  transport?: NodeTransportChoice | undefined;
  acceptHostKeys?: string[] | undefined;
  signal: AbortSignal;
  onProgress?: (p: NodeProbeProgress) => void;
  onWarning?: (path: string, message: string) => void;
}

export interface LiveDiagnoseResult extends DiagnoseResult {
  node: string;
  clusterId: string;
  transport: string;
}

/** Cluster-rule findings about `node` from the stored inventory (none when the node is not in it). */
export function nodeClusterFindings(core: ServiceCore, clusterId: string, node: string): Finding[] {
  const model = core.repos.nodes.get(clusterId, node);
  if (!model) return [];
  const serverVersion = core.repos.clusters.get(clusterId)?.kubernetesVersion ?? null;
  const rules = CLUSTER_RULES.filter((r) => NODE_CLUSTER_RULE_IDS.includes(r.id));
  const { findings } = evaluateClusterRules({ serverVersion, nodes: [model] }, rules);
  return findings.filter((f) => f.node === node);
}

/** Probe findings first; a cluster finding is added unless the same rule already spoke about the node. */
export function mergeFindings(probeFindings: readonly Finding[], clusterFindings: readonly Finding[]): Finding[] {
  const seen = new Set(probeFindings.map((f) => `${f.ruleId}\u0000${f.node ?? ''}`));
  return [...probeFindings, ...clusterFindings.filter((f) => !seen.has(`${f.ruleId}\u0000${f.node ?? ''}`))];
}

export async function diagnoseLiveNode(core: ServiceCore, request: LiveDiagnoseRequest): Promise<LiveDiagnoseResult> {
  const service = probeService(core);
  const clusterId = service.clusterId(request);
  const report = await service.run({
    cluster: clusterId,
    node: request.node,
    transport: request.transport,
    acceptHostKeys: request.acceptHostKeys,
    signal: request.signal,
    onProgress: (done, total, probeId) => request.onProgress?.({ probeId, done, total }),
  });
  const outcomes = Object.entries(report.probes);
  if (outcomes.length > 0 && outcomes.every(([, o]) => !o.ok)) {
    const first = outcomes.find(([, o]) => o.error)?.[1].error;
    if (first) throw new WindeckError(first.code, `No probe could run on ${request.node}: ${first.message}`, first.context);
  }
  if (request.signal.aborted) throw new WindeckError('CANCELLED', `Diagnosis of ${request.node} cancelled.`, { node: request.node });
  const run: NodeProbeRun = {
    node: request.node,
    transport: report.transport,
    nodeObject: core.repos.nodes.get(clusterId, request.node),
    results: outcomes.map(([probeId, o]) => ({ probeId, ok: o.ok, raw: o.raw, error: o.ok ? null : (o.error?.message ?? 'the probe did not run') })),
  };
  const probeResult = diagnoseProbeRun(run, { onWarning: request.onWarning });
  const findings = mergeFindings(probeResult.findings, nodeClusterFindings(core, clusterId, request.node));
  core.repos.findings.replace(clusterId, request.node, DIAGNOSE_FINDINGS_SOURCE, findings, core.clock.now());
  core.changed(['findings', 'probes'], clusterId, request.node);
  // DESIGN.md section 10: the inputs are the probes (the Node object is an input too when the store has it).
  return { node: request.node, clusterId, transport: report.transport, inputs: probeResult.inputs, findings };
}

