import { memo, useCallback, useEffect, useMemo, useRef, useState, type Dispatch, type KeyboardEvent, type SetStateAction } from 'react';
import type { PodListInput, PodPhaseFilter, PodRow, PodSortKey } from '../../../shared/contract/methods/pods';
import { UI_REFRESH_DEBOUNCE_MS } from '../../../shared/domain/limits';
import { useQuery } from '../../api/use-query';
import { FilterSearch, FilterSelect, type FilterOption } from '../../components/filter-fields';
import { Age } from '../../components/age';
import { ErrorNotice } from '../../components/error-notice';
import { navigate } from '../../app/router';
import { useActiveCluster } from '../clusters/live-context';
import { listKeyTarget } from '../../app/list-keys';
import { gridStyle, rowStyle, useFixedRowVirtualizer, useWindowRows } from '../../components/virtual-grid';

export const POD_ROW_HEIGHT_PX = 34;
const HEADER_HEIGHT_PX = 40;
/** Rows asked for per call, and the step the window moves by: only what is near the screen is ever fetched. */
export const POD_WINDOW_ROWS = 400;
const POD_WINDOW_STEP = 100;
/**
 * Rows kept fetched beyond the rendered ones before the window moves, so the next window is asked for while the
 * rows on screen are still inside the current one. Without it the window only moved once rows had already scrolled
 * past its end: those rows showed "Loading…" until the answer came, and then all turned into pod rows in one frame
 * (quick UI bench, 400 px per frame: 27-34 of the 50 rendered rows were placeholders on an average step, and the
 * frames where a page arrived were the slowest).
 */
const POD_WINDOW_MARGIN = 100;
/**
 * Rows rendered beyond the visible ones on each side (the fleet table's 6): every rendered row is walked by paint,
 * layerization and the commit to the compositor on every scroll frame (quick UI bench, 400 px steps: 15 -> 6 rows
 * took the DOM from 50 to 32 rows, renderer CPU about 1 ms less per frame).
 */
const POD_OVERSCAN_ROWS = 6;

const NO_NAMESPACES: readonly string[] = [];

type OsChoice = 'all' | 'windows' | 'linux' | 'unknown';

const PHASE_OPTIONS: readonly FilterOption<PodPhaseFilter>[] = [
  { value: 'all', label: 'All' },
  { value: 'problems', label: 'Not Running or Succeeded' },
  { value: 'Running', label: 'Running' },
  { value: 'Pending', label: 'Pending' },
  { value: 'Failed', label: 'Failed' },
  { value: 'Succeeded', label: 'Succeeded' },
  { value: 'Unknown', label: 'Unknown' },
];
const OS_OPTIONS: readonly FilterOption<OsChoice>[] = [
  { value: 'all', label: 'All' },
  { value: 'windows', label: 'Windows' },
  { value: 'linux', label: 'Linux' },
  { value: 'unknown', label: 'Unknown / not scheduled' },
];

export interface PodFilter {
  search: string;
  namespace: string;
  phase: PodPhaseFilter;
  os: OsChoice;
  sort: PodSortKey;
  dir: 'asc' | 'desc';
}

export const EMPTY_POD_FILTER: PodFilter = { search: '', namespace: '', phase: 'all', os: 'all', sort: 'namespace', dir: 'asc' };

interface Column {
  label: string;
  widthPx: number;
  sort: PodSortKey | null;
}

const COLUMNS: readonly Column[] = [
  { label: 'Namespace', widthPx: 170, sort: 'namespace' },
  { label: 'Name', widthPx: 340, sort: 'name' },
  { label: 'Node', widthPx: 200, sort: 'node' },
  { label: 'Status', widthPx: 170, sort: 'phase' },
  { label: 'Ready', widthPx: 80, sort: null },
  { label: 'Restarts', widthPx: 100, sort: 'restarts' },
  { label: 'Age', widthPx: 120, sort: 'age' },
  { label: 'OS', widthPx: 90, sort: null },
];

const GRID_STYLE = gridStyle(COLUMNS.map((c) => c.widthPx));

/**
 * The window (offset) that keeps rows `first..last` inside it with POD_WINDOW_MARGIN rows to spare on each side (where
 * the list goes on), moving in steps so small scrolls fetch nothing.
 */
export function windowOffset(current: number, first: number, last: number, total: number): number {
  const end = current + POD_WINDOW_ROWS;
  const roomBehind = current === 0 || first >= current + POD_WINDOW_MARGIN;
  const roomAhead = end >= total || last < end - POD_WINDOW_MARGIN;
  if (first >= current && last < end && roomBehind && roomAhead) return current;
  const wanted = Math.max(0, Math.floor(first / POD_WINDOW_STEP) * POD_WINDOW_STEP - POD_WINDOW_STEP);
  return Math.min(wanted, Math.max(0, Math.ceil((total - POD_WINDOW_ROWS) / POD_WINDOW_STEP) * POD_WINDOW_STEP));
}

function podDomId(index: number): string {
  return `pod-row-${index}`;
}

function phaseClass(p: PodRow): string {
  if (p.phase === 'Running' || p.phase === 'Succeeded') return p.status === p.phase || p.status === null ? 'health-healthy' : 'health-warning';
  if (p.phase === 'Failed') return 'health-error';
  return 'health-warning';
}

interface PodRowProps {
  pod: PodRow | undefined;
  index: number;
  top: number;
  active: boolean;
  onActive: (i: number) => void;
}

/** Same pod, field by field (every field is a primitive): a page that arrives again re-renders no row that shows it. */
function samePod(a: PodRow | undefined, b: PodRow | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  const keys = Object.keys(a) as (keyof PodRow)[];
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

function samePodRowProps(a: PodRowProps, b: PodRowProps): boolean {
  return a.index === b.index && a.top === b.top && a.active === b.active && a.onActive === b.onActive && samePod(a.pod, b.pod);
}

const PodRowView = memo(function PodRowView({ pod, index, top, active, onActive }: PodRowProps) {
  if (!pod) {
    return (
      <tr id={podDomId(index)} role="row" aria-rowindex={index + 2} aria-busy="true" className="placeholder" style={rowStyle(top, POD_ROW_HEIGHT_PX)}>
        <td role="gridcell" colSpan={COLUMNS.length} className="muted">
          Loading…
        </td>
      </tr>
    );
  }
  const created = pod.createdAt ? Date.parse(pod.createdAt) : NaN;
  return (
    <tr
      id={podDomId(index)}
      role="row"
      aria-rowindex={index + 2}
      aria-selected={active}
      className={active ? 'active' : undefined}
      style={rowStyle(top, POD_ROW_HEIGHT_PX)}
      onClick={() => onActive(index)}
    >
      <td role="gridcell" title={pod.namespace}>
        {pod.namespace}
      </td>
      <td role="gridcell" title={pod.name}>
        {pod.name}
      </td>
      <td role="gridcell" title={pod.node ?? 'not scheduled'}>
        {pod.node ? (
          <a href={`#/nodes/${encodeURIComponent(pod.node)}`} tabIndex={-1}>
            {pod.node}
          </a>
        ) : (
          <span className="muted">not scheduled</span>
        )}
      </td>
      <td role="gridcell" title={pod.status ?? pod.phase ?? undefined}>
        <span className={`badge ${phaseClass(pod)}`}>{pod.status ?? pod.phase ?? 'unknown'}</span>
      </td>
      <td role="gridcell" className="numeric">
        {`${pod.readyCount}/${pod.containerCount}`}
      </td>
      <td role="gridcell" className="numeric">
        {pod.restarts}
      </td>
      <td role="gridcell">{Number.isNaN(created) ? <span className="muted">—</span> : <Age at={created} label="" />}</td>
      <td role="gridcell">{pod.os ?? '—'}</td>
    </tr>
  );
}, samePodRowProps);

function isFiltered(filter: PodFilter): boolean {
  return filter.search.trim() !== '' || filter.namespace !== '' || filter.phase !== 'all' || filter.os !== 'all';
}

interface PodsToolbarProps {
  filter: PodFilter;
  setFilter: Dispatch<SetStateAction<PodFilter>>;
  namespaces: readonly string[];
  count: string;
}

/**
 * The filter fields and the count. Its own memoized component, as is the header: the virtualizer re-renders the view
 * on every scroll step, when only the rows change (quick UI bench: React went through the toolbar's 40 namespace
 * options and the 8 header buttons on every frame).
 */
const PodsToolbar = memo(function PodsToolbar({ filter, setFilter, namespaces, count }: PodsToolbarProps) {
  const filtered = isFiltered(filter);
  const namespaceOptions = useMemo(() => [{ value: '', label: 'All' }, ...namespaces.map((ns) => ({ value: ns, label: ns }))], [namespaces]);
  return (
    <div className="toolbar" role="search" aria-label="Filter pods">
      <FilterSearch
        id="pods-search"
        label="Search"
        value={filter.search}
        placeholder="namespace, name or node…"
        onChange={(search) => setFilter({ ...filter, search })}
      />
      <FilterSelect
        id="pods-namespace"
        label="Namespace"
        value={filter.namespace}
        options={namespaceOptions}
        onChange={(namespace) => setFilter({ ...filter, namespace })}
      />
      <FilterSelect id="pods-phase" label="Phase" value={filter.phase} options={PHASE_OPTIONS} onChange={(phase) => setFilter({ ...filter, phase })} />
      <FilterSelect id="pods-os" label="OS" value={filter.os} options={OS_OPTIONS} onChange={(os) => setFilter({ ...filter, os })} />
      <p className="toolbar-count" aria-live="polite">
        {count}
      </p>
      {filtered && (
        <button type="button" className="secondary" onClick={() => setFilter({ ...EMPTY_POD_FILTER, sort: filter.sort, dir: filter.dir })}>
          Clear filters
        </button>
      )}
    </div>
  );
});

interface PodsHeadProps {
  sort: PodSortKey;
  dir: 'asc' | 'desc';
  setFilter: Dispatch<SetStateAction<PodFilter>>;
}

const PodsHead = memo(function PodsHead({ sort, dir, setFilter }: PodsHeadProps) {
  const sortBy = (key: PodSortKey) =>
    setFilter((f) => (f.sort === key ? { ...f, dir: f.dir === 'asc' ? 'desc' : 'asc' } : { ...f, sort: key, dir: key === 'restarts' ? 'desc' : 'asc' }));
  return (
    <thead role="rowgroup" style={GRID_STYLE.group}>
      <tr role="row" aria-rowindex={1} style={{ height: HEADER_HEIGHT_PX }}>
        {COLUMNS.map((c) => {
          const sorted = c.sort !== null && sort === c.sort;
          return (
            <th key={c.label} role="columnheader" scope="col" aria-sort={sorted ? (dir === 'asc' ? 'ascending' : 'descending') : c.sort ? 'none' : undefined}>
              {c.sort ? (
                <button type="button" className="sort-button" onClick={() => sortBy(c.sort!)} title={`Sort by ${c.label}`}>
                  {c.label}
                  <span aria-hidden="true" className="sort-indicator">
                    {sorted ? (dir === 'asc' ? ' ▲' : ' ▼') : ''}
                  </span>
                </button>
              ) : (
                c.label
              )}
            </th>
          );
        })}
      </tr>
    </thead>
  );
});

/** The search box keeps its own text; the query follows it after a short quiet time. */
function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return debounced;
}

/**
 * Every stored pod of the active cluster (50,000 and more): a virtualized table whose rows come from `pods:list`
 * a window at a time (filtered and sorted in the store), so the page never holds more than a few hundred pods.
 * Keyboard: the table is one tab stop; arrows, Page Up/Down, Home/End move, Enter opens the pod's node.
 */
export function PodsView() {
  const { cluster } = useActiveCluster();
  const [filter, setFilter] = useState<PodFilter>(EMPTY_POD_FILTER);
  const search = useDebounced(filter.search, UI_REFRESH_DEBOUNCE_MS);
  const [offset, setOffset] = useState(0);
  const [activeIndex, setActiveIndex] = useState(-1);

  const criteria = useMemo(
    () => ({
      ...(cluster ? { cluster: cluster.id } : {}),
      ...(search.trim() ? { search: search.trim() } : {}),
      ...(filter.namespace ? { namespace: filter.namespace } : {}),
      phase: filter.phase,
      os: filter.os,
      sort: filter.sort,
      dir: filter.dir,
    }),
    [cluster, search, filter.namespace, filter.phase, filter.os, filter.sort, filter.dir],
  );
  const criteriaKey = JSON.stringify(criteria);
  const input: PodListInput = { ...criteria, offset, limit: POD_WINDOW_ROWS };
  // Wait for the cluster the shell resolved, so the first window is not read twice (without, then with it).
  const q = useQuery('pods:list', input, { scopes: ['pods', 'nodes'], enabled: cluster !== null });

  // The last answer for these criteria stays on screen while the next window loads (no blank rows while scrolling).
  const shown = useRef<{ key: string; offset: number; total: number; pods: PodRow[]; namespaces: string[] } | null>(null);
  if (q.data) shown.current = { key: criteriaKey, offset: q.data.offset, total: q.data.total, pods: q.data.pods, namespaces: q.data.namespaces };
  const known = shown.current && shown.current.key === criteriaKey ? shown.current : null;
  const total = known?.total ?? 0;
  const namespaces = shown.current?.namespaces ?? NO_NAMESPACES;

  const scrollRef = useRef<HTMLDivElement>(null);
  // New criteria: back to the top.
  const lastKey = useRef(criteriaKey);
  useEffect(() => {
    if (lastKey.current === criteriaKey) return;
    lastKey.current = criteriaKey;
    setOffset(0);
    setActiveIndex(-1);
    scrollRef.current?.scrollTo({ top: 0 });
  }, [criteriaKey]);

  const virtualizer = useFixedRowVirtualizer(total, scrollRef, POD_ROW_HEIGHT_PX, HEADER_HEIGHT_PX, POD_OVERSCAN_ROWS);
  const items = virtualizer.getVirtualItems();
  const windowRows = useWindowRows(
    items.map((item) => item.index),
    !virtualizer.isScrolling,
  );
  const first = items[0];
  const last = items[items.length - 1];

  // One window read at a time: useQuery drops a read that a newer one superseded, so moving the window again before
  // the last read answered would, on a scroll faster than a read, drop every answer and leave all rows "Loading…"
  // until the scrolling stopped (quick UI bench: all 50 rendered rows were placeholders after the last step).
  const windowAnswered = q.status !== 'loading';
  useEffect(() => {
    if (!first || !last || !windowAnswered) return;
    setOffset((current) => windowOffset(current, first.index, last.index, total));
  }, [first, last, total, windowAnswered]);

  useEffect(() => {
    if (activeIndex >= 0) virtualizer.scrollToIndex(activeIndex, { align: 'auto' });
  }, [activeIndex, virtualizer]);

  const podAt = useCallback((index: number): PodRow | undefined => (known && index >= known.offset ? known.pods[index - known.offset] : undefined), [known]);
  const onActive = useCallback((i: number) => setActiveIndex(i), []);

  const page = Math.max(1, Math.floor(((scrollRef.current?.clientHeight ?? 600) - HEADER_HEIGHT_PX) / POD_ROW_HEIGHT_PX) - 1);
  function move(index: number) {
    if (total === 0) return;
    setActiveIndex(Math.max(0, Math.min(total - 1, index)));
  }
  function onKeyDown(e: KeyboardEvent<HTMLTableElement>) {
    const from = activeIndex;
    const to = listKeyTarget(e.key, from, page, total);
    if (to !== null) {
      move(to);
      e.preventDefault();
      return;
    }
    switch (e.key) {
      case 'Enter': {
        const pod = podAt(from);
        if (pod?.node) navigate({ name: 'node', node: pod.node, tab: 'overview', action: null });
        break;
      }
      default:
        return;
    }
    e.preventDefault();
  }

  const filtered = isFiltered(filter);
  const countText = known ? `${total} ${filtered ? 'matching ' : ''}pod${total === 1 ? '' : 's'}` : cluster ? 'Loading pods…' : '';
  const bodyHeight = Math.max(0, virtualizer.getTotalSize() - HEADER_HEIGHT_PX);

  return (
    <section className="fleet pods" aria-labelledby="pods-title">
      <h2 id="pods-title">Pods</h2>
      <PodsToolbar filter={filter} setFilter={setFilter} namespaces={namespaces} count={countText} />
      {q.error && <ErrorNotice error={q.error} onRetry={q.refetch} compact={known !== null} />}
      {!cluster && <p className="panel">No cluster is chosen or stored yet: its pods appear here once the inventory sync writes them.</p>}
      <div className="fleet-scroll" ref={scrollRef}>
        <table
          className="fleet-table pods-table"
          style={GRID_STYLE.table}
          role="grid"
          aria-label="Pods"
          aria-rowcount={total + 1}
          aria-colcount={COLUMNS.length}
          aria-readonly="true"
          aria-busy={q.refreshing}
          tabIndex={0}
          aria-activedescendant={activeIndex >= 0 ? podDomId(activeIndex) : undefined}
          onKeyDown={onKeyDown}
          onFocus={() => {
            if (activeIndex < 0 && total > 0) move(0);
          }}
        >
          <PodsHead sort={filter.sort} dir={filter.dir} setFilter={setFilter} />
          <tbody role="rowgroup" style={{ ...GRID_STYLE.group, height: bodyHeight }}>
            {windowRows.map(({ index, key }) => {
              const item = items[index - (first?.index ?? 0)];
              if (!item) return null;
              return (
                <PodRowView
                  key={key}
                  pod={podAt(item.index)}
                  index={item.index}
                  top={item.start - HEADER_HEIGHT_PX}
                  active={item.index === activeIndex}
                  onActive={onActive}
                />
              );
            })}
          </tbody>
        </table>
        {known && total === 0 && <p className="table-empty">{filtered ? 'No pod matches these filters.' : 'No pods are stored for this cluster.'}</p>}
      </div>
    </section>
  );
}
