import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../../../electron/services/store/database';
import { ProbeResultsRepo } from '../../../../../electron/services/store/repos/probe-results';
import { tempDir } from '../../../../helpers/temp-dir';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

// "Secrets never reach the database in clear": a probe's raw output (a kubelet kubeconfig, a log line) is redacted
// before it is stored, and so is every string of its parsed form.
describe('ProbeResultsRepo', () => {
  it('stores probe output with secrets redacted and ordinary output untouched', () => {
    const t = tempDir();
    const store = openStore(path.join(t.dir, 'windeck.db'));
    cleanups.push(() => (store.close(), t.cleanup()));
    store.db.prepare("INSERT INTO clusters (id, name, context, created_at) VALUES ('c1', 'c1', 'c1', 0)").run();
    const repo = new ProbeResultsRepo(store.db);
    const jwt = 'eyJhbGciOiJSUzI1NiIsImtpZCI6IndpbmRlY2stdGVzdCJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6a3ViZS1zeXN0ZW06d2luZGVjayJ9.c2lnbmF0dXJlLXRoYXQtaXMtbG9uZy1lbm91Z2gtdG8tbG9vay1yZWFs';
    const raw = Buffer.from(`users:\r\n- name: kubelet\r\n  user:\r\n    token: ${jwt}\r\nStatus  Name\r\nRunning kubelet\r\n`, 'utf8');
    repo.insert({
      clusterId: 'c1', node: 'win-1', probeId: 'files', probeVersion: 1, scriptId: 'files', scriptSha256: null, transport: 'ssh', ok: true, exitCode: 0,
      raw, stderr: `Authorization: Bearer ${jwt}`, parsed: { files: [{ path: 'C:\\k\\config', content: `token: ${jwt}` }] }, warnings: [], error: null, startedAt: 1, durationMs: 5,
    });
    const stored = store.db.prepare('SELECT raw, stderr, parsed FROM probe_results').get() as { raw: Buffer; stderr: string; parsed: string };
    for (const text of [stored.raw.toString('utf8'), stored.stderr, stored.parsed]) expect(text).not.toContain(jwt.split('.')[1]);
    expect(stored.raw.toString('utf8')).toContain('Running kubelet\r\n');
    expect(JSON.parse(stored.parsed).files[0].path).toBe('C:\\k\\config');
  });
});
