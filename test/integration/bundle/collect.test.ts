/**
 * `windeck collect` against the real simulators (the kube API simulator and Windows node simulators over SSH on
 * loopback, started by the demo): canary secrets seeded into node logs, node files and cluster objects never
 * reach any zip entry (raw, base64 or UTF-16LE) and are counted; a node killed mid-collection gives an
 * `incomplete` bundle whose present files match their hashes, no temp files, and a retry job that completes
 * once the node answers again; the report for a demo node fills every form field from evidence.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../../electron/services/create-services';
import { nullSink } from '../../../electron/services/lib/log';
import { startDemo, type RunningDemo } from '../../../electron/services/kube/demo';
import { bundleService } from '../../../electron/services/bundle/bundle-service';
import { startWindowsNodeSimulator } from '../../../electron/sim/windows-node/simulator';
import type { BundleExportResult, BundleManifest } from '../../../shared/contract/methods/bundles';
import { FORM_FIELD_IDS, FORM_LABELS } from '../../../shared/report/render';
import { runCli } from '../../../electron/cli/main';
import { diagnoseFiles } from '../../../electron/services/diagnose/diagnose-files';
import { makeCanaries, needleForms } from './canaries';

async function readZip(file: string): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.open(file, { lazyEntries: true }, (e, z) => (e || !z ? reject(e) : resolve(z))));
  const out = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err || !stream) return reject(err);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          out.set(entry.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
        stream.on('error', reject);
      });
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  zip.close();
  return out;
}

function sha256(b: Buffer): string {
  return crypto.createHash('sha256').update(b).digest('hex');
}

function expectFilesMatch(entries: Map<string, Buffer>, manifest: BundleManifest): void {
  for (const f of manifest.files) {
    const data = entries.get(f.path);
    expect(data, `${f.path} is in the zip`).toBeDefined();
    expect(data!.length, f.path).toBe(f.size);
    expect(sha256(data!), f.path).toBe(f.sha256);
  }
  for (const name of entries.keys()) {
    expect(name.startsWith('/') || name.split('/').includes('..'), name).toBe(false);
    if (name !== 'manifest.json') expect(manifest.files.some((f) => f.path === name), `${name} listed in the manifest`).toBe(true);
  }
}

let home: string;
let out: string;
let services: Services;
let demo: RunningDemo;
let winNodes: string[];

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-bundle-'));
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-bundle-out-'));
  services = createServices({ home, host: 'cli', version: '0.0.0-test', logSink: nullSink, env: { HOME: home, PATH: process.env.PATH ?? '' } });
  demo = await startDemo(services.core, { nodes: 3, windows: 2, liveSync: false });
  winNodes = demo.nodes.filter((n) => n.os === 'windows').map((n) => n.name);
}, 120_000);

afterAll(async () => {
  await demo?.stop();
  await services?.dispose();
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(out, { recursive: true, force: true });
});

async function exportBundle(spec: Record<string, unknown>, output: string, onProgress?: (title: string) => void): Promise<BundleExportResult> {
  const svc = bundleService(services.core);
  const unsubscribe = onProgress ? services.events.subscribe((event, payload) => event === 'ops:progress' && onProgress((payload as { step: { title: string } }).step.title)) : () => undefined;
  try {
    const started = svc.startExport({ spec: { redact: 'standard', kubeconfig: demo.kubeconfig, ...spec } as never, output });
    return await started.done;
  } finally {
    unsubscribe();
  }
}

describe('collect with seeded secrets', () => {
  it('keeps every canary out of every zip entry and counts them', async () => {
    const canaries = makeCanaries(66);
    const node = winNodes[0]!;
    const sim = demo.windows.get(node)!.ssh;
    // Logs: each canary on its own lines inside the kubelet log; files: kubelet config, containerd config, CNI.
    const logLines = canaries.flatMap((c) => ['I0612 10:00:00.000000    4242 seed.go:1] canary ' + c.id, ...c.text.split(/\r?\n/)]);
    sim.model.appendLog('C:\\k\\kubelet.log', logLines);
    const half = Math.floor(canaries.length / 2);
    sim.model.writeFile('C:\\var\\lib\\kubelet\\config.yaml', canaries.slice(0, half).map((c) => c.text).join('\n---\n'));
    sim.model.writeFile('C:\\Program Files\\containerd\\config.toml', canaries.slice(half).map((c) => c.text).join('\n'));
    // Cluster objects: a Node annotation and label-free fields, and an Event about the node.
    const apiCanaries = makeCanaries(67).filter((c) => c.encoding === 'plain' && !c.text.includes('\u0000')).slice(0, 12);
    demo.api.store.update('nodes', '', node, (obj) => {
      const meta = (obj.metadata ??= {}) as { annotations?: Record<string, string> };
      meta.annotations = { ...(meta.annotations ?? {}), 'example.com/debug': apiCanaries.slice(0, 6).map((c) => c.text).join('\n'), 'kubectl.kubernetes.io/last-applied-configuration': apiCanaries[6]!.text };
    });
    demo.api.store.create('events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${node}.canary`, namespace: 'default' },
      involvedObject: { kind: 'Node', name: node, apiVersion: 'v1' },
      reason: 'Canary',
      message: apiCanaries.slice(7).map((c) => c.text).join(' | '),
      type: 'Warning',
      lastTimestamp: new Date().toISOString(),
    });

    const zipPath = path.join(out, 'canary.zip');
    const result = await exportBundle({ nodes: [node], since: '1d' }, zipPath);
    expect(result.paths).toEqual([zipPath]);
    const entries = await readZip(zipPath);
    const manifest = JSON.parse(entries.get('manifest.json')!.toString('utf8')) as BundleManifest;
    expect(manifest.format).toBe('windeck-bundle');
    expect(manifest.status, JSON.stringify(manifest.errors)).toBe('complete');
    expectFilesMatch(entries, manifest);
    for (const p of ['manifest.json', 'findings.json', 'report.md', 'cluster/version.json', 'cluster/nodes.json', 'cluster/events.json', `nodes/${node}/node.json`, `nodes/${node}/probes/os.raw`, `nodes/${node}/probes/os.json`, `nodes/${node}/probes/os.meta.json`, `nodes/${node}/logs/kubelet.log`, `nodes/${node}/files/config.yaml`]) {
      expect(entries.has(p), p).toBe(true);
    }

    const allNeedles = [...canaries, ...apiCanaries].flatMap((c) => c.needles.map((n) => ({ id: c.id, n })));
    expect(new Set(allNeedles.map((x) => x.n)).size).toBeGreaterThanOrEqual(50);
    const leaks: string[] = [];
    for (const [name, data] of entries) {
      for (const { id, n } of allNeedles) for (const { form, bytes } of needleForms(n)) if (data.includes(bytes)) leaks.push(`${name}: ${id} (${form})`);
    }
    expect(leaks).toEqual([]);
    const secretTotal = Object.entries(manifest.redaction.counts).reduce((s, [, v]) => s + v, 0);
    expect(secretTotal).toBeGreaterThanOrEqual(canaries.length);
    for (const kind of ['private-key', 'certificate', 'service-account-token', 'github-token', 'aws-access-key', 'azure-sas', 'password', 'winrm-credential', 'ssh-credential', 'secret-data', 'last-applied-configuration']) {
      expect(manifest.redaction.counts[kind] ?? 0, kind).toBeGreaterThan(0);
    }
    // The log still reads as a log, and the Node annotation is redacted inside the Node object.
    expect(entries.get(`nodes/${node}/logs/kubelet.log`)!.toString('utf8')).toContain('seed.go:1] canary');
    expect(entries.get(`nodes/${node}/node.json`)!.toString('utf8')).toContain('[REDACTED:last-applied-configuration');
    // Re-import: `windeck diagnose --bundle` reads it; every member is listed, the probe outputs are recognized.
    const diagnosed = await diagnoseFiles({ bundle: zipPath });
    expect(diagnosed.inputs.length).toBeGreaterThanOrEqual(manifest.files.length);
    const kindOf = (suffix: string) => diagnosed.inputs.find((i) => i.path.endsWith(suffix))?.kind;
    expect(kindOf(`nodes/${node}/probes/services.raw`)).not.toBe('unknown');
    expect(kindOf(`nodes/${node}/probes/hns-networks.raw`)).not.toBe('unknown');
    // Redaction keeps every JSON entry valid JSON (re-import parses them).
    for (const [name, data] of entries) if (name.endsWith('.json')) expect(() => JSON.parse(data.toString('utf8')), name).not.toThrow();
  }, 120_000);

  it('strict redaction pseudonymizes the node name in paths, manifest and contents', async () => {
    const node = winNodes[1]!;
    const dir = path.join(out, 'strict-folder') + path.sep;
    const result = await exportBundle({ nodes: [node], since: '1d', redact: 'strict' }, dir);
    const manifest = result.manifest;
    expect(manifest.nodes).toHaveLength(1);
    expect(manifest.nodes[0]).not.toBe(node);
    const written = fs.readdirSync(path.join(out, 'strict-folder', 'nodes'));
    expect(written).toEqual([manifest.nodes[0]]);
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
    for (const f of walk(path.join(out, 'strict-folder'))) {
      const text = fs.readFileSync(f).toString('latin1').toLowerCase();
      expect(text.includes(node.toLowerCase()), `${f} names ${node}`).toBe(false);
    }
    expect(manifest.redaction.counts.hostname ?? 0).toBeGreaterThan(0);
    expect(manifest.redaction.counts.ipv4 ?? 0).toBeGreaterThan(0);
  }, 120_000);
});

describe('cancel', () => {
  it('a cancelled collection writes nothing and leaves no staging or temp files', async () => {
    const node = winNodes[0]!;
    const cancelDir = fs.mkdtempSync(path.join(out, 'cancel-'));
    const svc = bundleService(services.core);
    const started = svc.startExport({ spec: { nodes: [node], redact: 'standard', kubeconfig: demo.kubeconfig, since: '1d' }, output: path.join(cancelDir, 'c.zip') });
    const unsubscribe = services.events.subscribe((event, payload) => {
      const p = payload as { operationId: string; step: { title: string } };
      if (event === 'ops:progress' && p.operationId === started.operationId && p.step.title.endsWith(': probes')) services.core.ops.cancel(started.operationId);
    });
    try {
      await expect(started.done).rejects.toMatchObject({ code: 'CANCELLED' });
    } finally {
      unsubscribe();
    }
    // The work notices the abort at its next step; wait (bounded) for its cleanup to finish.
    const deadline = Date.now() + 30_000;
    while (fs.readdirSync(cancelDir).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(fs.readdirSync(cancelDir)).toEqual([]);
    expect(services.core.ops.get(started.operationId)?.state).toBe('cancelled');
  }, 120_000);
});

describe('preview, then export exactly what was previewed', () => {
  it('lists what was redacted where, then writes it; the preview staging is gone afterwards', async () => {
    const node = winNodes[0]!;
    demo.windows.get(node)!.ssh.model.appendLog('C:\\k\\kubelet.log', ['I0612 10:00:00.000000    4242 run.go:1] started with --password=PreviewSecret-123 --v=2']);
    const waitOp = async (operationId: string) => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const r = (await services.dispatch('ops:get', { operationId })) as { ok: boolean; value: { state: string; result?: unknown; error?: unknown } };
        if (r.ok && !['running', 'queued'].includes(r.value.state)) return r.value;
        if (Date.now() > deadline) throw new Error('operation did not finish');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const started = (await services.dispatch('bundles:preview', { nodes: [node], kubeconfig: demo.kubeconfig, since: '1d' })) as { ok: boolean; value: { operationId: string } };
    expect(started.ok, JSON.stringify(started)).toBe(true);
    const done = await waitOp(started.value.operationId);
    expect(done.state, JSON.stringify(done.error)).toBe('succeeded');
    const preview = done.result as { previewId: string; files: Array<{ path: string; counts: Record<string, number>; findings: Array<{ line: number; kind: string; hint: string }> }>; redaction: { counts: Record<string, number> } };
    const log = preview.files.find((f) => f.path === `nodes/${node}/logs/kubelet.log`)!;
    expect(log.findings.length).toBeGreaterThan(0);
    expect(log.findings[0]!.line).toBeGreaterThan(0);
    expect(Object.keys(preview.redaction.counts).length).toBeGreaterThan(0);
    const staging = path.join(home, 'bundles', 'staging');
    expect(fs.readdirSync(staging).length).toBe(1);
    const zipPath = path.join(out, 'previewed.zip');
    const exported = (await services.dispatch('bundles:export', { previewId: preview.previewId, output: zipPath })) as { ok: boolean; value: { operationId: string } };
    expect(exported.ok, JSON.stringify(exported)).toBe(true);
    const written = await waitOp(exported.value.operationId);
    expect(written.state, JSON.stringify(written.error)).toBe('succeeded');
    const entries = await readZip(zipPath);
    const manifest = JSON.parse(entries.get('manifest.json')!.toString('utf8')) as BundleManifest;
    expectFilesMatch(entries, manifest);
    expect(manifest.files.map((f) => f.path).sort()).toEqual(preview.files.map((f) => f.path).sort());
    expect(fs.readdirSync(staging)).toEqual([]);
    const again = (await services.dispatch('bundles:export', { previewId: preview.previewId, output: zipPath })) as { ok: boolean; error?: { code: string } };
    expect(again.ok).toBe(false);
    expect(again.error?.code).toBe('NOT_FOUND');
  }, 120_000);
});

describe('a node that drops out', () => {
  it('gives an incomplete bundle with intact files, no temp files, and a retry job that runs when the node is back', async () => {
    const [first, second] = winNodes as [string, string];
    const entry = demo.windows.get(second)!;
    const old = entry.ssh;
    const port = old.ssh.port;
    let killed = false;
    const zipPath = path.join(out, 'dropped.zip');
    const result = await exportBundle({ nodes: [first, second], since: '1d', transport: 'ssh' }, zipPath, (title) => {
      if (!killed && title === `${second}: config files`) {
        killed = true;
        void old.stop();
        void entry.winrm.stop();
      }
    });
    expect(killed).toBe(true);
    const manifest = result.manifest;
    expect(manifest.status).toBe('incomplete');
    expect(manifest.errors.some((e) => e.node === second)).toBe(true);
    expect(manifest.errors.some((e) => e.node === first)).toBe(false);
    const entries = await readZip(zipPath);
    const zipManifest = JSON.parse(entries.get('manifest.json')!.toString('utf8')) as BundleManifest;
    expect(zipManifest.status).toBe('incomplete');
    expectFilesMatch(entries, zipManifest);
    expect(entries.has(`nodes/${first}/logs/kubelet.log`)).toBe(true);
    // No temp or staging files next to the output or in the home.
    expect(fs.readdirSync(out).filter((n) => n.startsWith('.'))).toEqual([]);
    const staging = path.join(home, 'bundles', 'staging');
    expect(fs.existsSync(staging) ? fs.readdirSync(staging) : []).toEqual([]);
    expect(result.retryJobs.map((j) => j.node)).toEqual([second]);

    // The job waits while the node is down ...
    const svc = bundleService(services.core);
    services.core.store.db.prepare('UPDATE bundle_jobs SET next_attempt_at = 0').run();
    await svc.retryDue();
    const waiting = svc.jobs.get(result.retryJobs[0]!.id)!;
    expect(waiting.state).toBe('queued');
    expect(waiting.attempts).toBe(1);

    // ... and completes once the node answers again (same address, port, host key and credentials).
    const revived = await startWindowsNodeSimulator({
      name: second,
      address: old.address,
      sshPort: port,
      hostKey: old.ssh.hostKeyPrivate,
      clientPrivateKey: old.credentials.privateKey,
      username: old.credentials.username,
      password: old.credentials.password,
      scenario: old.scenario.name,
    });
    try {
      services.core.store.db.prepare('UPDATE bundle_jobs SET next_attempt_at = 0').run();
      await svc.retryDue();
      const job = svc.jobs.get(result.retryJobs[0]!.id)!;
      expect(job.state, job.lastError ?? '').toBe('done');
      const retryZip = job.result!.paths[0]!;
      expect(path.dirname(retryZip)).toBe(out);
      const retryEntries = await readZip(retryZip);
      const retryManifest = JSON.parse(retryEntries.get('manifest.json')!.toString('utf8')) as BundleManifest;
      expect(retryManifest.status).toBe('complete');
      expect(retryManifest.nodes).toEqual([second]);
      expectFilesMatch(retryEntries, retryManifest);
    } finally {
      await revived.stop();
    }
  }, 180_000);
});

describe('the report for a demo node', () => {
  it('fills every form field from evidence (Markdown) and opens the right template (URL)', async () => {
    const node = winNodes[0]!;
    const md = (await services.dispatch('reports:render', { node, kubeconfig: demo.kubeconfig, format: 'md' })) as { ok: boolean; value: { text: string; report: { drafted: string[] } } };
    expect(md.ok, JSON.stringify(md)).toBe(true);
    const body = md.value.text;
    for (const id of FORM_FIELD_IDS) expect(body, id).toContain(`### ${FORM_LABELS[id]}`);
    expect(body).toMatch(/Server Version:? v?1\.\d+/);
    expect(body).toMatch(/simulated/i);
    expect(body).toMatch(/Caption: .*Windows Server/);
    expect(body).toMatch(/BuildNumber\.UBR: \d{5}\.\d+/);
    expect(body).toMatch(/OSArchitecture: 64-bit|OSArchitecture: \S+/);
    expect(body).toMatch(/containerd/);
    expect(body).toMatch(/CNI /);
    expect(body).toContain('/sig windows');
    expect(body.length).toBeLessThanOrEqual(65_536);
    // Evidence-backed fields are not drafts; the user's narrative fields are.
    for (const id of ['kubeVersion', 'cloudProvider', 'osVersion', 'runtime', 'plugins']) expect(md.value.report.drafted).not.toContain(id);
    expect(md.value.report.drafted).toEqual(expect.arrayContaining(['problem', 'expected', 'repro']));

    const url = (await services.dispatch('reports:render', { node, kubeconfig: demo.kubeconfig, format: 'url', problem: 'kube-proxy keeps restarting' })) as { ok: boolean; value: { text: string } };
    expect(url.ok).toBe(true);
    const u = new URL(url.value.text);
    expect(`${u.origin}${u.pathname}`).toBe('https://github.com/kubernetes/kubernetes/issues/new');
    expect(u.searchParams.get('template')).toBe('bug-report.yaml');
    expect(u.searchParams.get('title')).toContain('kube-proxy keeps restarting');
    expect(u.searchParams.get('problem')).toBe('kube-proxy keeps restarting');
    for (const id of ['kubeVersion', 'cloudProvider', 'osVersion', 'runtime']) expect(u.searchParams.get(id), id).toBeTruthy();
    expect(url.value.text.length).toBeLessThanOrEqual(8_000);
  }, 60_000);

  it('renders from a bundle too', async () => {
    const md = (await services.dispatch('reports:render', { bundle: path.join(out, 'canary.zip'), format: 'md' })) as { ok: boolean; value: { text: string } };
    expect(md.ok, JSON.stringify(md)).toBe(true);
    expect(md.value.text).toMatch(/Caption: .*Windows Server/);
  }, 60_000);

  it('works from the CLI: windeck collect --json prints the manifest, windeck report --bundle --format url the link', async () => {
    const node = winNodes[0]!;
    const zipPath = path.join(out, 'cli.zip');
    const run = async (argv: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await runCli(argv, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, stdinIsTTY: false, env: { HOME: home, PATH: process.env.PATH ?? '' } }, new AbortController().signal);
      return { code, stdout, stderr };
    };
    const collected = await run(['collect', node, '-o', zipPath, '--since', '2h', '--kubeconfig', demo.kubeconfig, '--home', home, '--json']);
    expect(collected.code, collected.stderr).toBe(0);
    const manifest = JSON.parse(collected.stdout) as BundleManifest;
    expect(manifest.format).toBe('windeck-bundle');
    expect(manifest.nodes).toEqual([node]);
    expect(fs.existsSync(zipPath)).toBe(true);
    const report = await run(['report', '--bundle', zipPath, '--format', 'url', '--problem', 'pods get no network', '--home', home]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout.trim()).toMatch(/^https:\/\/github\.com\/kubernetes\/kubernetes\/issues\/new\?template=bug-report\.yaml&title=/);
    const bad = await run(['collect', node, '-o', path.join(out, 'x.txt'), '--kubeconfig', demo.kubeconfig, '--home', home]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/\.zip file or a folder/);
  }, 120_000);
});
