import { PassThrough } from 'node:stream';
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { ListPage, ListQuery } from '../../../../../electron/services/kube/client';
import { dropUnreadArrays } from '../../../../../electron/services/kube/drop-unread-arrays';
import { projectNode, nodeKey } from '../../../../../electron/services/kube/projections';
import { eventLineName, Reflector, type ReflectorChange } from '../../../../../electron/services/kube/reflector';
import type { NodeObject } from '../../../../../shared/logic/node-model';
import { ManualClock } from '../../../../helpers/manual-clock';

/** A node as the API server writes it (TypeMeta, then metadata with the name first, managedFields last). */
const node = (name: string, rv: number, runtime: string) => ({
  kind: 'Node',
  apiVersion: 'v1',
  metadata: {
    name,
    uid: `uid-${name}`,
    resourceVersion: String(rv),
    labels: { 'kubernetes.io/os': 'windows' },
    managedFields: [{ manager: 'kubelet.exe', fieldsV1: { 'f:status': {} } }],
  },
  spec: {},
  status: { nodeInfo: { containerRuntimeVersion: runtime }, images: [{ names: ['x'], sizeBytes: 1 }] },
});
const line = (type: string, obj: unknown) => JSON.stringify({ type, object: obj });

/** A fake API server: one list of `initial`, then watches whose lines the test writes. */
function fakeServer(initial: Array<ReturnType<typeof node>>) {
  const watches: PassThrough[] = [];
  let lists = 0;
  const listPage = async <T>(_path: string, _query: ListQuery, project: (raw: unknown) => T | null): Promise<ListPage<T>> => {
    lists++;
    const items = initial.map((o) => project(structuredClone(o))).filter((x): x is T => x !== null);
    return { items, resourceVersion: '10', continue: null, remainingItemCount: null, bytes: 1 };
  };
  const watch = async (_path: string, _query: unknown, opts: { signal?: AbortSignal } = {}): Promise<http.IncomingMessage> => {
    const s = new PassThrough();
    // Like the real client: an abort breaks the response stream.
    opts.signal?.addEventListener('abort', () => s.destroy(new Error('aborted')), { once: true });
    watches.push(s);
    return s as unknown as http.IncomingMessage;
  };
  return { client: { listPage, watch }, watches, lists: () => lists };
}

const reflectors: Array<Reflector<NodeObject>> = [];
afterEach(async () => {
  for (const r of reflectors.splice(0)) await r.stop();
});

async function setup(options: { coalesceMs?: number } = { coalesceMs: 100 }) {
  const server = fakeServer([node('n1', 5, 'v0'), node('n2', 6, 'v0')]);
  const clock = new ManualClock();
  const changes: Array<ReflectorChange<NodeObject>> = [];
  const coalesced: Array<[string, string]> = [];
  const r = new Reflector<NodeObject>({
    client: server.client,
    path: '/api/v1/nodes',
    resource: 'nodes',
    project: projectNode,
    keyOf: nodeKey,
    clock,
    ...options,
    onChange: (c) => changes.push(c),
    onCoalesced: (key, l) => coalesced.push([key, l]),
  });
  reflectors.push(r);
  r.start();
  await r.synced;
  await until(() => server.watches.length === 1);
  changes.length = 0;
  const send = async (...lines: string[]) => {
    const events = r.stats.events + r.stats.bookmarks;
    server.watches.at(-1)!.write(lines.map((l) => l + '\n').join(''));
    await until(() => r.stats.events + r.stats.bookmarks >= events + lines.length);
  };
  const runtime = (name: string) => r.cache.get(name)?.status?.nodeInfo?.containerRuntimeVersion;
  return { r, server, clock, changes, coalesced, send, runtime };
}

async function until(fn: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((res) => setImmediate(res));
  }
}

describe('reflector coalescing (node watch events)', () => {
  it('reads the name and type from the head only when it has the API server shape', () => {
    expect(eventLineName(line('MODIFIED', node('win-1', 1, 'x')))).toBe('win-1');
    expect(eventLineName(line('DELETED', { metadata: { name: 'n' } }))).toBe('n');
    expect(eventLineName(line('BOOKMARK', { kind: 'Node', apiVersion: 'v1', metadata: { resourceVersion: '3' } }))).toBeNull();
    expect(eventLineName(JSON.stringify({ object: node('a', 1, 'x'), type: 'MODIFIED' }))).toBeNull();
    expect(eventLineName(line('MODIFIED', { kind: 'Node', apiVersion: 'v1', metadata: { uid: 'u', name: 'a' } }))).toBeNull();
    expect(eventLineName(line('MODIFIED', { metadata: { name: 'we"ird' } }))).toBeNull();
  });

  it('holds events until drained; a superseded event is never applied, the newest is, in order', async () => {
    const t = await setup();
    const first = line('MODIFIED', node('n1', 11, 'a'));
    await t.send(first, line('MODIFIED', node('n2', 12, 'b')), line('MODIFIED', node('n1', 13, 'c')));
    // Held, not yet applied.
    expect(t.runtime('n1')).toBe('v0');
    expect(t.changes).toEqual([]);
    expect(t.r.drain()).toBe(true);
    expect(t.runtime('n1')).toBe('c');
    expect(t.runtime('n2')).toBe('b');
    expect(t.changes.map((c) => (c.type === 'upsert' ? `${c.key}:${c.item.status?.nodeInfo?.containerRuntimeVersion}` : c.type))).toEqual(['n2:b', 'n1:c']);
    // What was held: the line without managedFields and images.
    expect(t.coalesced).toEqual([['n1', dropUnreadArrays(first, ['managedFields', 'images'])]]);
    expect(t.coalesced[0]![1]).not.toContain('kubelet.exe');
    expect(t.r.stats).toMatchObject({ events: 3, coalesced: 1, resourceVersion: '13', items: 2 });
  });

  it('a delete after a modify in one window deletes; an add after a delete upserts; add+delete of a new name is nothing', async () => {
    const t = await setup();
    await t.send(
      line('MODIFIED', node('n1', 11, 'a')),
      line('DELETED', node('n1', 12, 'a')),
      line('DELETED', node('n2', 13, 'v0')),
      line('ADDED', node('n2', 14, 'again')),
      line('ADDED', node('n3', 15, 'new')),
      line('DELETED', node('n3', 16, 'new')),
    );
    t.r.drain();
    expect([...t.r.cache.keys()].sort()).toEqual(['n2']);
    expect(t.runtime('n2')).toBe('again');
    expect(t.changes.map((c) => `${c.type}:${c.type === 'replace' ? '' : c.key}`)).toEqual(['delete:n1', 'upsert:n2']);
    expect(t.r.stats).toMatchObject({ coalesced: 3, resourceVersion: '16', items: 1 });
  });

  it('applies held events before a bookmark, so the bookmark resourceVersion stays the newest', async () => {
    const t = await setup();
    await t.send(line('MODIFIED', node('n1', 11, 'a')), line('BOOKMARK', { kind: 'Node', apiVersion: 'v1', metadata: { resourceVersion: '20' } }));
    expect(t.runtime('n1')).toBe('a');
    expect(t.r.stats.resourceVersion).toBe('20');
    t.r.drain();
    expect(t.r.stats.resourceVersion).toBe('20');
  });

  it('a line of another shape is applied in order after the held ones', async () => {
    const t = await setup();
    // Keys in another order: not coalescible, parsed at once, after the held n1:a.
    const other = JSON.stringify({ object: node('n1', 12, 'b'), type: 'MODIFIED' });
    await t.send(line('MODIFIED', node('n1', 11, 'a')), other);
    expect(t.runtime('n1')).toBe('b');
    expect(t.changes.map((c) => (c.type === 'upsert' ? c.item.status?.nodeInfo?.containerRuntimeVersion : c.type))).toEqual(['a', 'b']);
    expect(t.r.stats.resourceVersion).toBe('12');
  });

  it('drains on its own after coalesceMs (backstop when nobody calls drain)', async () => {
    const t = await setup({ coalesceMs: 250 });
    await t.send(line('MODIFIED', node('n2', 11, 'late')));
    t.clock.advance(249);
    expect(t.runtime('n2')).toBe('v0');
    t.clock.advance(1);
    expect(t.runtime('n2')).toBe('late');
  });

  it('a held line whose body names another object than its head: relist (what it superseded may be lost)', async () => {
    const t = await setup();
    // Duplicate "name": the head says n1, JSON.parse keeps the last one.
    const lying = line('MODIFIED', node('n1', 11, 'a')).replace('"uid":"uid-n1"', '"uid":"uid-n1","name":"n9"');
    expect(eventLineName(lying)).toBe('n1');
    await t.send(line('MODIFIED', node('n1', 10, 'x')), lying);
    expect(t.r.drain()).toBe(false);
    await until(() => t.server.lists() === 2 && t.r.state === 'watching');
    expect(t.r.stats.relists).toBe(1);
    expect(t.r.stats.garbageLines).toBe(1);
    expect(t.r.cache.has('n9')).toBe(false);
    expect(t.runtime('n1')).toBe('v0');
  });

  it('applies what it holds when the watch ends, then re-watches from the newest resourceVersion', async () => {
    const t = await setup();
    await t.send(line('MODIFIED', node('n1', 11, 'a')), line('MODIFIED', node('n1', 17, 'b')));
    t.server.watches[0]!.end();
    await until(() => t.server.watches.length === 2);
    expect(t.runtime('n1')).toBe('b');
    expect(t.r.stats.resourceVersion).toBe('17');
  });

  it('without coalesceMs every event is applied as it arrives (no change in behaviour)', async () => {
    const t = await setup({});
    await t.send(line('MODIFIED', node('n1', 11, 'a')), line('MODIFIED', node('n1', 12, 'b')));
    expect(t.changes.length).toBe(2);
    expect(t.r.stats.coalesced).toBe(0);
    expect(t.runtime('n1')).toBe('b');
  });
});
