import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref, type Route } from '../../../../renderer/app/router';

describe('router', () => {
  it('round-trips every route, including node names that need escaping', () => {
    const routes: Route[] = [
      { name: 'fleet' },
      { name: 'activity' },
      { name: 'import' },
      { name: 'node', node: 'win-1', tab: 'overview', action: null },
      { name: 'node', node: 'akswin#1?x=<b>', tab: 'findings', action: null },
      { name: 'node', node: 'win-2', tab: 'overview', action: 'restart' },
    ];
    for (const r of routes) expect(parseRoute(routeHref(r))).toEqual(r);
  });

  it('falls back to the fleet for unknown or broken hashes and to overview for unknown tabs', () => {
    expect(parseRoute('')).toEqual({ name: 'fleet' });
    expect(parseRoute('#/nope')).toEqual({ name: 'fleet' });
    expect(parseRoute('#/nodes/%E0%A4%A')).toEqual({ name: 'fleet' });
    expect(parseRoute('#/nodes/win-1?tab=bogus')).toEqual({ name: 'node', node: 'win-1', tab: 'overview', action: null });
  });
});
