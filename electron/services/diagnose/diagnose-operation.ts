import path from 'node:path';
import type { ServiceCore } from '../create-services';
import { diagnoseFiles } from './diagnose-files';

/**
 * Start offline diagnosis of a local path as an operation (progress, cancel), as `diagnose:files` does, and call
 * `onSettled` when it ends whatever the outcome (the upload path removes its temp files there).
 */
export function startFilesDiagnosis(
  core: ServiceCore,
  target: string,
  options: { title: string; onSettled?: () => Promise<void> | void },
): { operationId: string } {
  const started = core.ops.start({ kind: 'import', title: options.title }, (op) =>
    diagnoseFiles(
      { from: target },
      {
        signal: op.signal,
        onProgress: (p) =>
          op.progress({
            fraction: p.bytesTotal > 0 ? Math.min(1, p.bytesDone / p.bytesTotal) : p.filesTotal > 0 ? p.filesDone / p.filesTotal : null,
            message: `${p.filesDone}/${p.filesTotal} files${p.path ? ` (${path.basename(p.path)})` : ''}`,
          }),
      },
    ),
  );
  void started.done
    .catch(() => undefined)
    .then(() => options.onSettled?.())
    .catch((error: unknown) => core.log.warn('after an import diagnosis', { error: (error as Error).message }));
  return { operationId: started.operationId };
}
