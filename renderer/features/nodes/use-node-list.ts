import { useCallback, useEffect, useRef, useState } from 'react';
import type { WireError } from '../../../shared/contract/errors';
import type { MethodInput } from '../../../shared/contract/methods';
import type { NodeListResult, NodeProbeBrief } from '../../../shared/contract/methods/nodes';
import type { ClusterSummary } from '../../../shared/domain/cluster';
import type { NodeSummary } from '../../../shared/domain/node';
import { UI_NODE_DELTA_DEBOUNCE_MS, UI_NODE_DELTA_MAX_WAIT_MS } from '../../../shared/domain/limits';
import { useClient } from '../../api/client-context';
import { createRefreshScheduler } from '../../api/refresh-scheduler';
import type { QueryOptions, QueryState } from '../../api/use-query';

/** The node list as the renderer holds it: rows by name, so a delta touches only what changed. */
export interface NodeListCache {
  cluster: ClusterSummary | null;
  rows: Map<string, NodeSummary>;
  probes: Map<string, NodeProbeBrief>;
  cursor: string;
}

/**
 * Apply one `nodes:list` answer to the cache (a full answer replaces it). Returns the new cache (the maps are new
 * only when something changed, the row objects of unchanged nodes are kept, so memoized rows stay put).
 */
export function applyNodeList(cache: NodeListCache | null, answer: NodeListResult): NodeListCache {
  if (answer.full || cache === null) {
    const rows = new Map<string, NodeSummary>();
    for (const n of answer.nodes) rows.set(n.name, cache?.rows.get(n.name) && sameSummary(cache.rows.get(n.name)!, n) ? cache.rows.get(n.name)! : n);
    const probes = new Map<string, NodeProbeBrief>();
    for (const [name, p] of Object.entries(answer.probes))
      probes.set(name, cache?.probes.get(name) && sameProbe(cache.probes.get(name)!, p) ? cache.probes.get(name)! : p);
    return { cluster: answer.cluster, rows, probes, cursor: answer.cursor };
  }
  if (answer.nodes.length === 0 && answer.removed.length === 0) return { ...cache, cluster: answer.cluster, cursor: answer.cursor };
  const rows = new Map(cache.rows);
  // The probe map is copied only when a probe brief changes (most node deltas carry the same briefs again): an
  // unchanged map lets the view keep its probes object instead of rebuilding one with 5,000 keys per delta.
  let probes = cache.probes;
  const writable = () => (probes === cache.probes ? (probes = new Map(cache.probes)) : probes);
  for (const name of answer.removed) {
    rows.delete(name);
    if (probes.has(name)) writable().delete(name);
  }
  for (const n of answer.nodes) {
    rows.set(n.name, n);
    const p = answer.probes[n.name];
    const old = probes.get(n.name);
    if (p) {
      if (!old || !sameProbe(old, p)) writable().set(n.name, p);
    } else if (old) writable().delete(n.name);
  }
  return { cluster: answer.cluster, rows, probes, cursor: answer.cursor };
}

function sameSummary(a: NodeSummary, b: NodeSummary): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function sameProbe(a: NodeProbeBrief, b: NodeProbeBrief): boolean {
  return (
    a.probedAt === b.probedAt && a.servicesAt === b.servicesAt && a.servicesOk === b.servicesOk && JSON.stringify(a.services) === JSON.stringify(b.services)
  );
}

/**
 * The cache as the `nodes:list` answer shape the fleet view reads (rows in name order as the backend sends them).
 * `previous` is the last result made from the cache before: its nodes array and probes object are kept when the
 * cache's rows or probes map did not change, so the view's memos (keyed on them) stay put.
 */
export function toResult(cache: NodeListCache, full: boolean, previous?: { cache: NodeListCache; result: NodeListResult }): NodeListResult {
  const nodes = previous && previous.cache.rows === cache.rows ? previous.result.nodes : [...cache.rows.values()];
  const probes = previous && previous.cache.probes === cache.probes ? previous.result.probes : Object.fromEntries(cache.probes);
  return { cluster: cache.cluster, nodes, probes, cursor: cache.cursor, full, removed: [] };
}

interface Inner {
  key: string;
  status: QueryState<NodeListResult>['status'];
  data: NodeListResult | undefined;
  error: WireError | null;
  loadedAt: number | null;
  refreshing: boolean;
}

/**
 * `nodes:list` kept current incrementally: one full read, then on each `store:changed` for nodes (or the cluster
 * row) only the delta after the last cursor, read at once when idle, else soon (`UI_NODE_DELTA_*`) since it is small. Probe changes, a
 * reconnect, a failed read, a new input or a `full` answer read everything again. One read at a time; requests
 * while one runs are folded into one more read after it.
 */
export function useNodeList(input: MethodInput<'nodes:list'>, options: Omit<QueryOptions, 'node' | 'scopes'>): QueryState<NodeListResult> {
  const client = useClient();
  const key = JSON.stringify(input);
  const enabled = options.enabled ?? true;
  const [state, setState] = useState<Inner>(() => ({ key, status: 'loading', data: undefined, error: null, loadedAt: null, refreshing: false }));
  const inputRef = useRef(input);
  inputRef.current = input;
  const ctl = useRef({
    generation: 0,
    cache: null as NodeListCache | null,
    /** The cache the screen's data was last made from, and that data (reused when nothing changed). */
    last: null as { cache: NodeListCache; result: NodeListResult } | null,
    inFlight: false,
    pending: null as 'delta' | 'full' | null,
  });

  const read = useCallback(
    (kind: 'delta' | 'full') => {
      const c = ctl.current;
      if (c.inFlight) {
        c.pending = c.pending === 'full' || kind === 'full' ? 'full' : 'delta';
        return;
      }
      const generation = c.generation;
      const since = kind === 'delta' && c.cache ? c.cache.cursor : undefined;
      c.inFlight = true;
      setState((s) =>
        s.key === key
          ? s.refreshing
            ? s
            : { ...s, refreshing: true }
          : { key, status: 'loading', data: undefined, error: null, loadedAt: null, refreshing: true },
      );
      const base = inputRef.current;
      void client.call('nodes:list', since === undefined ? base : { ...base, since }).then((result) => {
        if (generation !== c.generation) return; // the input changed or the screen went away meanwhile
        c.inFlight = false;
        const next = c.pending;
        c.pending = null;
        if (result.ok) {
          const before = c.cache;
          const cache = applyNodeList(before, result.value);
          c.cache = cache;
          const last = c.last && c.last.cache === before ? c.last : null;
          const changed = last === null || cache.rows !== last.cache.rows || cache.probes !== last.cache.probes || cache.cluster !== last.cache.cluster;
          const data = changed ? toResult(cache, result.value.full, last ?? undefined) : last.result;
          c.last = { cache, result: data };
          setState((s) => (s.key !== key ? s : { key, status: 'ok', data, error: null, loadedAt: Date.now(), refreshing: next !== null }));
        } else {
          c.cache = null; // the next read starts over
          setState((s) => (s.key !== key ? s : { ...s, status: s.data === undefined ? 'error' : s.status, error: result.error, refreshing: next !== null }));
        }
        if (next) read(c.cache ? next : 'full');
      });
    },
    [client, key],
  );

  useEffect(() => {
    if (!enabled) return undefined;
    const c = ctl.current;
    c.generation++;
    c.cache = null;
    c.last = null;
    c.inFlight = false;
    c.pending = null;
    read('full');
    const scheduled = createRefreshScheduler(() => readDelta(), UI_NODE_DELTA_DEBOUNCE_MS, UI_NODE_DELTA_MAX_WAIT_MS);
    let lastDeltaAt = -Infinity;
    const readDelta = () => {
      lastDeltaAt = performance.now();
      read('delta');
    };
    // The backend already batches node writes (one event per inventory flush): when idle, read the delta at once;
    // events closer together than the quiet time are folded by the scheduler (and a read in flight folds the rest).
    const deltas = {
      request() {
        if (!c.inFlight && performance.now() - lastDeltaAt >= UI_NODE_DELTA_DEBOUNCE_MS) {
          scheduled.cancel();
          readDelta();
        } else scheduled.request();
      },
      cancel: () => scheduled.cancel(),
    };
    const fulls = createRefreshScheduler(() => read('full'));
    const offChange = client.on('store:changed', (change) => {
      // Probe briefs and finding-derived health are not revisioned with the nodes: read those in full (debounced).
      if (change.scopes.includes('probes')) fulls.request();
      else if (change.scopes.includes('nodes') || change.scopes.includes('clusters')) deltas.request();
    });
    let generation = client.connection().generation;
    const offConnection = client.onConnection((conn) => {
      if (conn.status === 'open' && conn.generation !== generation) {
        const reconnected = generation > 0;
        generation = conn.generation;
        // After a reconnect events may have been missed (and the backend may be another one): start over.
        if (reconnected || c.cache === null) fulls.request();
      }
    });
    return () => {
      c.generation++;
      c.inFlight = false;
      c.pending = null;
      deltas.cancel();
      fulls.cancel();
      offChange();
      offConnection();
    };
  }, [client, read, enabled]);

  const refetch = useCallback(() => read('full'), [read]);
  const current: Omit<Inner, 'key'> = state.key === key ? state : { status: 'loading', data: undefined, error: null, loadedAt: null, refreshing: enabled };
  return { status: current.status, data: current.data, error: current.error, loadedAt: current.loadedAt, refreshing: current.refreshing, refetch };
}
