import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WindeckError } from '../../../../shared/contract/errors';
import { DIAGNOSE_NODE_TIMEOUT_MS } from '../../../../shared/domain/limits';
import type { Handlers } from '../handler';
import { diagnoseFiles } from '../../diagnose/diagnose-files';
import { diagnoseLiveNode } from '../../diagnose/live-diagnose';
import { resolveCluster } from './nodes';

/** Thin: electron/services/diagnose does the work. Live and file diagnosis are operations (progress, cancel). */
export const diagnoseHandlers: Pick<Handlers, 'diagnose:node' | 'findings:list' | 'diagnose:files' | 'diagnose:text'> = {
  'diagnose:node': (input, { core, signal }) => {
    const started = core.ops.start(
      { kind: 'diagnose', title: `Diagnose ${input.node}`, node: input.node, cluster: input.cluster ?? null, timeoutMs: DIAGNOSE_NODE_TIMEOUT_MS, ...(signal ? { signal } : {}) },
      (op) =>
        diagnoseLiveNode(core, {
          ...input,
          signal: op.signal,
          onProgress: (p) => op.progress({ fraction: p.total > 0 ? p.done / p.total : null, message: `probe ${p.probeId} done (${p.done}/${p.total})` }),
        }),
    );
    started.done.catch(() => undefined);
    return { operationId: started.operationId };
  },
  'findings:list': (input, { core }) => {
    const cluster = resolveCluster(core, input.cluster);
    if (!cluster) return [];
    return core.repos.findings.list({ clusterId: cluster.id, node: input.node ?? null });
  },
  'diagnose:files': async (input, { core, signal }) => {
    const target = path.resolve(input.path);
    const stat = await fs.stat(target).catch(() => null);
    if (!stat) throw new WindeckError('NOT_FOUND', `Nothing to diagnose at ${target}.`, { path: target });
    const started = core.ops.start({ kind: 'import', title: `Diagnose ${path.basename(target)}`, ...(signal ? { signal } : {}) }, (op) =>
      diagnoseFiles({ from: target }, {
        signal: op.signal,
        onProgress: (p) =>
          op.progress({
            fraction: p.bytesTotal > 0 ? Math.min(1, p.bytesDone / p.bytesTotal) : p.filesTotal > 0 ? p.filesDone / p.filesTotal : null,
            message: `${p.filesDone}/${p.filesTotal} files${p.path ? ` (${path.basename(p.path)})` : ''}`,
          }),
      }),
    );
    started.done.catch(() => undefined);
    return { operationId: started.operationId };
  },
  'diagnose:text': async (input, { signal }) => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'windeck-paste-'));
    try {
      const file = path.join(dir, input.name ?? 'pasted.txt');
      await fs.writeFile(file, input.text, { encoding: 'utf8', mode: 0o600 });
      const result = await diagnoseFiles({ from: dir }, { ...(signal ? { signal } : {}) });
      // Input paths are relative to the temp folder: the name the user gave (or pasted.txt).
      return { inputs: result.inputs, findings: result.findings };
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  },
};
