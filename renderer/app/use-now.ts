import { useSyncExternalStore } from 'react';
import { UI_AGE_TICK_MS } from '../../shared/domain/limits';

// One shared ticker for every relative age on screen: a clock for rendering, never a data poll.
let now = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer) {
    now = Date.now(); // React re-reads the snapshot after subscribing, so a stale clock is corrected at once
    timer = setInterval(() => {
      now = Date.now();
      for (const l of [...listeners]) l();
    }, UI_AGE_TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/** The current time, re-rendered every UI_AGE_TICK_MS while something shows an age. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, () => now);
}
