import { UI_REFRESH_DEBOUNCE_MS, UI_REFRESH_MAX_WAIT_MS } from '../../shared/domain/limits';

export interface RefreshScheduler {
  /** Ask for a refresh: runs after `debounceMs` of quiet, and no later than `maxWaitMs` after the first request. */
  request(): void;
  /** Forget a pending refresh. */
  cancel(): void;
}

/**
 * Folds bursts of `store:changed` into one re-read. A steady stream (a 5,000-node relist) still refreshes at
 * least every `maxWaitMs`, so the screen never freezes on old data while the store keeps changing.
 */
export function createRefreshScheduler(run: () => void, debounceMs = UI_REFRESH_DEBOUNCE_MS, maxWaitMs = UI_REFRESH_MAX_WAIT_MS): RefreshScheduler {
  let quietTimer: ReturnType<typeof setTimeout> | null = null;
  let maxTimer: ReturnType<typeof setTimeout> | null = null;

  function fire(): void {
    cancel();
    run();
  }

  function cancel(): void {
    if (quietTimer) clearTimeout(quietTimer);
    if (maxTimer) clearTimeout(maxTimer);
    quietTimer = null;
    maxTimer = null;
  }

  return {
    request() {
      if (quietTimer) clearTimeout(quietTimer);
      quietTimer = setTimeout(fire, debounceMs);
      if (!maxTimer) maxTimer = setTimeout(fire, maxWaitMs);
    },
    cancel,
  };
}
