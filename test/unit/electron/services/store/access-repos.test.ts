import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type OpenedStore } from '../../../../../electron/services/store/database';
import { CredentialsRepo, type Credential } from '../../../../../electron/services/store/repos/credentials';
import { HostKeysRepo } from '../../../../../electron/services/store/repos/host-keys';
import { NodeEndpointsRepo } from '../../../../../electron/services/store/repos/node-endpoints';
import { tempDir } from '../../../../helpers/temp-dir';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function store(): OpenedStore {
  const tmp = tempDir();
  const s = openStore(path.join(tmp.dir, 'windeck.db'));
  cleanups.push(
    () => tmp.cleanup(),
    () => s.close(),
  );
  return s;
}

const cred = (over: Partial<Credential>): Credential => ({
  id: 'c1',
  name: 'one',
  clusterId: 'cl',
  scope: 'cluster',
  selector: null,
  transport: 'ssh',
  username: 'Administrator',
  authKind: 'key',
  keyPath: '/k',
  secretBlob: null,
  secretStoreKind: null,
  priority: 0,
  createdAt: 1,
  ...over,
});

describe('access repos', () => {
  it('credentials: by name, most specific first for a node (node > node groups by priority > cluster > any cluster)', () => {
    const s = store();
    const repo = new CredentialsRepo(s.db);
    repo.put(cred({ id: 'any', name: 'any', clusterId: null }));
    repo.put(cred({ id: 'cl', name: 'cl' }));
    repo.put(cred({ id: 'glob', name: 'glob', scope: 'node-group', selector: 'win-*' }));
    repo.put(cred({ id: 'label', name: 'label', scope: 'node-group', selector: 'pool=gpu', priority: 5 }));
    repo.put(cred({ id: 'node', name: 'node', scope: 'node', selector: 'WIN-A' }));
    repo.put(cred({ id: 'other', name: 'other', clusterId: 'other-cluster' }));
    repo.put(cred({ id: 'basic', name: 'basic', transport: 'winrm', authKind: 'basic', keyPath: null }));
    expect(repo.forNode('cl', 'win-a', 'ssh', { pool: 'gpu' }).map((c) => c.name)).toEqual(['node', 'label', 'glob', 'cl', 'any']);
    expect(repo.forNode('cl', 'linux-1', 'ssh').map((c) => c.name)).toEqual(['cl', 'any']);
    expect(repo.forNode('cl', 'win-a', 'winrm').map((c) => [c.name, c.authKind])).toEqual([['basic', 'basic']]);
    expect(repo.byName('glob')?.id).toBe('glob');
    expect(repo.byName('missing')).toBeNull();
    expect(repo.remove('glob')).toBe(true);
    expect(repo.remove('glob')).toBe(false);
  });

  it('endpoints: remove one, list all, find those naming a credential', () => {
    const s = store();
    const repo = new NodeEndpointsRepo(s.db);
    repo.put({
      clusterId: 'cl',
      node: 'win-a',
      transport: 'ssh',
      host: '10.0.0.1',
      port: 22,
      options: {},
      credentialId: 'c1',
      source: 'override',
      updatedAt: 1,
    });
    repo.put({
      clusterId: 'cl',
      node: 'win-a',
      transport: 'winrm',
      host: '10.0.0.1',
      port: 5986,
      options: { url: 'https://10.0.0.1:5986/wsman' },
      credentialId: null,
      source: 'override',
      updatedAt: 1,
    });
    expect(repo.usingCredential('c1').map((e) => e.transport)).toEqual(['ssh']);
    expect(repo.all()).toHaveLength(2);
    expect(repo.remove('cl', 'win-a', 'ssh')).toBe(true);
    expect(repo.remove('cl', 'win-a', 'ssh')).toBe(false);
    expect(repo.list('cl', 'win-a').map((e) => e.options)).toEqual([{ url: 'https://10.0.0.1:5986/wsman' }]);
  });

  it('host keys: forget by fingerprint or by host:port', () => {
    const s = store();
    const repo = new HostKeysRepo(s.db);
    const key = {
      host: 'Win-A',
      port: 22,
      keyType: 'ssh-ed25519',
      keyBase64: 'AAAA',
      fingerprint: 'SHA256:x',
      clusterId: null,
      node: null,
      source: 'accepted',
      acceptedAt: 1,
    };
    repo.put(key);
    repo.put({ ...key, host: 'win-b', fingerprint: 'SHA256:y' });
    expect(repo.list('WIN-A', 22)).toHaveLength(1);
    expect(repo.removeFingerprint('SHA256:x')).toBe(1);
    expect(repo.removeFingerprint('SHA256:x')).toBe(0);
    expect(repo.remove('win-b', 22)).toBe(1);
    expect(repo.all()).toEqual([]);
  });
});
