// @vitest-environment happy-dom
import { cleanup, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { domOrder, gridStyle, useSlotKeys, useWindowRows } from '../../../../renderer/components/virtual-grid';

afterEach(cleanup);

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('useSlotKeys', () => {
  it('keeps the slot of an index that stays in the window and gives entering indexes the slots that left', () => {
    const { result, rerender } = renderHook(({ indexes }) => useSlotKeys(indexes), { initialProps: { indexes: range(0, 9) } });
    const first = new Map(result.current);
    expect([...first.values()].sort((a, b) => a - b)).toEqual(range(0, 9));
    rerender({ indexes: range(3, 12) });
    for (const i of range(3, 9)) expect(result.current.get(i)).toBe(first.get(i));
    // 10..12 reuse exactly the slots of 0..2, so no row is built and none left behind.
    expect([10, 11, 12].map((i) => result.current.get(i)).sort()).toEqual([0, 1, 2].map((i) => first.get(i)).sort());
    expect(new Set(result.current.values()).size).toBe(10);
  });

  it('stays unique when the window grows, shrinks or jumps', () => {
    const { result, rerender } = renderHook(({ indexes }) => useSlotKeys(indexes), { initialProps: { indexes: range(0, 4) } });
    let largest = 5;
    for (const indexes of [range(0, 9), range(2, 5), range(4000, 4020), range(4010, 4012), []]) {
      rerender({ indexes });
      largest = Math.max(largest, indexes.length);
      expect(new Set(result.current.values()).size).toBe(indexes.length);
      expect([...result.current.keys()]).toEqual(indexes);
      // Slots stay below the largest window seen: keys (and DOM rows) never grow without bound.
      for (const slot of result.current.values()) expect(slot).toBeLessThan(largest);
    }
  });

  it('gives the same answer when rendered again with the same window', () => {
    const { result, rerender } = renderHook(({ indexes }) => useSlotKeys(indexes), { initialProps: { indexes: range(5, 14) } });
    const a = new Map(result.current);
    rerender({ indexes: range(5, 14) });
    expect(new Map(result.current)).toEqual(a);
  });
});

describe('domOrder / useWindowRows', () => {
  it('is index order at rest', () => {
    const slots = new Map(range(10, 14).map((i) => [i, 14 - i]));
    expect(domOrder(range(10, 14), slots, [0, 1, 2, 3, 4], true)).toEqual(range(10, 14));
  });

  it('while scrolling, puts an entering row where the row whose slot it took was, so no row element moves', () => {
    // Window 0..4 in slots 0..4, DOM order = slots 0..4; scrolled by two rows: 5 and 6 take the slots of 0 and 1.
    const slots = new Map([
      [2, 2],
      [3, 3],
      [4, 4],
      [5, 0],
      [6, 1],
    ]);
    expect(domOrder(range(2, 6), slots, [0, 1, 2, 3, 4], false)).toEqual([5, 6, 2, 3, 4]);
    // A window that grew while scrolling: the new slot goes after the others.
    slots.set(7, 5);
    expect(domOrder(range(2, 7), slots, [0, 1, 2, 3, 4], false)).toEqual([5, 6, 2, 3, 4, 7]);
  });

  it('keeps every row element in place while scrolling and returns to index order when the scrolling settles', () => {
    const { result, rerender } = renderHook(({ indexes, settled }) => useWindowRows(indexes, settled), {
      initialProps: { indexes: range(0, 9), settled: true },
    });
    const keysInDomOrder = () => result.current.map((r) => r.key);
    const atRest = keysInDomOrder();
    expect(result.current.map((r) => r.index)).toEqual(range(0, 9));
    for (const start of [3, 7, 12, 20]) {
      rerender({ indexes: range(start, start + 9), settled: false });
      // Same keys in the same DOM positions: React updates rows in place and moves none.
      expect(keysInDomOrder()).toEqual(atRest);
      expect(result.current.map((r) => r.index).sort((a, b) => a - b)).toEqual(range(start, start + 9));
    }
    rerender({ indexes: range(20, 29), settled: true });
    expect(result.current.map((r) => r.index)).toEqual(range(20, 29));
    expect(new Set(keysInDomOrder()).size).toBe(10);
  });
});

describe('gridStyle', () => {
  it('sizes the table to the sum of the columns; only the last column takes spare width', () => {
    const s = gridStyle([100, 70, 50]);
    expect(s.table.width).toBe(220);
    expect(s.group.gridTemplateColumns).toBe('100px 70px minmax(50px, 1fr)');
  });
});
