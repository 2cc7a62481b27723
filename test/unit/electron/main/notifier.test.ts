import { describe, expect, it } from 'vitest';
import { OperationNotifier, type OperationNotice } from '../../../../electron/main/notifier';
import type { OperationProgress } from '../../../../shared/domain/operation';

function progress(over: Partial<OperationProgress>): OperationProgress {
  return {
    operationId: 'op-abcdef',
    kind: 'collect',
    title: 'Collect logs',
    state: 'running',
    step: { index: 1, count: 3, title: 'logs' },
    fraction: 0.5,
    node: 'win-1',
    cluster: 'demo',
    at: 60_000,
    startedAt: 0,
    ...over,
  };
}

function notifier(focused: boolean) {
  const shown: OperationNotice[] = [];
  const n = new OperationNotifier({ isWindowFocused: () => focused, notify: (x) => shown.push(x), minDurationMs: 5_000 });
  return { n, shown };
}

describe('OperationNotifier', () => {
  it('notifies when a long operation ends while the window is not focused', () => {
    const { n, shown } = notifier(false);
    n.onEvent('ops:progress', progress({ state: 'running' }));
    expect(shown).toHaveLength(0);
    n.onEvent('ops:progress', progress({ state: 'succeeded' }));
    n.onEvent('ops:progress', progress({ state: 'succeeded' }));
    expect(shown).toEqual([{ title: 'Windeck: Collect logs finished', body: 'Collect logs on win-1 is done.', operationId: 'op-abcdef' }]);
    n.onEvent('ops:progress', progress({ operationId: 'op-second', state: 'failed', message: 'win-1 is unreachable' }));
    expect(shown[1]).toMatchObject({ title: 'Windeck: Collect logs failed', body: 'Collect logs on win-1: win-1 is unreachable' });
  });

  it('stays quiet while focused, for short work, for cancellations and for other events', () => {
    const { n, shown } = notifier(true);
    n.onEvent('ops:progress', progress({ state: 'succeeded' }));
    const unfocused = notifier(false);
    unfocused.n.onEvent('ops:progress', progress({ state: 'succeeded', at: 1_000 }));
    unfocused.n.onEvent('ops:progress', progress({ state: 'cancelled' }));
    unfocused.n.onEvent('store:changed', { scopes: ['nodes'], cluster: null, node: null, at: 1 });
    unfocused.n.onEvent('ops:progress', { operationId: 'op-broken' });
    expect(shown).toHaveLength(0);
    expect(unfocused.shown).toHaveLength(0);
  });
});
