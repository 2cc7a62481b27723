import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../../../electron/services/store/database';
import { MIGRATIONS } from '../../../../../electron/services/store/migrations';
import { NodesRepo } from '../../../../../electron/services/store/repos/nodes';
import { tempDir } from '../../../../helpers/temp-dir';
import { nodeModel } from '../../../renderer/seed';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function freshStore() {
  const t = tempDir();
  const file = path.join(t.dir, 'windeck.db');
  const store = openStore(file, { migrations: MIGRATIONS });
  cleanups.push(() => (store.close(), t.cleanup()));
  store.db.prepare("INSERT INTO clusters (id, name, context, created_at) VALUES ('c1', 'c1', 'c1', 0), ('c2', 'c2', 'c2', 0)").run();
  return { store, file };
}

const names = (r: { changed: Array<{ name: string }> }) => r.changed.map((n) => n.name);

describe('node revisions', () => {
  it('stamps each write with one new revision and answers what changed after one', () => {
    const { store } = freshStore();
    const repo = new NodesRepo(store.db);
    const start = repo.revState();
    expect(start.rev).toBe(0);
    expect(start.epoch).toMatch(/^[0-9a-f]{16}$/);

    repo.replaceAll('c1', [nodeModel('a'), nodeModel('b'), nodeModel('c')]);
    const r1 = repo.revState().rev;
    expect(r1).toBe(1);
    expect(names(repo.changesSince('c1', 0))).toEqual(['a', 'b', 'c']);
    expect(repo.changesSince('c1', r1)).toEqual({ changed: [], removed: [] });

    repo.upsertMany('c1', [nodeModel('b', { containerRuntime: 'containerd://2.0.0' })]);
    const r2 = repo.revState().rev;
    expect(r2).toBe(2);
    const d = repo.changesSince('c1', r1);
    expect(names(d)).toEqual(['b']);
    expect(d.changed[0]!.containerRuntime).toBe('containerd://2.0.0');
    expect(d.removed).toEqual([]);

    // Another cluster shares the counter but not the rows.
    repo.upsertMany('c2', [nodeModel('x')]);
    expect(repo.revState().rev).toBe(3);
    expect(names(repo.changesSince('c1', r2))).toEqual([]);
    expect(names(repo.changesSince('c2', r2))).toEqual(['x']);

    // An empty batch writes nothing and takes no revision.
    repo.upsertMany('c1', []);
    expect(repo.revState().rev).toBe(3);
  });

  it('leaves tombstones for removed nodes (remove and replaceAll), and forgets them when the node is back', () => {
    const { store } = freshStore();
    const repo = new NodesRepo(store.db);
    repo.replaceAll('c1', [nodeModel('a'), nodeModel('b'), nodeModel('c')]);
    const r1 = repo.revState().rev;
    repo.remove('c1', 'a');
    // Removing an absent node changes nothing.
    const r2 = repo.revState().rev;
    repo.remove('c1', 'nope');
    expect(repo.revState().rev).toBe(r2);
    expect(repo.changesSince('c1', r1)).toEqual({ changed: [], removed: ['a'] });

    repo.replaceAll('c1', [nodeModel('a'), nodeModel('d')]);
    const d = repo.changesSince('c1', r1);
    expect(names(d)).toEqual(['a', 'd']);
    // b and c went with the relist; a is back, so it is not reported removed.
    expect(d.removed).toEqual(['b', 'c']);
    expect(repo.changesSince('c1', r2).removed).toEqual(['b', 'c']);
    expect(repo.listSummaries('c1').map((n) => n.name)).toEqual(['a', 'd']);
  });

  it('prunes the older tombstones past the cap and moves the prune point', () => {
    const { store } = freshStore();
    const repo = new NodesRepo(store.db, { tombstonesMax: 4 });
    repo.replaceAll(
      'c1',
      ['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'keep'].map((n) => nodeModel(n)),
    );
    const before = repo.revState();
    expect(before.prunedRev).toBe(0);
    for (const n of ['n1', 'n2', 'n3', 'n4']) repo.remove('c1', n);
    expect(repo.revState().prunedRev).toBe(0);
    expect(repo.changesSince('c1', before.rev).removed).toEqual(['n1', 'n2', 'n3', 'n4']);
    repo.remove('c1', 'n5'); // the fifth tombstone: past the cap, the older ones go
    const after = repo.revState();
    expect(after.prunedRev).toBeGreaterThan(before.rev);
    const left = store.db.prepare('SELECT COUNT(*) FROM node_tombstones').pluck().get() as number;
    expect(left).toBeLessThanOrEqual(2);
    // From the prune point on, the delta is still complete.
    repo.remove('c1', 'n6');
    expect(repo.changesSince('c1', after.prunedRev).removed).toContain('n6');
  });

  it('keeps the counter and epoch across a reopen', () => {
    const { store, file } = freshStore();
    const repo = new NodesRepo(store.db);
    repo.replaceAll('c1', [nodeModel('a')]);
    repo.upsertMany('c1', [nodeModel('a')]);
    const state = repo.revState();
    store.close();
    const again = openStore(file, { migrations: MIGRATIONS });
    try {
      expect(new NodesRepo(again.db).revState()).toEqual(state);
    } finally {
      again.close();
    }
  });
});
