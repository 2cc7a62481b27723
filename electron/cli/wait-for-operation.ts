import { TERMINAL_STATES, type OperationProgress, type OperationRecord } from '../../shared/domain/operation';
import type { CliIo } from './io';

/**
 * Wait for an operation to end (its terminal `ops:progress` event, then the stored record); Ctrl-C asks it to
 * cancel, and the record then ends `cancelled`.
 */
export function waitForOperation(io: CliIo, operationId: string): Promise<OperationRecord> {
  const services = io.services();
  return new Promise<OperationRecord>((resolve) => {
    let done = false;
    const check = () => {
      if (done) return;
      const record = services.core.ops.get(operationId);
      if (!record || !TERMINAL_STATES.has(record.state)) return;
      done = true;
      unsubscribe();
      io.signal.removeEventListener('abort', onAbort);
      resolve(record);
    };
    const unsubscribe = services.events.subscribe((event, payload) => {
      if (event === 'ops:progress' && (payload as OperationProgress).operationId === operationId && TERMINAL_STATES.has((payload as OperationProgress).state)) setImmediate(check);
    });
    const onAbort = () => void io.call('ops:cancel', { operationId }).catch(() => undefined);
    if (io.signal.aborted) onAbort();
    else io.signal.addEventListener('abort', onAbort, { once: true });
    check();
  });
}
