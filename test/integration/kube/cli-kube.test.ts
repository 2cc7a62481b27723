import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../electron/cli/main';
import { NodeEndpointsRepo } from '../../../electron/services/store/repos/node-endpoints';
import { openStore } from '../../../electron/services/store/database';
import { tempDir, waitFor } from '../../helpers/temp-dir';

interface Captured {
  code: Promise<number>;
  stdout: string[];
  stderr: string[];
}

function cli(args: string[], signal = new AbortController().signal, env: NodeJS.ProcessEnv = {}): Captured {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = runCli(args, { stdout: { write: (s: string) => stdout.push(s) }, stderr: { write: (s: string) => stderr.push(s) }, stdinIsTTY: false, env: { HOME: '/nonexistent-home', ...env } }, signal);
  return { code, stdout, stderr };
}

const SUMMARY_KEYS = ['name', 'os', 'ready', 'windowsBuild', 'windowsRelease', 'kubeletVersion', 'containerRuntime', 'internalIP', 'podCount', 'health', 'reasons', 'syncedAt'];

let tmp: ReturnType<typeof tempDir>;
let home: string;
let demoAbort: AbortController;
let demo: Captured;
let info: { kubeconfig: string; apiServer: string; nodes: Array<{ name: string; os: string; scenario: string | null; ssh: string | null; winrm: string | null }> };

beforeAll(async () => {
  tmp = tempDir('windeck-cli-kube-');
  home = path.join(tmp.dir, 'home');
  demoAbort = new AbortController();
  demo = cli(['demo', '--home', home, '--json'], demoAbort.signal);
  await waitFor(() => demo.stdout.join('').includes('\n') || demo.stderr.join('').includes('windeck:'), 60_000);
  if (!demo.stdout.join('').trim()) throw new Error(`demo did not start: ${demo.stderr.join('')}`);
  info = JSON.parse(demo.stdout.join('').trim());
}, 120_000);

afterAll(async () => {
  demoAbort?.abort();
  await demo?.code;
  tmp?.cleanup();
});

function canConnect(hostPort: string): Promise<boolean> {
  const [host, port] = hostPort.split(':') as [string, string];
  return new Promise((resolve) => {
    const s = net.connect({ host, port: Number(port) });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

describe('windeck demo', () => {
  it('prints one JSON line: kubeconfig under WINDECK_HOME/demo, API server, nodes with endpoints', async () => {
    expect(demo.stdout.join('').trim().split('\n')).toHaveLength(1);
    expect(info.kubeconfig).toBe(path.join(home, 'demo', 'kubeconfig'));
    expect(fs.existsSync(info.kubeconfig)).toBe(true);
    expect(info.apiServer).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(info.nodes).toHaveLength(8);
    const win = info.nodes.filter((n) => n.os === 'windows');
    expect(win.map((n) => n.scenario)).toEqual(['healthy', 'kube-proxy-stopped', 'hns-network-missing', 'flannel-waiting', 'pause-mismatch']);
    expect(win[0]).toMatchObject({ name: 'win-1', ssh: expect.stringMatching(/^127\.0\.10\.11:\d+$/), winrm: expect.stringMatching(/^https:\/\/127\.0\.10\.11:\d+\/wsman$/) });
    for (const n of info.nodes.filter((x) => x.os === 'linux')) expect(n).toMatchObject({ scenario: null, ssh: null, winrm: null });
    expect(await canConnect(win[0]!.ssh!)).toBe(true);
    expect(demo.stderr.join('')).toMatch(/SIMULATED cluster/);
  });

  it('registers endpoints and the trusted host key per Windows node in the store', () => {
    const store = openStore(path.join(home, 'windeck.db'));
    try {
      const id = `windeck-demo@${info.kubeconfig}`;
      const ep = new NodeEndpointsRepo(store.db).list(id, 'win-2');
      expect(ep.map((e) => e.transport).sort()).toEqual(['ssh', 'winrm']);
      expect(ep.find((e) => e.transport === 'ssh')).toMatchObject({ host: '127.0.10.12', source: 'demo' });
      const keys = store.db.prepare('SELECT COUNT(*) FROM host_keys WHERE cluster_id = ? AND source = ?').pluck().get(id, 'demo');
      expect(keys).toBe(5);
      expect(store.db.prepare('SELECT simulated FROM clusters WHERE id = ?').pluck().get(id)).toBe(1);
    } finally {
      store.close();
    }
  });

  it('refuses a second demo with the same home (exit 1)', async () => {
    const second = cli(['demo', '--home', home]);
    expect(await second.code).toBe(1);
    expect(second.stderr.join('')).toMatch(/Another `windeck demo` \(pid \d+\) is running/);
  });

  it('validates its flags', async () => {
    const bad = cli(['demo', '--home', path.join(tmp.dir, 'other'), '--nodes', '3', '--windows', '4']);
    expect(await bad.code).toBe(1);
    expect(bad.stderr.join('')).toMatch(/--windows must be a whole number from 0 to 3/);
    const unknown = cli(['demo', '--home', path.join(tmp.dir, 'other'), '--scenario', 'nope']);
    expect(await unknown.code).toBe(1);
    expect(unknown.stderr.join('')).toMatch(/Unknown scenario "nope"/);
  });
});

describe('windeck nodes', () => {
  it('--json lists the demo nodes live, Windows ones with build and release', async () => {
    const r = cli(['nodes', '--json', '--kubeconfig', info.kubeconfig, '--home', home]);
    expect(await r.code, r.stderr.join('')).toBe(0);
    const rows = JSON.parse(r.stdout.join('')) as Array<Record<string, unknown>>;
    expect(rows.map((x) => x.name)).toEqual(['linux-1', 'linux-2', 'linux-cp-1', 'win-1', 'win-2', 'win-3', 'win-4', 'win-5']);
    for (const row of rows) expect(Object.keys(row)).toEqual(SUMMARY_KEYS);
    expect(rows.find((x) => x.name === 'win-1')).toMatchObject({ os: 'windows', ready: true, windowsBuild: 20348, windowsRelease: 'Windows Server 2022', health: 'healthy', internalIP: '127.0.10.11' });
    expect(rows.find((x) => x.name === 'win-4')).toMatchObject({ ready: false, health: 'error' });
    expect(rows.find((x) => x.name === 'linux-1')).toMatchObject({ os: 'linux', windowsBuild: null, windowsRelease: null });
    expect((rows[0]!.syncedAt as number) > 0).toBe(true);
  });

  it('prints a table by default', async () => {
    const r = cli(['nodes', '--kubeconfig', info.kubeconfig, '--home', path.join(tmp.dir, 'home-table')]);
    expect(await r.code, r.stderr.join('')).toBe(0);
    const lines = r.stdout.join('').trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+OS\s+READY\s+HEALTH\s+BUILD\s+RELEASE/);
    expect(lines.find((l) => l.startsWith('win-1'))).toMatch(/windows\s+yes\s+healthy\s+20348\s+Windows Server 2022/);
  });

  it('--offline reads the store and says how old it is', async () => {
    const r = cli(['nodes', '--json', '--offline', '--kubeconfig', info.kubeconfig, '--home', home]);
    expect(await r.code, r.stderr.join('')).toBe(0);
    expect(JSON.parse(r.stdout.join(''))).toHaveLength(8);
    expect(r.stderr.join('')).toMatch(/Showing stored data of context "windeck-demo" from \d+ s ago/);
  });

  it('a malformed kubeconfig is a clear error (exit 1, JSON error on stdout)', async () => {
    const bad = path.join(tmp.dir, 'bad-kubeconfig');
    fs.writeFileSync(bad, 'clusters: [1, 2\n');
    const r = cli(['nodes', '--json', '--kubeconfig', bad, '--home', path.join(tmp.dir, 'h2')]);
    expect(await r.code).toBe(1);
    const out = JSON.parse(r.stdout.join(''));
    expect(out.error.code).toBe('VALIDATION');
    expect(out.error.message).toContain(bad);
  });
});

describe('windeck nodes with an exec credential plugin', () => {
  it('refuses to run an unapproved plugin (marker file absent); --approve-exec approves and syncs with its certificate', async () => {
    const dir = path.join(tmp.dir, 'exec');
    fs.mkdirSync(dir, { recursive: true });
    const demoKc = fs.readFileSync(info.kubeconfig, 'utf8');
    const field = (name: string) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(demoKc)![1]!, 'base64').toString('utf8');
    const cred = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { clientCertificateData: field('client-certificate-data'), clientKeyData: field('client-key-data') } });
    fs.writeFileSync(path.join(dir, 'cred.json'), cred);
    const marker = path.join(dir, 'ran');
    fs.writeFileSync(path.join(dir, 'plugin.sh'), `#!/bin/sh\necho ran >> "${marker}"\ncat "${path.join(dir, 'cred.json')}"\n`, { mode: 0o755 });
    const kc = path.join(dir, 'config');
    fs.writeFileSync(
      kc,
      demoKc
        .replace(/ {4}client-certificate-data: \S+\n {4}client-key-data: \S+\n/, '    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ./plugin.sh\n      interactiveMode: Never\n')
        .replace(/windeck-demo/g, 'exec-demo'),
    );
    const execHome = path.join(tmp.dir, 'exec-home');
    const refused = cli(['nodes', '--json', '--kubeconfig', kc, '--home', execHome]);
    expect(await refused.code).toBe(1);
    expect(JSON.parse(refused.stdout.join('')).error).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/windeck nodes --approve-exec/) });
    expect(fs.existsSync(marker)).toBe(false);
    const approved = cli(['nodes', '--json', '--approve-exec', '--kubeconfig', kc, '--home', execHome]);
    expect(await approved.code, approved.stderr.join('')).toBe(0);
    expect(approved.stderr.join('')).toMatch(/Approved the credential plugin .*\n {2}executable: .*plugin\.sh\n {2}sha256: {5}[0-9a-f]{64}/);
    expect(JSON.parse(approved.stdout.join(''))).toHaveLength(8);
    expect(fs.readFileSync(marker, 'utf8')).toBe('ran\n');
  });
});

describe('windeck lint-workloads', () => {
  it('--json: inputs and findings like diagnose, with the planted workload problems', async () => {
    const r = cli(['lint-workloads', '--json', '--kubeconfig', info.kubeconfig, '--home', home]);
    expect(await r.code, r.stderr.join('')).toBe(0);
    const out = JSON.parse(r.stdout.join('')) as { inputs: Array<{ path: string; kind: string }>; findings: Array<{ ruleId: string; severity: string; title: string; node: string | null }> };
    expect(out.inputs).toEqual([{ path: 'kubernetes-api:windeck-demo', kind: 'kubernetes-api' }]);
    const ids = out.findings.map((f) => `${f.ruleId} ${f.title}`);
    expect(ids.some((t) => /^workload-unsupported-field Deployment default\/legacy-api can run on Windows nodes but uses .*runAsUser/.test(t))).toBe(true);
    expect(ids.some((t) => /^workload-unsupported-field DaemonSet monitoring\/node-exporter .*hostNetwork/.test(t))).toBe(true);
    expect(ids.some((t) => /^workload-unsupported-field Service default\/win-webserver sets a session affinity timeout/.test(t))).toBe(true);
    expect(ids.some((t) => /^workload-os-selector-missing Deployment default\/legacy-api/.test(t))).toBe(true);
    expect(ids.some((t) => /^service-backends-over-64 Service default\/fanout has 66 backends/.test(t))).toBe(true);
    // Workloads pinned to Linux or to Windows are fine.
    expect(ids.some((t) => /default\/web\b/.test(t))).toBe(false);
    expect(ids.some((t) => /win-webserver can run/.test(t))).toBe(false);
  });

  it('-n limits to a namespace', async () => {
    const r = cli(['lint-workloads', '--json', '-n', 'monitoring', '--kubeconfig', info.kubeconfig, '--home', home]);
    expect(await r.code, r.stderr.join('')).toBe(0);
    const out = JSON.parse(r.stdout.join(''));
    expect(out.findings.length).toBeGreaterThan(0);
    expect(out.findings.every((f: { evidence: Array<{ source: string }> }) => f.evidence[0]!.source.includes('/monitoring/'))).toBe(true);
  });
});

describe('after the demo stops', () => {
  it('frees the lock and ports; nodes falls back to stored data; no store at all exits 2', async () => {
    const ssh = info.nodes.find((n) => n.name === 'win-1')!.ssh!;
    demoAbort.abort();
    expect(await demo.code).toBe(0);
    expect(fs.existsSync(path.join(home, 'demo.lock'))).toBe(false);
    expect(await canConnect(ssh)).toBe(false);
    const r = cli(['nodes', '--json', '--kubeconfig', info.kubeconfig, '--home', home]);
    expect(await r.code, r.stderr.join('')).toBe(0);
    expect(JSON.parse(r.stdout.join(''))).toHaveLength(8);
    expect(r.stderr.join('')).toMatch(/Could not reach the API server .*connection refused.*Showing stored data of context "windeck-demo" from/);
    const lint = cli(['lint-workloads', '--json', '--kubeconfig', info.kubeconfig, '--home', home]);
    expect(await lint.code, lint.stderr.join('')).toBe(0);
    expect(JSON.parse(lint.stdout.join('')).inputs[0].kind).toBe('store');
    const empty = cli(['nodes', '--json', '--kubeconfig', info.kubeconfig, '--home', path.join(tmp.dir, 'empty-home')]);
    expect(await empty.code).toBe(2);
    expect(JSON.parse(empty.stdout.join('')).error.code).toBe('UNREACHABLE');
  });
});
