import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRefreshScheduler } from '../../../../renderer/api/refresh-scheduler';

describe('refresh scheduler', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('folds a burst into one run after the quiet time', () => {
    let runs = 0;
    const s = createRefreshScheduler(() => runs++, 100, 1000);
    for (let i = 0; i < 10; i++) {
      s.request();
      vi.advanceTimersByTime(20);
    }
    expect(runs).toBe(0);
    vi.advanceTimersByTime(100);
    expect(runs).toBe(1);
    vi.advanceTimersByTime(5000);
    expect(runs).toBe(1);
  });

  it('still runs at least every max-wait under a steady stream', () => {
    let runs = 0;
    const s = createRefreshScheduler(() => runs++, 100, 1000);
    for (let i = 0; i < 100; i++) {
      s.request();
      vi.advanceTimersByTime(50);
    }
    expect(runs).toBeGreaterThanOrEqual(4);
    expect(runs).toBeLessThanOrEqual(5);
  });

  it('cancel drops the pending run', () => {
    let runs = 0;
    const s = createRefreshScheduler(() => runs++, 100, 1000);
    s.request();
    s.cancel();
    vi.advanceTimersByTime(5000);
    expect(runs).toBe(0);
  });
});
