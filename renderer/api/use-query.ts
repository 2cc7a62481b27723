import { useCallback, useEffect, useRef, useState } from 'react';
import type { StoreChanged } from '../../shared/contract/events';
import type { WireError } from '../../shared/contract/errors';
import type { MethodInput, MethodName, MethodOutput } from '../../shared/contract/methods';
import { useClient } from './client-context';
import { createRefreshScheduler } from './refresh-scheduler';

export type StoreScope = StoreChanged['scopes'][number];

export interface QueryOptions {
  /** Store scopes this screen shows; a `store:changed` naming one of them re-reads (debounced). */
  scopes: readonly StoreScope[];
  /** When set, changes that name another node are ignored. */
  node?: string | null;
  /** False to hold the call (e.g. until a choice is made). */
  enabled?: boolean;
}

export interface QueryState<T> {
  /** `loading` only before the first answer; later re-reads keep the last data and set `refreshing`. */
  status: 'loading' | 'ok' | 'error';
  data: T | undefined;
  /** The error of the latest read (data may still hold an earlier good answer). */
  error: WireError | null;
  /** Epoch ms of the last good answer. */
  loadedAt: number | null;
  refreshing: boolean;
  refetch: () => void;
}

interface Inner<T> {
  status: QueryState<T>['status'];
  data: T | undefined;
  error: WireError | null;
  loadedAt: number | null;
  refreshing: boolean;
}

/**
 * Read something from the store through the contract, and read it again when the store says it changed or the
 * connection comes back. No polling: the backend pushes `store:changed`.
 */
export function useQuery<M extends MethodName>(method: M, input: MethodInput<M>, options: QueryOptions): QueryState<MethodOutput<M>> {
  const client = useClient();
  const key = `${method}:${JSON.stringify(input)}`;
  const enabled = options.enabled ?? true;
  const [state, setState] = useState<Inner<MethodOutput<M>> & { key: string }>(() => ({
    key,
    status: 'loading',
    data: undefined,
    error: null,
    loadedAt: null,
    refreshing: false,
  }));
  const latest = useRef({ input, scopes: options.scopes, node: options.node ?? null });
  latest.current = { input, scopes: options.scopes, node: options.node ?? null };
  const seq = useRef(0);
  const failed = useRef(false);

  const run = useCallback(() => {
    const mine = ++seq.current;
    setState((s) => (s.key === key ? { ...s, refreshing: true } : { key, status: 'loading', data: undefined, error: null, loadedAt: null, refreshing: true }));
    void client.call(method, latest.current.input as MethodInput<M>).then((result) => {
      if (mine !== seq.current) return; // a newer read superseded this one
      failed.current = !result.ok;
      setState((s) => {
        if (s.key !== key) return s;
        if (result.ok) return { key, status: 'ok', data: result.value, error: null, loadedAt: Date.now(), refreshing: false };
        return { ...s, status: s.data === undefined ? 'error' : s.status, error: result.error, refreshing: false };
      });
    });
  }, [client, method, key]);

  useEffect(() => {
    if (!enabled) return undefined;
    run();
    const scheduler = createRefreshScheduler(run);
    const offChange = client.on('store:changed', (change) => {
      const { scopes, node } = latest.current;
      if (!change.scopes.some((s) => scopes.includes(s))) return;
      if (node && change.node && change.node !== node) return;
      scheduler.request();
    });
    let generation = client.connection().generation;
    const offConnection = client.onConnection((c) => {
      if (c.status === 'open' && c.generation !== generation) {
        const reconnected = generation > 0;
        generation = c.generation;
        // After a reconnect, events may have been missed; after a first connect, only a failed read needs redoing.
        if (reconnected || failed.current) scheduler.request();
      }
    });
    return () => {
      seq.current++;
      scheduler.cancel();
      offChange();
      offConnection();
    };
  }, [client, run, enabled]);

  const current: Inner<MethodOutput<M>> = state.key === key ? state : { status: 'loading', data: undefined, error: null, loadedAt: null, refreshing: enabled };
  return { ...current, refetch: run };
}
