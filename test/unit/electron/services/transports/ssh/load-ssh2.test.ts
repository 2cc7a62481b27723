import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSsh2, ssh2Loaded } from '../../../../../../electron/services/transports/ssh/connect';

const require = createRequire(import.meta.url);
const ssh2Dir = path.dirname(require.resolve('ssh2/package.json'));
const loadedFromSsh2 = () =>
  Object.keys(require.cache)
    .filter((f) => f.startsWith(ssh2Dir + path.sep))
    .map((f) => path.relative(ssh2Dir, f).split(path.sep).join('/'));

// One file, one process (vitest forks pool): nothing else here loads ssh2 before the test does.
describe('loadSsh2', () => {
  it("loads ssh2's client and key parser, not its index, server, HTTP agents or key generation", async () => {
    expect(ssh2Loaded()).toBe(false);
    expect(loadedFromSsh2()).toEqual([]);
    const ssh2 = await loadSsh2();
    expect(ssh2Loaded()).toBe(true);
    const files = loadedFromSsh2();
    expect(files).toContain('lib/client.js');
    expect(files).toContain('lib/protocol/SFTP.js');
    for (const skipped of ['lib/index.js', 'lib/server.js', 'lib/http-agents.js', 'lib/keygen.js']) expect(files).not.toContain(skipped);
    // The same Client class and parseKey as ssh2's index exports (loading the index now only adds the rest).
    const index = require('ssh2') as typeof import('ssh2');
    expect(ssh2.Client).toBe(index.Client);
    expect(ssh2.utils.parseKey).toBe(index.utils.parseKey);
    expect(await loadSsh2()).toBe(ssh2);
  });

  it('gives a working key parser (what `windeck credentials` asks about a key file)', async () => {
    const { utils } = await loadSsh2();
    expect(utils.parseKey(Buffer.from('not a key'))).toBeInstanceOf(Error);
  });
});
