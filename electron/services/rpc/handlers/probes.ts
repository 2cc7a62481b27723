import type { Handlers } from '../handler';
import { probeService } from '../../probes/probe-service';

/** Thin: the probe service does the work (electron/services/probes/). Live runs are operations. */
export const probeHandlers: Pick<Handlers, 'probes:run' | 'probes:latest' | 'probes:access'> = {
  'probes:run': (input, { core, signal }) => {
    const service = probeService(core);
    const started = core.ops.start({ kind: 'probe', title: `Probe ${input.node}`, node: input.node, cluster: input.cluster ?? null, ...(signal ? { signal } : {}) }, (op) =>
      service.run({
        ...input,
        signal: op.signal,
        onProgress: (done, total, probe) => op.progress({ fraction: done / total, message: `${probe} done (${done}/${total})` }),
      }),
    );
    started.done.catch(() => undefined);
    return { operationId: started.operationId };
  },
  'probes:latest': (input, { core }) => probeService(core).latest(input),
  'probes:access': (input, { core, signal }) => {
    const service = probeService(core);
    const started = core.ops.start({ kind: 'probe', title: `Check access to ${input.node}`, node: input.node, cluster: input.cluster ?? null, ...(signal ? { signal } : {}) }, (op) =>
      service.access({ ...input, signal: op.signal }),
    );
    started.done.catch(() => undefined);
    return { operationId: started.operationId };
  },
};
