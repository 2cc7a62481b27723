import { describe, expect, it } from 'vitest';
import { peekContinue, type ListPage, type ListQuery, type RequestOptions } from '../../../../../electron/services/kube/client';
import { Reflector } from '../../../../../electron/services/kube/reflector';

const never = () => {
  throw new Error('not used');
};

/** A fake API server of `pages` pages of 3 items; tokens `t1`, `t2`...; `lie` makes onContinue report a wrong token. */
function fakeClient(pages: number, options: { lie?: boolean } = {}) {
  const calls: Array<string | null> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const listPage = async <T>(_path: string, query: ListQuery, project: (raw: unknown) => T | null, opts: RequestOptions = {}): Promise<ListPage<T>> => {
    calls.push(query.continue ?? null);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const index = query.continue ? Number(query.continue.slice(1)) : 0;
      await new Promise((r) => setImmediate(r));
      if (opts.signal?.aborted) throw new Error('aborted');
      const next = index + 1 < pages ? `t${index + 1}` : null;
      opts.onContinue?.(options.lie && next ? `bogus-${index}` : next);
      await new Promise((r) => setImmediate(r));
      const items = [0, 1, 2].map((k) => project({ name: `p${index}-${k}` })).filter((x): x is T => x !== null);
      return { items, resourceVersion: String(100 + index), continue: next, remainingItemCount: null, bytes: 10 };
    } finally {
      inFlight--;
    }
  };
  return { client: { listPage, watch: never }, calls, maxInFlight: () => maxInFlight };
}

describe('reflector list prefetch', () => {
  it('asks for the next page while the current one is parsed, once per page', async () => {
    const fake = fakeClient(5);
    const r = new Reflector<{ name: string }>({
      client: fake.client,
      path: '/api/v1/pods',
      resource: 'pods',
      project: (x) => x as { name: string },
      keyOf: (x) => x.name,
    });
    const items = await r.listOnce();
    expect([...items.keys()].length).toBe(15);
    expect(fake.calls).toEqual([null, 't1', 't2', 't3', 't4']);
    expect(fake.maxInFlight()).toBeGreaterThan(1);
    expect(r.stats.resourceVersion).toBe('104');
  });

  it('a wrong token seen in the head is not used: the parsed continue decides', async () => {
    const fake = fakeClient(4, { lie: true });
    const r = new Reflector<{ name: string }>({
      client: fake.client,
      path: '/api/v1/pods',
      resource: 'pods',
      project: (x) => x as { name: string },
      keyOf: (x) => x.name,
    });
    const items = await r.listOnce();
    expect([...items.keys()].sort()).toEqual(
      Array.from({ length: 4 }, (_, p) => [0, 1, 2].map((k) => `p${p}-${k}`))
        .flat()
        .sort(),
    );
    for (const t of ['t1', 't2', 't3']) expect(fake.calls).toContain(t);
  });
});

describe('peekContinue', () => {
  it('reads the list metadata before the items, and nothing else', () => {
    expect(peekContinue('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5","continue":"eyJ2Ijoi\\u0041"},"items":[]}')).toBe('eyJ2IjoiA');
    expect(peekContinue('{"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"continue":"x"}}]}')).toBeNull();
    expect(peekContinue('{"items":[{"metadata":{"continue":"x"}}],"metadata":{"continue":"y"}}')).toBeNull();
    expect(peekContinue('not json')).toBeNull();
  });
});
