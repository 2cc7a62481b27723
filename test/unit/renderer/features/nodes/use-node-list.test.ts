import { describe, expect, it } from 'vitest';
import type { NodeProbeBrief } from '../../../../../shared/contract/methods/nodes';
import { applyNodeList, toResult } from '../../../../../renderer/features/nodes/use-node-list';
import { nodeListAnswer as answer, nodeSummary as summary } from '../../node-list-fixtures';

const brief = (probedAt: number, kubelet = 'Running'): NodeProbeBrief => ({ probedAt, servicesAt: probedAt, servicesOk: true, services: { kubelet } });

describe('node list deltas: the probe map is copied only when a probe brief changes', () => {
  const full = () =>
    applyNodeList(null, answer({ full: true, nodes: [summary('a'), summary('b'), summary('c')], probes: { a: brief(1), b: brief(2) }, cursor: 'c1' }));

  it('keeps the probe map when the changed nodes carry the same briefs, or none as before', () => {
    const start = full();
    const next = applyNodeList(
      start,
      answer({ nodes: [summary('a', 'containerd://2'), summary('c', 'containerd://2')], probes: { a: brief(1) }, cursor: 'c2' }),
    );
    expect(next.rows).not.toBe(start.rows);
    expect(next.rows.get('a')?.containerRuntime).toBe('containerd://2');
    expect(next.probes).toBe(start.probes);
    expect([...next.probes.keys()]).toEqual(['a', 'b']);
  });

  it('copies the map (never mutates the old one) for a new, changed, dropped or removed brief', () => {
    const start = full();
    const before = new Map(start.probes);
    const changed = applyNodeList(start, answer({ nodes: [summary('a')], probes: { a: brief(5, 'Stopped') }, cursor: 'c2' }));
    expect(changed.probes).not.toBe(start.probes);
    expect(changed.probes.get('a')?.services).toEqual({ kubelet: 'Stopped' });
    const added = applyNodeList(start, answer({ nodes: [summary('c')], probes: { c: brief(3) }, cursor: 'c2' }));
    expect(added.probes.get('c')?.probedAt).toBe(3);
    const dropped = applyNodeList(start, answer({ nodes: [summary('b')], probes: {}, cursor: 'c2' }));
    expect(dropped.probes.has('b')).toBe(false);
    const removed = applyNodeList(start, answer({ removed: ['a'], cursor: 'c2' }));
    expect(removed.probes.has('a')).toBe(false);
    expect(removed.rows.has('a')).toBe(false);
    for (const next of [changed, added, dropped, removed]) expect(next.probes).not.toBe(start.probes);
    expect(start.probes).toEqual(before);
  });

  it('makes the view data from the cache, reusing the last nodes array and probes object where the maps did not change', () => {
    const start = full();
    const first = toResult(start, true);
    expect(first.nodes.map((n) => n.name)).toEqual(['a', 'b', 'c']);
    expect(first.probes).toEqual({ a: brief(1), b: brief(2) });
    const next = applyNodeList(start, answer({ nodes: [summary('b', 'containerd://2')], probes: { b: brief(2) }, cursor: 'c2' }));
    const second = toResult(next, false, { cache: start, result: first });
    expect(second.probes).toBe(first.probes); // no 3-key (or 5,000-key) object rebuilt for a delta without probe changes
    expect(second.nodes).not.toBe(first.nodes);
    expect(second.nodes[1]?.containerRuntime).toBe('containerd://2');
    expect(second.cursor).toBe('c2');
    const probed = applyNodeList(next, answer({ nodes: [summary('c')], probes: { c: brief(9) }, cursor: 'c3' }));
    const third = toResult(probed, false, { cache: next, result: second });
    expect(third.probes).not.toBe(second.probes);
    expect(third.probes.c?.probedAt).toBe(9);
    // Without a previous result (or with another cache's) everything is made anew.
    expect(toResult(next, false).probes).not.toBe(first.probes);
    expect(toResult(next, false).probes).toEqual(first.probes);
  });
});
