import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUNDLE_IMPORT_METHOD, describeDrop, importBundles, validateDroppedPaths } from '../../../../electron/main/bundle-drop';
import { isMethodName } from '../../../../shared/contract/methods';
import { tempDir } from '../../../helpers/temp-dir';
import { testServices } from '../../../helpers/services';

describe('dropped bundles', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.cleanup());

  it('accepts existing .zip files and says why the rest were refused', () => {
    const bundle = path.join(tmp.dir, 'win-1.zip');
    const upper = path.join(tmp.dir, 'WIN-2.ZIP');
    fs.writeFileSync(bundle, 'PK');
    fs.writeFileSync(upper, 'PK');
    fs.mkdirSync(path.join(tmp.dir, 'folder.zip'));
    fs.writeFileSync(path.join(tmp.dir, 'notes.txt'), 'x');
    const verdict = validateDroppedPaths([
      bundle,
      upper,
      path.join(tmp.dir, 'folder.zip'),
      path.join(tmp.dir, 'notes.txt'),
      path.join(tmp.dir, 'missing.zip'),
      'relative.zip',
      'a\0b.zip',
      42,
    ]);
    expect(verdict.accepted).toEqual([bundle, upper]);
    expect(verdict.rejected.map((r) => r.reason)).toEqual([
      'not a readable file',
      'not a Windeck bundle (.zip)',
      'not a readable file',
      'not an absolute path',
      'not a file path',
      'not a file path',
    ]);
    expect(validateDroppedPaths('not an array')).toEqual({ accepted: [], rejected: [] });
  });

  it('caps the number of files in one drop', () => {
    const paths = Array.from({ length: 25 }, (_, i) => {
      const p = path.join(tmp.dir, `b${i}.zip`);
      fs.writeFileSync(p, 'PK');
      return p;
    });
    const verdict = validateDroppedPaths(paths);
    expect(verdict.accepted).toHaveLength(20);
    expect(verdict.rejected).toHaveLength(5);
  });

  it('imports through the contract; a missing file or an unknown method is the contract\'s answer', async () => {
    const env = testServices({ host: 'electron' });
    try {
      const outcomes = await importBundles(['/tmp/a.zip'], (m, i) => env.services.dispatch(m, i, { host: 'electron' }));
      // The import method exists; a missing file is the service's answer, not ours.
      expect(isMethodName(BUNDLE_IMPORT_METHOD)).toBe(true);
      expect(outcomes[0]!.result.ok).toBe(false);
      const unknownMethod = await importBundles(['/tmp/a.zip'], (m, i) => env.services.dispatch(m, i), 'bundles:nope');
      expect(unknownMethod[0]!.result).toMatchObject({ ok: false, error: { code: 'VALIDATION', message: expect.stringMatching(/Unknown method/) } });
      const calls: unknown[][] = [];
      const viaKnown = await importBundles(['/x/b.zip'], async (...args) => (calls.push(args), { ok: true, value: { operationId: 'op-123456' } }), 'app:info');
      expect(calls).toEqual([['app:info', { path: '/x/b.zip' }]]);
      expect(viaKnown[0]!.result.ok).toBe(true);
      expect(describeDrop({ accepted: [], rejected: [{ path: '/x/notes.txt', reason: 'not a Windeck bundle (.zip)' }] }, outcomes)).toMatch(
        /notes\.txt: not a Windeck bundle[\s\S]*a\.zip: /,
      );
    } finally {
      await env.cleanup();
    }
  });
});
