import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main';
import { KubeApiSimulator } from '../../electron/sim/kube-api/server';
import { tempDir } from '../helpers/temp-dir';

/**
 * The real `kubectl` against the Kubernetes API simulator (DESIGN.md section 9: "checked against the real kubectl"):
 * version, get nodes/pods/events/workloads, selectors, and `windeck nodes --json` listing the same nodes.
 */

const KUBECTL = process.env.KUBECTL ?? 'kubectl';

function kubectlMissing(): string | null {
  const r = spawnSync(KUBECTL, ['version', '--client'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    return `kubectl is not installed (${r.error?.message ?? r.stderr}). Install it: curl -LO "https://dl.k8s.io/release/v1.32.4/bin/linux/amd64/kubectl" && install -m 0755 kubectl /usr/local/bin/kubectl`;
  }
  return null;
}

let sim: KubeApiSimulator;
let tmp: ReturnType<typeof tempDir>;
let kubeconfig: string;

/** Run kubectl without blocking this process (the simulator answers from the same event loop). */
function kubectl(...args: string[]): Promise<{ stdout: string; stderr: string; status: number | null }> {
  return new Promise((resolve) => {
    execFile(
      KUBECTL,
      ['--cache-dir', path.join(tmp.dir, 'cache'), ...args],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: tmp.dir, KUBECONFIG: kubeconfig }, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ stdout, stderr, status: error ? ((error as { code?: number }).code ?? 1) : 0 }),
    );
  });
}

beforeAll(async () => {
  const missing = kubectlMissing();
  if (missing) throw new Error(missing);
  tmp = tempDir('windeck-kubectl-');
  sim = await new KubeApiSimulator({ cluster: { nodes: 8, windows: 5, windowsNodes: [{ scenario: 'healthy' }, { scenario: 'kube-proxy-stopped' }, { scenario: 'hns-network-missing' }, { scenario: 'flannel-waiting' }, { scenario: 'pause-mismatch' }] } }).start();
  kubeconfig = sim.writeKubeconfig(path.join(tmp.dir, 'kubeconfig'));
});

afterAll(async () => {
  await sim?.stop();
  tmp?.cleanup();
});

describe('real kubectl against the API simulator', () => {
  it('kubectl version: server v1.32.4 and no skew warning', async () => {
    const r = await kubectl('version');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Client Version: v1\.32\./m);
    expect(r.stdout).toMatch(/^Server Version: v1\.32\.4$/m);
    expect(r.stderr).not.toMatch(/WARNING/i);
    const json = JSON.parse((await kubectl('version', '-o', 'json')).stdout);
    expect(json.serverVersion).toMatchObject({ major: '1', minor: '32', gitVersion: 'v1.32.4', platform: 'linux/amd64' });
  });

  it('kubectl get nodes -o wide shows Windows nodes like the real ones, with loopback addresses', async () => {
    const r = await kubectl('get', 'nodes', '-o', 'wide');
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+KERNEL-VERSION\s+CONTAINER-RUNTIME$/);
    expect(lines).toHaveLength(9);
    const win1 = lines.find((l) => l.startsWith('win-1 '))!;
    expect(win1).toMatch(/^win-1\s+Ready\s+<none>\s+\S+\s+v1\.32\.4\s+127\.0\.10\.11\s+<none>\s+Windows Server 2022 Datacenter\s+10\.0\.20348\.2461\s+containerd:\/\/1\.7\.20$/);
    expect(lines.find((l) => l.startsWith('win-4 '))).toMatch(/NotReady/);
    expect(lines.find((l) => l.startsWith('linux-cp-1 '))).toMatch(/control-plane/);
    for (const l of lines.slice(1)) expect(l.split(/\s+/)[5]).toMatch(/^127\./);
  });

  it('kubectl get pods -A lists every pod (chunked with limit/continue)', async () => {
    const r = await kubectl('get', 'pods', '-A', '--chunk-size', '17');
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    expect(lines.length - 1).toBe(sim.store.count('pods'));
    expect(lines.some((l) => /^default\s+win-webserver-\S+\s+0\/1\s+ContainerCreating/.test(l))).toBe(true);
    expect(sim.stats.lists.pods).toBeGreaterThanOrEqual(Math.ceil(sim.store.count('pods') / 17));
  });

  it('kubectl get pods with field and label selectors', async () => {
    const r = await kubectl('get', 'pods', '-A', '--field-selector', 'spec.nodeName=win-3', '-o', 'wide');
    expect(r.status, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').slice(1);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toMatch(/\swin-3\s/);
    const l = await kubectl('get', 'pods', '-n', 'default', '-l', 'app=win-webserver', '-o', 'name');
    expect(l.stdout.trim().split('\n')).toHaveLength(5);
    const bad = await kubectl('get', 'pods', '--field-selector', 'spec.nope=1');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/field label not supported: spec\.nope/);
  });

  it('kubectl get events -A and get deploy,ds,svc -A', async () => {
    const ev = await kubectl('get', 'events', '-A');
    expect(ev.status, ev.stderr).toBe(0);
    expect(ev.stdout.split('\n')[0]).toMatch(/^NAMESPACE\s+LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
    expect(ev.stdout).toMatch(/FailedCreatePodSandBox\s+pod\/win-webserver-\S+\s+Failed to create pod sandbox/);
    expect(ev.stdout).toMatch(/NodeNotReady\s+node\/win-4/);
    const w = await kubectl('get', 'deploy,ds,svc', '-A');
    expect(w.status, w.stderr).toBe(0);
    expect(w.stdout).toMatch(/deployment\.apps\/win-webserver\s+\d\/5/);
    expect(w.stdout).toMatch(/daemonset\.apps\/kube-proxy-windows\s+5\s+5\s+5\s+5\s+5\s+kubernetes\.io\/os=windows/);
    expect(w.stdout).toMatch(/service\/kubernetes\s+ClusterIP\s+127\.128\.0\.1/);
    const more = await kubectl('get', 'statefulsets,jobs,endpointslices,namespaces', '-A');
    expect(more.status, more.stderr).toBe(0);
    expect(more.stdout).toMatch(/job\.batch\/schema-migrate\s+Complete\s+1\/1/);
  });

  it('kubectl get nodes -o json and windeck nodes --json list the same nodes', async () => {
    const k = JSON.parse((await kubectl('get', 'nodes', '-o', 'json')).stdout) as { items: Array<{ metadata: { name: string }; status: { nodeInfo: { kernelVersion: string } } }> };
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      ['nodes', '--json', '--kubeconfig', kubeconfig, '--home', path.join(tmp.dir, 'home')],
      { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, stdinIsTTY: false, env: { HOME: tmp.dir } },
      new AbortController().signal,
    );
    expect(code, err.join('')).toBe(0);
    const rows = JSON.parse(out.join('')) as Array<{ name: string; os: string; windowsBuild: number | null; windowsRelease: string | null }>;
    expect(rows.map((r) => r.name).sort()).toEqual(k.items.map((i) => i.metadata.name).sort());
    for (const item of k.items.filter((i) => i.status.nodeInfo.kernelVersion.startsWith('10.0.'))) {
      const row = rows.find((r) => r.name === item.metadata.name)!;
      expect(row.os).toBe('windows');
      expect(row.windowsBuild).toBe(Number(item.status.nodeInfo.kernelVersion.split('.')[2]));
      expect(row.windowsRelease).toBe('Windows Server 2022');
    }
    expect(fs.existsSync(path.join(tmp.dir, 'home', 'windeck.db'))).toBe(true);
  });
});
