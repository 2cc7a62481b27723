import { describe, expect, it } from 'vitest';
import { actionBlocker } from '../../../../../renderer/features/node-detail/node-actions';

describe('actionBlocker', () => {
  const has = (m: string) => m === 'restarts:plan';
  it('names the missing method first', () => {
    expect(actionBlocker({ needs: ['restarts:plan', 'restarts:execute'], live: true }, has, { live: true, reason: null })).toMatch(
      /no restarts:execute method/,
    );
  });
  it('then requires a live session for live actions, with the reason', () => {
    expect(actionBlocker({ needs: ['restarts:plan'], live: true }, has, { live: false, reason: 'Cluster x is unreachable.' })).toBe(
      'Needs a live session: Cluster x is unreachable.',
    );
    expect(actionBlocker({ needs: ['restarts:plan'], live: false }, has, { live: false, reason: 'x' })).toBeNull();
    expect(actionBlocker({ needs: ['restarts:plan'], live: true }, has, { live: true, reason: null })).toBeNull();
  });
});
