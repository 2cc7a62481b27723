import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { WindeckError } from '../../../shared/contract/errors';
import { STORE_BUSY_TIMEOUT_MS } from '../../../shared/domain/limits';
import type { Migration } from './migration';
import { MIGRATIONS } from './migrations';

export type Db = Database.Database;

export interface OpenedStore {
  db: Db;
  path: string;
  /** Set when something the user should know happened while opening (a corrupt file moved aside). */
  notice: string | null;
  close(): void;
}

export interface OpenStoreOptions {
  migrations?: readonly Migration[];
  now?: () => number;
  busyTimeoutMs?: number;
}

/** Errors from SQLite that mean the file itself is damaged or not a database. */
function isCorruption(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT');
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code.startsWith('SQLITE_BUSY');
}

function unavailable(file: string, why: string, cause: unknown): WindeckError {
  return new WindeckError('STORE_UNAVAILABLE', `The Windeck store ${file} ${why}`, { path: file }, { cause });
}

function configure(db: Db, busyTimeoutMs: number): void {
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
}

/**
 * `PRAGMA user_version` while no Windeck process holds the store open after a clean close. A store closed
 * cleanly skips the start-up quick_check (it reads the whole file: ~60 ms per 30 MB, on the warm-start path);
 * one that was not (a crash, a kill, a file from elsewhere) is checked. Opening resets the mark, so a process
 * that dies with the store open leaves it unmarked.
 */
export const STORE_CLEAN_CLOSE_MARK = 0x57444b31;

function check(db: Db): string {
  const rows = db.pragma('quick_check', { simple: false }) as Array<Record<string, unknown>>;
  const first = rows[0] ? String(Object.values(rows[0])[0]) : 'ok';
  return first;
}

/** Apply every migration not yet recorded, each in its own transaction. */
export function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS, now: () => number = Date.now): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>).map((r) => r.version));
  const known = new Set(migrations.map((m) => m.version));
  const unknown = [...applied].filter((v) => !known.has(v));
  if (unknown.length > 0) {
    throw new WindeckError(
      'STORE_UNAVAILABLE',
      `The store was written by a newer Windeck (schema steps ${unknown.join(', ')} are unknown to this version). Update Windeck or use another WINDECK_HOME.`,
    );
  }
  const ran: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      m.up(db);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, now());
    }).immediate();
    ran.push(m.version);
  }
  return ran;
}

function moveAside(file: string, now: number): string {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const target = `${file}.corrupt-${stamp}`;
  fs.renameSync(file, target);
  for (const suffix of ['-wal', '-shm']) {
    if (fs.existsSync(file + suffix)) fs.renameSync(file + suffix, target + suffix);
  }
  return target;
}

/**
 * Open (or create) the SQLite store at `file`: WAL, busy timeout, quick_check (unless closed cleanly), migrations.
 * A corrupt file is moved aside and a fresh store created (the `notice` says so); a locked or unreadable file
 * raises STORE_UNAVAILABLE with a message naming the file and what to do.
 */
export function openStore(file: string, options: OpenStoreOptions = {}): OpenedStore {
  const now = options.now ?? Date.now;
  const busy = options.busyTimeoutMs ?? STORE_BUSY_TIMEOUT_MS;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  } catch (error) {
    throw unavailable(file, `cannot be created: ${(error as Error).message}. Set WINDECK_HOME (or --home) to a writable directory.`, error);
  }
  if (fs.existsSync(file)) {
    try {
      fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    } catch (error) {
      throw unavailable(file, 'is not readable and writable by this user. Fix its permissions or set WINDECK_HOME to another directory.', error);
    }
  }

  let notice: string | null = null;
  const attempt = (): Db => {
    const db = new Database(file);
    try {
      configure(db, busy);
      if (db.pragma('user_version', { simple: true }) !== STORE_CLEAN_CLOSE_MARK) {
        const result = check(db);
        if (result !== 'ok') {
          const e = new Error(`quick_check: ${result}`) as Error & { code: string };
          e.code = 'SQLITE_CORRUPT';
          throw e;
        }
      }
      db.pragma('user_version = 0');
      migrate(db, options.migrations ?? MIGRATIONS, now);
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  };

  let db: Db;
  try {
    db = attempt();
  } catch (error) {
    if (isCorruption(error)) {
      const moved = moveAside(file, now());
      notice = `The store ${file} could not be read (${(error as Error).message}); it was moved to ${moved} and Windeck started with an empty store.`;
      db = attempt();
    } else if (isBusy(error)) {
      throw unavailable(file, 'is locked by another process. Close the other Windeck window or command, then try again.', error);
    } else if (error instanceof WindeckError) {
      throw error;
    } else {
      throw unavailable(file, `cannot be opened: ${(error as Error).message}`, error);
    }
  }
  return {
    db,
    path: file,
    notice,
    close: () => {
      if (!db.open) return;
      try {
        db.pragma(`user_version = ${STORE_CLEAN_CLOSE_MARK}`);
      } catch {
        // a store that cannot be written now is simply checked at the next open
      }
      db.close();
    },
  };
}
