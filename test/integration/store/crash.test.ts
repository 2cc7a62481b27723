import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../electron/services/store/database';
import { tempDir, waitFor } from '../../helpers/temp-dir';

// A writer process is killed with SIGKILL in the middle of write transactions; the file must reopen clean
// (quick_check ok, no notice) with every committed batch complete and no partial batch.
const WRITER = `
import { openStore } from './electron/services/store/database';
const file = process.argv[2];
const store = openStore(file);
const insert = store.db.prepare("INSERT INTO audit (at, action, detail) VALUES (?, ?, ?)");
let batch = 0;
const write = store.db.transaction((b) => { for (let i = 0; i < 50; i++) insert.run(b, 'batch', JSON.stringify({ b, i, pad: 'x'.repeat(200) })); });
for (;;) { write(batch++); if (batch === 20) process.stdout.write('writing\\n'); }
`;

describe('store crash safety', () => {
  const t = tempDir();
  let script = '';
  beforeAll(async () => {
    const entry = path.join(process.cwd(), `.crash-writer-${process.pid}.ts`);
    fs.writeFileSync(entry, WRITER);
    try {
      script = path.join(t.dir, 'writer.mjs');
      await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: script, absWorkingDir: process.cwd(), logLevel: 'silent' });
      // The bundle must resolve better-sqlite3 from the project.
      fs.symlinkSync(path.join(process.cwd(), 'node_modules'), path.join(t.dir, 'node_modules'));
    } finally {
      fs.rmSync(entry, { force: true });
    }
  });
  afterAll(() => t.cleanup());

  it('survives kill -9 during writes', async () => {
    const file = path.join(t.dir, 'windeck.db');
    for (let round = 0; round < 3; round++) {
      const child = spawn(process.execPath, [script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await waitFor(() => out.includes('writing'), 30_000);
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    const store = openStore(file);
    expect(store.notice).toBeNull();
    expect(store.db.pragma('quick_check', { simple: true })).toBe('ok');
    const perBatch = store.db.prepare("SELECT at, COUNT(*) AS n FROM audit WHERE action = 'batch' GROUP BY at").all() as Array<{ n: number }>;
    expect(perBatch.length).toBeGreaterThan(0);
    for (const row of perBatch) expect(row.n % 50).toBe(0);
    store.close();
  });
});
