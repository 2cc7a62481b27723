import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_CLEAN_CLOSE_MARK, migrate, openStore } from '../../../../../electron/services/store/database';
import { MIGRATIONS } from '../../../../../electron/services/store/migrations';
import type { Migration } from '../../../../../electron/services/store/migration';
import { WindeckError } from '../../../../../shared/contract/errors';
import { tempDir } from '../../../../helpers/temp-dir';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});
function tmp(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

describe('openStore', () => {
  it('creates the file with WAL and every migration applied', () => {
    const file = path.join(tmp(), 'nested', 'windeck.db');
    const store = openStore(file);
    expect(store.notice).toBeNull();
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    const versions = store.db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
    expect(versions).toEqual(MIGRATIONS.map((m) => m.version).sort((a, b) => a - b));
    store.close();
  });

  it('applies a migration only once across reopenings, and a later-numbered one added afterwards', () => {
    const file = path.join(tmp(), 'windeck.db');
    let calls = 0;
    const extra: Migration = { version: 9001, name: 'extra', up: (db) => (calls++, db.exec('CREATE TABLE extra_table (x INTEGER)')) };
    openStore(file).close();
    const a = openStore(file, { migrations: [...MIGRATIONS, extra] });
    a.close();
    const b = openStore(file, { migrations: [...MIGRATIONS, extra] });
    expect(calls).toBe(1);
    b.close();
  });

  it('moves a corrupt file aside, starts empty and says so', () => {
    const dir = tmp();
    const file = path.join(dir, 'windeck.db');
    fs.writeFileSync(file, Buffer.from('this is definitely not an sqlite database, just text '.repeat(200)));
    const store = openStore(file);
    expect(store.notice).toMatch(/could not be read/);
    expect(store.notice).toContain('.corrupt-');
    const aside = fs.readdirSync(dir).filter((f) => f.includes('.corrupt-'));
    expect(aside.length).toBe(1);
    expect(fs.readFileSync(path.join(dir, aside[0] as string), 'utf8')).toContain('definitely not an sqlite');
    expect(store.db.prepare('SELECT COUNT(*) FROM clusters').pluck().get()).toBe(0);
    store.close();
  });

  it('quick_checks a store that was not closed cleanly, and skips the check after a clean close', () => {
    const dir = tmp();
    const file = path.join(dir, 'windeck.db');
    const first = openStore(file);
    expect(first.db.pragma('user_version', { simple: true })).toBe(0);
    first.db.exec('CREATE TABLE pad (x TEXT)');
    const insert = first.db.prepare('INSERT INTO pad VALUES (?)');
    for (let i = 0; i < 400; i++) insert.run(`row ${i} `.repeat(40));
    first.close();
    const raw = new Database(file);
    expect(raw.pragma('user_version', { simple: true })).toBe(STORE_CLEAN_CLOSE_MARK);
    const pageSize = raw.pragma('page_size', { simple: true }) as number;
    raw.pragma('wal_checkpoint(TRUNCATE)');
    raw.close();
    // Damage the middle of the last page (a leaf of `pad`): the header and schema still read, quick_check fails.
    const fd = fs.openSync(file, 'r+');
    const size = fs.fstatSync(fd).size;
    fs.writeSync(fd, Buffer.alloc(64, 0xff), 0, 64, size - pageSize + 8);
    fs.closeSync(fd);

    const trusted = openStore(file);
    expect(trusted.notice).toBeNull();
    trusted.db.close(); // not store.close(): no clean-close mark, as after a crash

    const checked = openStore(file);
    // quick_check either reports the damage or SQLite raises "malformed" while checking: both move the file aside.
    expect(checked.notice).toMatch(/could not be read \((quick_check|database disk image is malformed)/);
    expect(checked.notice).toContain('.corrupt-');
    checked.close();
  });

  it('refuses a store written by a newer Windeck with a clear message', () => {
    const file = path.join(tmp(), 'windeck.db');
    openStore(file).close();
    const raw = new Database(file);
    raw.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (99999, ?, 0)').run('from the future');
    raw.close();
    expect(() => openStore(file)).toThrow(/newer Windeck/);
  });

  it('reports a locked store as STORE_UNAVAILABLE instead of crashing', () => {
    const file = path.join(tmp(), 'windeck.db');
    const holder = new Database(file);
    holder.exec('CREATE TABLE t (x INTEGER)');
    holder.exec('BEGIN EXCLUSIVE');
    try {
      let caught: unknown;
      try {
        openStore(file, { busyTimeoutMs: 50 });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(WindeckError);
      expect((caught as WindeckError).code).toBe('STORE_UNAVAILABLE');
      expect((caught as WindeckError).message).toMatch(/locked by another process/);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('reports a path it cannot open (a directory) as STORE_UNAVAILABLE', () => {
    const dir = tmp();
    const file = path.join(dir, 'windeck.db');
    fs.mkdirSync(file);
    expect(() => openStore(file)).toThrow(WindeckError);
  });

  it('rolls back a migration that fails, leaving it unapplied', () => {
    const db = new Database(path.join(tmp(), 'x.db'));
    const bad: Migration = {
      version: 5,
      name: 'bad',
      up: (d) => {
        d.exec('CREATE TABLE half (x INTEGER)');
        throw new Error('boom');
      },
    };
    expect(() => migrate(db, [bad])).toThrow('boom');
    expect(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'half'").pluck().get()).toBe(0);
    expect(db.prepare('SELECT COUNT(*) FROM schema_migrations').pluck().get()).toBe(0);
    db.close();
  });
});
