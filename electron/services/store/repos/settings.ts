import type { Db } from '../database';

/** Small key/value settings (active cluster, UI preferences). Values are JSON. */
export class SettingsRepo {
  constructor(private readonly db: Db) {}

  get<T>(key: string): T | null {
    const value = this.db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(key) as string | undefined;
    return value === undefined ? null : (JSON.parse(value) as T);
  }

  set(key: string, value: unknown): void {
    this.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
  }

  delete(key: string): void {
    this.db.prepare('DELETE FROM settings WHERE key = ?').run(key);
  }
}
