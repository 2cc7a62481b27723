import { describe, expect, it } from 'vitest';
import { Reflector } from '../../../../../electron/services/kube/reflector';

const never = () => {
  throw new Error('not used');
};

describe('reflector backoff', () => {
  it('doubles from 1 s to a 30 s cap, with equal jitter', () => {
    let rnd = 0;
    const r = new Reflector({ client: { listPage: never, watch: never }, path: '/x', resource: 'x', project: (x) => x, keyOf: () => 'k', random: () => rnd });
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((n) => r.backoffDelay(n))).toEqual([500, 1000, 2000, 4000, 8000, 15000, 15000, 15000]);
    rnd = 0.999999;
    expect([1, 2, 6, 50].map((n) => r.backoffDelay(n))).toEqual([1000, 2000, 30000, 30000]);
  });
});
