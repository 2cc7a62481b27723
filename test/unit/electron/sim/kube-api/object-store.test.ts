import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateCluster } from '../../../../../electron/sim/kube-api/generate';
import { SimObjectStore, StoreError } from '../../../../../electron/sim/kube-api/object-store';
import { generateSimPki } from '../../../../../electron/sim/kube-api/pki';
import { humanDuration } from '../../../../../electron/sim/kube-api/resources';
import { matchLabels, parseFieldSelector, parseLabelSelector, SelectorError } from '../../../../../electron/sim/kube-api/selectors';

describe('selectors', () => {
  it('parses and matches label selectors like kube-apiserver', () => {
    const labels = { app: 'web', tier: 'front', 'kubernetes.io/os': 'windows' };
    const m = (s: string) => matchLabels(parseLabelSelector(s), labels);
    expect(m('app=web')).toBe(true);
    expect(m('app==web,tier')).toBe(true);
    expect(m('app!=web')).toBe(false);
    expect(m('!missing,kubernetes.io/os in (linux, windows)')).toBe(true);
    expect(m('tier notin (front)')).toBe(false);
    expect(m('app')).toBe(true);
    expect(m('!app')).toBe(false);
    expect(matchLabels(parseLabelSelector('n>3'), { n: '5' })).toBe(true);
    for (const bad of ['a b', 'app=', ',', 'in (x)', 'a=b,,c', 'x=in (']) {
      if (bad === 'app=') continue; // empty value is valid
      expect(() => parseLabelSelector(bad), bad).toThrow(SelectorError);
    }
  });
  it('parses field selectors with escapes', () => {
    expect(parseFieldSelector('spec.nodeName=win-1,status.phase!=Running')).toEqual([
      { field: 'spec.nodeName', value: 'win-1', negate: false },
      { field: 'status.phase', value: 'Running', negate: true },
    ]);
    expect(parseFieldSelector('metadata.name=a\\,b')).toEqual([{ field: 'metadata.name', value: 'a,b', negate: false }]);
    expect(() => parseFieldSelector('nonsense')).toThrow(SelectorError);
  });
});

describe('humanDuration (kubectl AGE)', () => {
  it.each([
    [0, '0s'],
    [119_000, '119s'],
    [150_000, '2m30s'],
    [600_000, '10m'],
    [3 * 3600_000 + 5 * 60_000, '3h5m'],
    [30 * 3600_000, '30h'],
    [3 * 86400_000 + 3600_000, '3d1h'],
    [30 * 86400_000, '30d'],
    [800 * 86400_000, '2y70d'],
  ])('%i ms -> %s', (ms, text) => expect(humanDuration(ms)).toBe(text));
});

describe('object store', () => {
  const fresh = () => {
    const store = new SimObjectStore({ now: () => Date.parse('2025-01-01T00:00:00Z'), historyLimit: 5 });
    const cluster = generateCluster(store, { nodes: 6, windows: 3 });
    return { store, cluster };
  };

  it('generates a mixed cluster with loopback addresses and stable rendering', () => {
    const { store, cluster } = fresh();
    expect(cluster.nodes.map((n) => n.name)).toEqual(['linux-cp-1', 'linux-1', 'linux-2', 'win-1', 'win-2', 'win-3']);
    expect(cluster.nodes.find((n) => n.name === 'win-1')?.internalIP).toBe('127.0.10.11');
    for (const n of cluster.nodes) {
      expect(n.internalIP).toMatch(/^127\./);
      expect(n.podCIDR).toMatch(/^127\./);
    }
    const pod = store.list('pods', { limit: 1 }).items[0]!;
    expect(JSON.stringify(store.render(pod))).toBe(JSON.stringify(store.render(pod)));
    const all = store.list('pods', {}).items.map((i) => store.render(i));
    for (const p of all) {
      if (p.status.podIP) expect(p.status.podIP).toMatch(/^127\./);
      expect(p.status.hostIP).toMatch(/^127\./);
    }
    const win = store.getObject('nodes', '', 'win-2')!;
    expect(win.metadata.labels).toMatchObject({ 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348', 'windeck.io/simulated': 'true' });
    expect(win.status.nodeInfo).toMatchObject({ operatingSystem: 'windows', kernelVersion: '10.0.20348.2461' });
  });

  it('pages with continue at one resourceVersion and expires old tokens and watches', () => {
    const { store } = fresh();
    const p1 = store.list('pods', { limit: 4 });
    const p2 = store.list('pods', { limit: 4, continueToken: p1.continueToken });
    expect(p2.resourceVersion).toBe(p1.resourceVersion);
    expect(p2.items[0]!.key > p1.items[3]!.key).toBe(true);
    expect(() => store.list('pods', { continueToken: 'garbage' })).toThrow(StoreError);
    // More changes than the history holds: old versions expire.
    for (let i = 0; i < 7; i++) store.update('nodes', '', 'win-1', (o) => void (o.metadata.labels.n = String(i)));
    try {
      store.list('pods', { limit: 4, continueToken: p1.continueToken });
      throw new Error('expected 410');
    } catch (e) {
      expect((e as StoreError).code).toBe(410);
    }
    expect(store.watch('nodes', { fromRv: p1.resourceVersion }, () => undefined)).toBe('expired');
  });

  it('watch delivers ADDED/MODIFIED/DELETED and label-selector transitions', () => {
    const { store } = fresh();
    const seen: string[] = [];
    const sub = store.watch('nodes', { fromRv: store.resourceVersion, labels: parseLabelSelector('pool=a') }, (type, obj) => seen.push(`${type}:${obj.metadata.name}`));
    if (sub === 'expired') throw new Error('unexpected');
    store.update('nodes', '', 'win-1', (o) => void (o.metadata.labels.pool = 'a'));
    store.update('nodes', '', 'win-1', (o) => void (o.metadata.labels.other = 'x'));
    store.update('nodes', '', 'win-1', (o) => void (o.metadata.labels.pool = 'b'));
    store.create('nodes', { metadata: { name: 'new', labels: { pool: 'a' } } });
    store.remove('nodes', '', 'new');
    sub.unsubscribe();
    store.create('nodes', { metadata: { name: 'after', labels: { pool: 'a' } } });
    expect(seen).toEqual(['ADDED:win-1', 'MODIFIED:win-1', 'DELETED:win-1', 'ADDED:new', 'DELETED:new']);
  });

  it('refuses unsupported field selectors and answers fast ones without rendering', () => {
    const { store } = fresh();
    expect(() => store.list('pods', { fields: parseFieldSelector('spec.bogus=1') })).toThrow(/field label not supported: spec.bogus/);
    const onWin = store.list('pods', { fields: parseFieldSelector('spec.nodeName=win-1') });
    expect(onWin.items.length).toBeGreaterThan(0);
    expect(onWin.items.every((i) => i.nodeName === 'win-1')).toBe(true);
  });
});

describe('generated PKI', () => {
  it('server and client certificates chain to the CA with the right names and usages', () => {
    const pki = generateSimPki();
    const ca = new crypto.X509Certificate(pki.caCert);
    const server = new crypto.X509Certificate(pki.serverCert);
    const client = new crypto.X509Certificate(pki.clientCert);
    expect(ca.ca).toBe(true);
    expect(server.verify(ca.publicKey) && client.verify(ca.publicKey)).toBe(true);
    expect(server.checkIssued(ca)).toBe(true);
    expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(server.checkHost('localhost')).toBe('localhost');
    expect(server.ca).toBe(false);
    expect(client.subject).toMatch(/CN=windeck-demo-admin/);
    expect(client.subject).toMatch(/O=system:masters/);
    expect(server.keyUsage ?? []).toEqual(expect.arrayContaining(['1.3.6.1.5.5.7.3.1']));
    expect(crypto.createPrivateKey(pki.clientKey).asymmetricKeyType).toBe('ec');
  });
});
