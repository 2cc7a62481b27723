import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../../../electron/services/store/database';
import { MIGRATIONS } from '../../../../../electron/services/store/migrations';
import { ProbeResultsRepo, servicesBrief, type ProbeResultInput } from '../../../../../electron/services/store/repos/probe-results';
import { probeRun } from '../../../../helpers/probe-run';
import { tempDir } from '../../../../helpers/temp-dir';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function freshStore(migrations = MIGRATIONS) {
  const t = tempDir();
  const file = path.join(t.dir, 'windeck.db');
  const store = openStore(file, { migrations });
  cleanups.push(() => (store.close(), t.cleanup()));
  store.db.prepare("INSERT INTO clusters (id, name, context, created_at) VALUES ('c1', 'c1', 'c1', 0)").run();
  return { store, file };
}

const svc = (name: string, status: string) => ({ name, displayName: name, status, startType: 'Automatic' });

function run(node: string, probeId: string, startedAt: number, parsed: unknown, ok = true): ProbeResultInput {
  return probeRun({
    clusterId: 'c1',
    node,
    probeId,
    parsed,
    startedAt,
    ok,
    exitCode: ok ? 0 : 1,
    error: ok ? null : { code: 'TIMEOUT', message: 'took too long', retryable: true },
  });
}

describe('servicesBrief', () => {
  it('keeps the component services present, by real name, in column order', () => {
    const parsed = {
      services: [
        svc('hns', 'Running'),
        svc('kubeproxy', 'Stopped'),
        svc('vmcompute', 'Running'),
        svc('containerd', 'Running'),
        svc('kubelet', 'Running'),
        svc('CalicoNode', 'Running'),
      ],
      missing: ['flanneld'],
    };
    expect(Object.entries(servicesBrief(parsed) ?? {})).toEqual([
      ['kubelet', 'Running'],
      ['kubeproxy', 'Stopped'],
      ['CalicoNode', 'Running'],
      ['containerd', 'Running'],
      ['hns', 'Running'],
    ]);
  });
  it('is null for something that is not a services result', () => {
    expect(servicesBrief(null)).toBeNull();
    expect(servicesBrief([{ name: 'kubelet' }])).toBeNull();
  });
});

describe('node_probe_summary', () => {
  it('is kept current by insert: newest probe time, newest services run, failures, out-of-order runs', () => {
    const { store } = freshStore();
    const repo = new ProbeResultsRepo(store.db);
    repo.insert(run('win-1', 'services', 1_000, { services: [svc('kubelet', 'Running'), svc('kube-proxy', 'Stopped')], missing: [] }));
    repo.insert(run('win-1', 'os', 2_000, { caption: 'Windows Server 2022' }));
    repo.insert(run('win-2', 'dns', 1_500, { results: [] }));
    let s = repo.summaries('c1');
    expect(s.get('win-1')).toEqual({ probedAt: 2_000, servicesAt: 1_000, servicesOk: true, services: { kubelet: 'Running', 'kube-proxy': 'Stopped' } });
    expect(s.get('win-2')).toEqual({ probedAt: 1_500, servicesAt: null, servicesOk: null, services: null });
    expect(s.has('win-3')).toBe(false);

    // An older services run stored later (a bundle import, a slow node) changes nothing.
    repo.insert(run('win-1', 'services', 500, { services: [svc('kubelet', 'Stopped')], missing: [] }));
    expect(repo.summaries('c1').get('win-1')).toMatchObject({ probedAt: 2_000, servicesAt: 1_000, services: { kubelet: 'Running', 'kube-proxy': 'Stopped' } });

    // A newer failed run: the states are unknown now, and the brief says so.
    repo.insert(run('win-1', 'services', 3_000, null, false));
    s = repo.summaries('c1');
    expect(s.get('win-1')).toEqual({ probedAt: 3_000, servicesAt: 3_000, servicesOk: false, services: null });
  });

  it('migration 35 summarizes the probe history of a store written before it', () => {
    const before = MIGRATIONS.filter((m) => m.version < 35);
    const { store, file } = freshStore(before);
    expect(store.db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'node_probe_summary'").pluck().get()).toBe(0);
    const insert = store.db.prepare(
      `INSERT INTO probe_results (cluster_id, node, probe_id, probe_version, ok, parsed, started_at, duration_ms) VALUES ('c1', ?, ?, 1, ?, ?, ?, 1)`,
    );
    insert.run('win-1', 'services', 1, JSON.stringify({ services: [svc('kubelet', 'Stopped')], missing: [] }), 10);
    insert.run('win-1', 'services', 1, JSON.stringify({ services: [svc('kubelet', 'Running'), svc('docker', 'Running')], missing: [] }), 20);
    insert.run('win-1', 'dns', 1, '{}', 30);
    insert.run('win-2', 'services', 0, null, 40);
    store.close();
    cleanups.pop();
    const reopened = openStore(file);
    cleanups.push(() => reopened.close());
    expect(reopened.db.prepare('SELECT version FROM schema_migrations WHERE version = 35').pluck().get()).toBe(35);
    const s = new ProbeResultsRepo(reopened.db).summaries('c1');
    expect(s.get('win-1')).toEqual({ probedAt: 30, servicesAt: 20, servicesOk: true, services: { kubelet: 'Running', docker: 'Running' } });
    expect(s.get('win-2')).toEqual({ probedAt: 40, servicesAt: 40, servicesOk: false, services: null });
  });

  it('reads 5,000 nodes with one indexed query', () => {
    const { store } = freshStore();
    const repo = new ProbeResultsRepo(store.db);
    store.db.transaction(() => {
      for (let i = 0; i < 5_000; i++) {
        repo.insert(
          run(`win-${i}`, 'services', 1_000 + i, {
            services: [svc('kubelet', 'Running'), svc('kube-proxy', i % 7 === 0 ? 'Stopped' : 'Running')],
            missing: [],
          }),
        );
      }
    })();
    const plan = (
      store.db
        .prepare('EXPLAIN QUERY PLAN SELECT node, probed_at, services_at, services_ok, services FROM node_probe_summary WHERE cluster_id = ?')
        .all('c1') as Array<{ detail: string }>
    )
      .map((r) => r.detail)
      .join('\n');
    expect(plan).toMatch(/USING INDEX sqlite_autoindex_node_probe_summary/);
    const started = performance.now();
    const s = repo.summaries('c1');
    const ms = performance.now() - started;
    expect(s.size).toBe(5_000);
    expect([...s.values()].filter((b) => b.services?.['kube-proxy'] === 'Stopped')).toHaveLength(715);
    expect(ms).toBeLessThan(1_000);
  });
});
