import { observeElementRect, useVirtualizer } from '@tanstack/react-virtual';
import { useRef, type CSSProperties, type RefObject } from 'react';

/** What a scroll box is taken to measure before layout (or in a DOM without layout). */
const UNMEASURED_RECT = { width: 1200, height: 600 };

/**
 * Before layout the scroll box measures 0 and the virtualizer would draw no row at all; report a first screenful
 * instead, which a real layout corrects on its first resize callback.
 */
const observeMeasuredRect: typeof observeElementRect = (instance, cb) => observeElementRect(instance, (rect) => cb(rect.height > 0 ? rect : UNMEASURED_RECT));

/**
 * The virtualizer of a table with fixed-height rows under a header. Its own module-level hook on purpose: the
 * virtualizer keeps closures of its first render's options (the first `getScrollElement`, the resize subscription)
 * for as long as the table is mounted, and V8 gives all closures made in one call one shared context, so options
 * built inside a table component would keep that render's props (the first 5,000 rows, long replaced by watch
 * events) alive: +1 MiB of renderer heap that never went away (bench/memory.mjs, heap snapshots). Here the context
 * holds only the numbers and the ref. No getItemKey: a new key function per render makes the virtualizer rebuild
 * every measurement on every scroll frame; React keys come from useWindowRows (recycled slots).
 */
export function useFixedRowVirtualizer(count: number, scrollRef: RefObject<HTMLElement | null>, rowHeightPx: number, headerHeightPx: number, overscan: number) {
  return useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeightPx,
    overscan,
    paddingStart: headerHeightPx,
    scrollPaddingStart: headerHeightPx,
    initialRect: UNMEASURED_RECT,
    observeElementRect: observeMeasuredRect,
  });
}

/**
 * Column tracks for a virtualized table laid out as grid rows (see `.fleet-table` in app.css): fixed widths, the
 * last column takes any spare width (flexible tracks on every column would make the grid size each cell to its
 * content for every row entering the window). The tracks are
 * set once on each row group (rows take them with `grid-template-columns: inherit`: a computed value copied, where
 * a custom property would be substituted and parsed again for every row that enters the window).
 */
export function gridStyle(widthsPx: readonly number[]): { table: CSSProperties; group: CSSProperties } {
  return {
    table: { width: widthsPx.reduce((a, b) => a + b, 0) },
    group: { gridTemplateColumns: widthsPx.map((w, i) => (i === widthsPx.length - 1 ? `minmax(${w}px, 1fr)` : `${w}px`)).join(' ') },
  };
}

/** A virtual row: fixed height, placed at its offset inside the row group (no layout of the rows around it). */
export function rowStyle(topPx: number, heightPx: number): CSSProperties {
  return { height: heightPx, top: topPx };
}

/**
 * Keys for the rows of a virtual window that recycle DOM rows: a row index keeps its slot while it stays in the
 * window, and an index that enters takes a slot another index just left. Scrolling and filtering then update the
 * existing rows' text and attributes in place instead of unmounting and building new rows (which costs a style
 * recalculation and layout of every new element). Deterministic for the same window, so a repeated render agrees.
 */
export function useSlotKeys(indexes: readonly number[]): ReadonlyMap<number, number> {
  const previous = useRef<ReadonlyMap<number, number>>(new Map());
  const next = new Map<number, number>();
  const used = new Set<number>();
  for (const i of indexes) {
    const slot = previous.current.get(i);
    if (slot !== undefined && !used.has(slot)) {
      next.set(i, slot);
      used.add(slot);
    }
  }
  let free = 0;
  for (const i of indexes) {
    if (next.has(i)) continue;
    while (used.has(free)) free++;
    next.set(i, free);
    used.add(free);
  }
  previous.current = next;
  return next;
}

/**
 * The order of a window's rows in the DOM (as row indexes). While the list scrolls, a row that enters takes the
 * DOM position of the row whose slot it reuses, so no row element moves: Blink handles a moved element as removed
 * and inserted again (its whole subtree restyled and its layout objects rebuilt), which made recycling as costly as
 * building new rows (quick UI bench, 5,000 nodes: renderer CPU 37 -> 26 ms per 400 px scroll step). Once the
 * scrolling settles the rows go back to index order, so the DOM (and the accessibility tree's reading order) follows
 * the visual order whenever the list is at rest; rows are absolutely placed, so the order never changes the look.
 * `indexes` ascend; `previous` is the slots' DOM order of the last render.
 */
export function domOrder(indexes: readonly number[], slots: ReadonlyMap<number, number>, previous: readonly number[], settled: boolean): number[] {
  if (settled) return [...indexes];
  const indexOfSlot = new Map<number, number>();
  for (const i of indexes) {
    const slot = slots.get(i);
    if (slot !== undefined) indexOfSlot.set(slot, i);
  }
  const out: number[] = [];
  for (const slot of previous) {
    const i = indexOfSlot.get(slot);
    if (i === undefined) continue;
    out.push(i);
    indexOfSlot.delete(slot);
  }
  // Slots new to the DOM (the window grew): after the others, in index order.
  for (const i of indexes) {
    const slot = slots.get(i);
    if (slot !== undefined && indexOfSlot.has(slot)) out.push(i);
  }
  return out;
}

/** A row of the window: its index and its React key (a recycled slot). */
export interface WindowRow {
  index: number;
  key: number;
}

/**
 * The rows of a virtual window in DOM order, keyed by recycled slots (useSlotKeys) and ordered by domOrder:
 * `settled` is false while the list scrolls (the virtualizer's isScrolling).
 */
export function useWindowRows(indexes: readonly number[], settled: boolean): readonly WindowRow[] {
  const slots = useSlotKeys(indexes);
  const previous = useRef<readonly number[]>([]);
  const ordered = domOrder(indexes, slots, previous.current, settled);
  const rows = ordered.map((index) => ({ index, key: slots.get(index) ?? index }));
  previous.current = rows.map((r) => r.key);
  return rows;
}
