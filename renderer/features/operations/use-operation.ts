import { useEffect, useState } from 'react';
import type { WireError } from '../../../shared/contract/errors';
import { useClient } from '../../api/client-context';
import { isTerminal, mergeProgress, mergeRecord, type OperationView } from './operation-view';

export interface OperationHandle {
  /** Null until the first record or progress event arrives. */
  op: OperationView | null;
  /** Failure to read the operation itself (not the operation's own error, which is `op.error`). */
  readError: WireError | null;
  cancel: () => Promise<void>;
}

/**
 * Follow one operation: read it once, then live from `ops:progress` events; when it ends, read it again for its
 * outcome (result or error). No polling.
 */
export function useOperation(operationId: string | null): OperationHandle {
  const client = useClient();
  const [op, setOp] = useState<OperationView | null>(null);
  const [readError, setReadError] = useState<WireError | null>(null);

  useEffect(() => {
    setOp(null);
    setReadError(null);
    if (!operationId) return undefined;
    let alive = true;
    const read = () =>
      void client.call('ops:get', { operationId }).then((r) => {
        if (!alive) return;
        if (r.ok) setOp((cur) => mergeRecord(cur, r.value));
        else setReadError(r.error);
      });
    const off = client.on('ops:progress', (p) => {
      if (p.operationId !== operationId) return;
      setOp((cur) => mergeProgress(cur ?? undefined, p));
      if (isTerminal(p)) read(); // the outcome (result/error) is only in the stored record
    });
    read();
    return () => {
      alive = false;
      off();
    };
  }, [client, operationId]);

  return {
    op,
    readError,
    cancel: async () => {
      if (!operationId) return;
      const r = await client.call('ops:cancel', { operationId });
      if (!r.ok) setReadError(r.error);
    },
  };
}
