/**
 * Live diagnosis of one node (`windeck diagnose NODE`): run the probes, parse each raw output with the same
 * parsers the offline diagnosis uses (shared/parse/probe-output.ts), evaluate the same rules.
 *
 * Running the probes (transports, script invocation, storing the evidence) belongs to the probes service; this
 * module only needs a function of the `RunNodeProbes` shape (live-diagnose.ts supplies the real one).
 */
import { WindeckError } from '../../../shared/contract/errors';
import type { NodeModel } from '../../../shared/domain/node';
import type { Fact } from '../../../shared/logic/facts';
import { nodeModelFacts } from '../../../shared/logic/facts-cluster';
import type { InputKind } from '../../../shared/parse/classify';
import { PROBE_KINDS, parseProbeOutput } from '../../../shared/parse/probe-output';
import { evaluate } from '../../../shared/rules/evaluate';
import type { RuleModule } from '../../../shared/rules/rule';
import type { DiagnoseResult } from './diagnose-files';

/** One probe's outcome as the probes service reports it. */
export interface ProbeRunOutput {
  probeId: string;
  ok: boolean;
  /** The raw output as received (UTF-8 text), null when the probe could not run. */
  raw: string | null;
  /** Why it failed (a WindeckError message), null when ok. */
  error: string | null;
}

export interface NodeProbeRun {
  node: string;
  transport: string | null;
  results: ProbeRunOutput[];
  /** The stored Node object when the cluster inventory has it (InternalIP, PodCIDR, versions for the rules). */
  nodeObject?: NodeModel | null;
}

export interface NodeProbeProgress {
  probeId: string;
  done: number;
  total: number;
}

/**
 * The port to the probes service: run every diagnostic probe on `node` (honouring `signal`), store the evidence,
 * and return the raw outputs. Throws WindeckError (UNREACHABLE, AUTH_FAILED, HOST_KEY_*, TIMEOUT, CANCELLED) when
 * the node cannot be reached at all; a single failing probe is a result with `ok: false`.
 */
export type RunNodeProbes = (node: string, options: { signal: AbortSignal; onProgress?: (p: NodeProbeProgress) => void }) => Promise<NodeProbeRun>;

export interface DiagnoseNodeOptions {
  signal: AbortSignal;
  onProgress?: (p: NodeProbeProgress) => void;
  onWarning?: (path: string, message: string) => void;
  rules?: readonly RuleModule[];
}

/** Turn probe outputs into facts and findings. Pure apart from the probe run. */
export function diagnoseProbeRun(run: NodeProbeRun, options: Pick<DiagnoseNodeOptions, 'onWarning' | 'rules'> = {}): DiagnoseResult {
  const inputs: DiagnoseResult['inputs'] = [];
  const facts: Fact[] = run.nodeObject ? nodeModelFacts(run.nodeObject) : [];
  if (run.nodeObject) inputs.push({ path: 'cluster:nodes', kind: 'node-json' });
  for (const r of run.results) {
    const path = `probe:${r.probeId}`;
    if (!r.ok || r.raw === null) {
      inputs.push({ path, kind: 'unreadable' });
      options.onWarning?.(path, r.error ?? 'the probe did not run');
      continue;
    }
    const parsed = parseProbeOutput(r.probeId, r.raw, { source: path, node: run.node });
    inputs.push({ path, kind: (parsed.kind === 'unknown' ? (PROBE_KINDS[r.probeId] ?? 'unknown') : parsed.kind) as InputKind });
    facts.push(...parsed.facts);
    for (const w of parsed.warnings) options.onWarning?.(path, w);
  }
  return { inputs, findings: evaluate(facts, { rules: options.rules }) };
}

/** Run the probes on a node and diagnose the results. */
export async function diagnoseNode(node: string, runProbes: RunNodeProbes, options: DiagnoseNodeOptions): Promise<DiagnoseResult> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$/.test(node)) throw new WindeckError('VALIDATION', `"${node}" is not a node name.`);
  const run = await runProbes(node, { signal: options.signal, onProgress: options.onProgress });
  return diagnoseProbeRun(run, options);
}
