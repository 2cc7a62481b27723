import type BetterSqlite3 from 'better-sqlite3';

/** One schema step. Append-only once released: never edit or renumber a migration. */
export interface Migration {
  version: number;
  name: string;
  up(db: BetterSqlite3.Database): void;
}
