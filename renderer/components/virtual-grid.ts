import { useRef, type CSSProperties } from 'react';

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
