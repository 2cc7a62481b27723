import { useEffect, useMemo, useState } from 'react';
import type { OperationProgress } from '../../../shared/domain/operation';
import { useClient } from '../../api/client-context';
import { createRefreshScheduler } from '../../api/refresh-scheduler';
import { useQuery, type QueryState } from '../../api/use-query';
import { isTerminal, mergeProgress, type OperationView } from './operation-view';

/**
 * The activity list: `ops:list` from the store, with pushed progress laid over it so bars move live. A new
 * operation, or one that ended, triggers one (debounced) re-read for its stored outcome.
 */
export function useOperations(limit = 100): { list: QueryState<OperationView[]>; ops: OperationView[] } {
  const client = useClient();
  const list = useQuery('ops:list', { limit }, { scopes: ['operations'] });
  const [live, setLive] = useState<ReadonlyMap<string, OperationProgress>>(new Map());
  const refetch = list.refetch;

  useEffect(() => {
    const scheduler = createRefreshScheduler(refetch);
    const off = client.on('ops:progress', (p) => {
      setLive((m) => new Map(m).set(p.operationId, p));
      if (isTerminal(p)) scheduler.request();
    });
    return () => {
      scheduler.cancel();
      off();
    };
  }, [client, refetch]);

  const ops = useMemo(() => {
    const byId = new Map<string, OperationView>();
    for (const r of list.data ?? []) byId.set(r.operationId, r);
    for (const p of live.values()) byId.set(p.operationId, mergeProgress(byId.get(p.operationId), p));
    return [...byId.values()].sort((a, b) => b.startedAt - a.startedAt).slice(0, limit);
  }, [list.data, live, limit]);

  return { list, ops };
}
