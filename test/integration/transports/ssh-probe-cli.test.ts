import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../electron/cli/main';
import { openStore } from '../../../electron/services/store/database';
import { clusterIdFor } from '../../../electron/services/store/repos/clusters';
import { ProbeResultsRepo } from '../../../electron/services/store/repos/probe-results';
import { registerSimulatedNode } from '../../../electron/services/transports/simulated-node-registration';
import { startWindowsNodeSimulator, type WindowsNodeSimulator } from '../../../electron/sim/windows-node/simulator';
import { PROBE_IDS } from '../../../shared/domain/probe';
import { detectLayout } from '../../../electron/services/probes/detect-layout';
import type { FileContent, ServiceConfig, ServiceState } from '../../../electron/services/probes/normalize';
import { tempDir } from '../../helpers/temp-dir';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Setup {
  home: string;
  kubeconfig: string;
  clusterId: string;
  sim: WindowsNodeSimulator;
  env: NodeJS.ProcessEnv;
}

async function setup(scenario = 'healthy', register = true): Promise<Setup> {
  const tmp = tempDir();
  cleanups.push(() => tmp.cleanup());
  const home = path.join(tmp.dir, 'home');
  const userHome = path.join(tmp.dir, 'user');
  fs.mkdirSync(userHome, { recursive: true });
  const kubeconfig = path.join(tmp.dir, 'kubeconfig');
  // Never contacted: the probe needs the cluster id only (the node's endpoint is registered like the demo does).
  fs.writeFileSync(
    kubeconfig,
    ['apiVersion: v1', 'kind: Config', 'current-context: sim', 'clusters:', '- name: sim', '  cluster:', '    server: https://127.0.0.1:9', 'users:', '- name: u', '  user:', '    token: abc', 'contexts:', '- name: sim', '  context:', '    cluster: sim', '    user: u', ''].join('\n'),
  );
  const sim = await startWindowsNodeSimulator({ name: 'win-1', address: '127.0.30.11', scenario });
  cleanups.push(() => sim.stop());
  const clusterId = clusterIdFor(path.resolve(kubeconfig), 'sim');
  if (register) {
    const store = openStore(path.join(home, 'windeck.db'));
    await registerSimulatedNode(store.db, { clusterId, node: 'win-1', demoDir: path.join(home, 'demo'), ssh: sim.ssh, credentials: sim.credentials });
    store.close();
  }
  // HOME points at an empty user dir: no ~/.ssh/config or known_hosts of the machine takes part.
  return { home, kubeconfig, clusterId, sim, env: { HOME: userHome, PATH: process.env.PATH ?? '' } };
}

async function cli(s: Setup, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    [...args, '--home', s.home, '--kubeconfig', s.kubeconfig],
    { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, stdinIsTTY: false, env: s.env },
    new AbortController().signal,
  );
  return { code, stdout, stderr };
}

describe('windeck probe over SSH against the simulator', () => {
  it('returns the node services (names, not numbers) and stores raw + parsed results', async () => {
    const s = await setup();
    const r = await cli(s, ['probe', 'win-1', '--probe', 'services', '--json']);
    expect(r.stderr).not.toContain('windeck:');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { node: string; transport: string; probes: Record<string, { ok: boolean; raw: string; parsed: { services: Array<{ name: string; status: string; startType: string }> }; error: unknown; durationMs: number }> };
    expect(out.node).toBe('win-1');
    expect(out.transport).toBe('ssh');
    expect(Object.keys(out.probes)).toEqual(['services']);
    const services = out.probes.services!;
    expect(services.ok).toBe(true);
    expect(services.error).toBeNull();
    expect(services.raw).toContain('"Status":  4');
    const byName = Object.fromEntries(services.parsed.services.map((x) => [x.name, x]));
    expect(byName.kubelet).toMatchObject({ status: 'Running', startType: 'Automatic' });
    expect(byName['kube-proxy']).toMatchObject({ status: 'Running', startType: 'Automatic' });
    expect(byName.hns).toMatchObject({ status: 'Running', startType: 'Manual' });

    const store = openStore(path.join(s.home, 'windeck.db'));
    cleanups.push(() => store.close());
    const rows = new ProbeResultsRepo(store.db).latest(s.clusterId, 'win-1');
    expect(rows.map((x) => x.probeId)).toEqual(['services']);
    expect(rows[0]!.raw!.toString('utf8')).toBe(services.raw);
    expect(rows[0]!.transport).toBe('ssh');
  });

  it('sees the planted problem of a scenario (kube-proxy stopped)', async () => {
    const s = await setup('kube-proxy-stopped');
    const r = await cli(s, ['probe', 'win-1', '--probe', 'services', '--json']);
    const out = JSON.parse(r.stdout) as { probes: { services: { parsed: { services: Array<{ name: string; status: string }> } } } };
    expect(out.probes.services.parsed.services.find((x) => x.name === 'kube-proxy')?.status).toBe('Stopped');
  });

  it('runs the whole catalogue by default', async () => {
    const s = await setup();
    const r = await cli(s, ['probe', 'win-1', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { probes: Record<string, { ok: boolean; parsed: unknown; error: { message: string } | null }> };
    expect(Object.keys(out.probes).sort()).toEqual([...PROBE_IDS].sort());
    for (const [id, o] of Object.entries(out.probes)) expect(o.ok, `${id}: ${o.error?.message}`).toBe(true);
    const files = out.probes.files!.parsed as Array<{ path: string; exists: boolean; text: string | null }>;
    expect(files.find((f) => f.path === 'C:\\run\\flannel\\subnet.env')?.text).toContain('FLANNEL_SUBNET=10.244.11.1/24');
    const logs = out.probes.logs!.parsed as Array<{ path: string; text: string }>;
    expect(logs.map((l) => l.path)).toContain('C:\\k\\kubelet.log');
    const dns = out.probes.dns!.parsed as { results: Array<{ query: string; succeeded: boolean }> };
    expect(dns.results.find((d) => d.query === 'kubernetes')?.succeeded).toBe(true);
    expect(dns.results.find((d) => d.query === 'kubernetes.default')?.succeeded).toBe(false);
    const cfg = out.probes['service-config']!.parsed as Array<{ name: string; nssm: { appParameters: string } | null; startType: string }>;
    expect(cfg.find((c) => c.name === 'kubelet')?.nssm?.appParameters).toContain('--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS');
    const layout = detectLayout({
      services: (out.probes.services!.parsed as { services: ServiceState[] }).services,
      serviceConfig: out.probes['service-config']!.parsed as ServiceConfig[],
      processes: out.probes.processes!.parsed as Array<{ name: string; commandLine: string | null }>,
      files: out.probes.files!.parsed as FileContent[],
      logs: logs.map((l) => l.path),
    });
    expect(layout).toMatchObject({ layout: 'sdn-start-ps1', components: { kubelet: 'nssm-service', 'kube-proxy': 'nssm-service', flanneld: 'nssm-service', containerd: 'service' } });
  });

  it('an unregistered host key is refused with exit 2 and the fingerprint to accept; accepting it works once and is remembered', async () => {
    const s = await setup('healthy', false);
    // Endpoint and credential, but no trusted host key: like a real node the user just added.
    const store = openStore(path.join(s.home, 'windeck.db'));
    await registerSimulatedNode(store.db, { clusterId: s.clusterId, node: 'win-1', demoDir: path.join(s.home, 'demo'), ssh: s.sim.ssh, credentials: s.sim.credentials });
    store.db.prepare('DELETE FROM host_keys').run();
    store.close();

    const r1 = await cli(s, ['probe', 'win-1', '--probe', 'os', '--json']);
    expect(r1.code).toBe(2);
    const err = JSON.parse(r1.stdout) as { error: { code: string; message: string } };
    expect(err.error.code).toBe('HOST_KEY_UNKNOWN');
    expect(err.error.message).toContain(s.sim.ssh.hostKeyFingerprint);
    expect(s.sim.ssh.server.authAttempts).toEqual([]);

    const r2 = await cli(s, ['probe', 'win-1', '--probe', 'os', '--json', '--accept-host-key', s.sim.ssh.hostKeyFingerprint]);
    expect(r2.code).toBe(0);
    const r3 = await cli(s, ['probe', 'win-1', '--probe', 'os', '--json']);
    expect(r3.code).toBe(0);
  });

  it('a changed host key is refused (exit 2) and nothing is sent', async () => {
    const s = await setup();
    s.sim.setFaults({ hostKeyChange: true });
    const r = await cli(s, ['probe', 'win-1', '--probe', 'services', '--json', '--accept-host-key', s.sim.ssh.server.alternateHostKeyFingerprint]);
    expect(r.code).toBe(2);
    expect((JSON.parse(r.stdout) as { error: { code: string } }).error.code).toBe('HOST_KEY_CHANGED');
    expect(s.sim.ssh.server.authAttempts).toEqual([]);
    expect(s.sim.commandHost.invocations).toEqual([]);
  });

  it('an unknown node and an unknown probe are usage errors (exit 1)', async () => {
    const s = await setup();
    const r1 = await cli(s, ['probe', 'win-9', '--json']);
    expect(r1.code).toBe(1);
    expect((JSON.parse(r1.stdout) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    const r2 = await cli(s, ['probe', 'win-1', '--probe', 'everything', '--json']);
    expect(r2.code).toBe(1);
  });
});
