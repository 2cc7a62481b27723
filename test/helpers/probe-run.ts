import type { ProbeResultInput } from '../../electron/services/store/repos/probe-results';

/**
 * A stored probe run as the probe runner writes it after a successful script (exit 0, nothing raw kept); tests give
 * what they care about (cluster, node, probe, parsed facts, start time) and override the rest when they need to.
 */
export function probeRun(
  fields: Pick<ProbeResultInput, 'clusterId' | 'node' | 'probeId' | 'parsed' | 'startedAt'> & Partial<ProbeResultInput>,
): ProbeResultInput {
  return {
    probeVersion: 1,
    scriptId: fields.probeId,
    scriptSha256: null,
    transport: 'ssh',
    ok: true,
    exitCode: 0,
    raw: null,
    stderr: null,
    warnings: [],
    error: null,
    durationMs: 5,
    ...fields,
  };
}
