/**
 * The offline diagnosis service over real files on disk: Windeck bundles (zip and folder), AKS-style zips, zips
 * inside a folder, gzip logs, collectlogs.ps1-style UTF-16 files, a log bigger than the whole-file limit
 * (streamed), progress, cancellation and errors.
 */
import { once } from 'node:events';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import yazl from 'yazl';
import { afterAll, describe, expect, it } from 'vitest';
import { DIAGNOSE_FULL_PARSE_MAX_BYTES } from '../../../shared/domain/limits';
import { diagnoseFiles, type DiagnoseProgress } from '../../../electron/services/diagnose/diagnose-files';
import { sampleBytes } from '../../unit/shared/parse/samples';

const root = mkdtempSync(path.join(os.tmpdir(), 'windeck-diag-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function writeZip(file: string, members: Record<string, Buffer | string>): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(members)) zip.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), name);
  zip.end();
  const out = createWriteStream(file);
  zip.outputStream.pipe(out);
  await once(out, 'close');
}

function writeTree(dir: string, files: Record<string, Buffer | string>): void {
  for (const [name, data] of Object.entries(files)) {
    const full = path.join(dir, ...name.split('/'));
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, data);
  }
}

const manifest = JSON.stringify({ format: 'windeck-bundle', version: 1, created: '2026-01-01T00:00:00Z', tool: { name: 'windeck', version: '0.1.0' }, nodes: ['win-3'], files: [], status: 'complete', errors: [] });
const servicesRaw = JSON.stringify([
  { Name: 'kubelet', DisplayName: 'kubelet', Status: 4, StartType: 2 },
  { Name: 'kube-proxy', DisplayName: 'kube-proxy', Status: 1, StartType: 2 },
]);
const bundleMembers = (): Record<string, Buffer | string> => ({
  'manifest.json': manifest,
  'findings.json': JSON.stringify({ findings: [{ ruleId: 'service-not-running', severity: 'error', node: 'win-3', title: 'stale', evidence: [], remediation: { summary: '', steps: [], commands: [], links: [] } }] }),
  'report.md': '## What happened?\n\nkube-proxy stopped\n',
  'cluster/version.json': JSON.stringify({ major: '1', minor: '29', gitVersion: 'v1.29.2' }),
  'nodes/win-3/node.json': JSON.stringify({ kind: 'Node', metadata: { name: 'win-3' }, status: { nodeInfo: { kubeletVersion: 'v1.29.2', osImage: 'Windows Server 2019 Datacenter', kernelVersion: '10.0.17763.5458', containerRuntimeVersion: 'containerd://1.7.13', operatingSystem: 'windows' }, addresses: [{ type: 'InternalIP', address: '10.0.0.7' }], conditions: [{ type: 'Ready', status: 'True' }] } }),
  'nodes/win-3/probes/services.raw': servicesRaw,
  'nodes/win-3/probes/services.json': JSON.stringify({ parsed: true, services: [{ Name: 'kube-proxy', Status: 'Stopped' }] }),
  'nodes/win-3/probes/services.meta.json': JSON.stringify({ command: 'services', transport: 'ssh', exitCode: 0, stderr: '', started: 1, durationMs: 12 }),
  'nodes/win-3/logs/kubelet.log.gz': zlib.gzipSync(Buffer.from('E0101 10:00:00.000000    1200 cni.go:364] Error adding pod to network flannel/vxlan0: open /run/flannel/subnet.env: The system cannot find the path specified.\r\n')),
  'nodes/win-3/files/SourceVip.json': '{"code":999,"msg":"no IP addresses available in range set"}',
});

describe('Windeck bundles', () => {
  it('a bundle zip: node from the layout, probe raws parsed, own outputs listed but not re-diagnosed, gzip logs read', async () => {
    const zip = path.join(root, 'bundle.zip');
    await writeZip(zip, bundleMembers());
    const r = await diagnoseFiles({ bundle: zip });
    expect(Object.fromEntries(r.inputs.map((i) => [i.path, i.kind]))).toEqual({
      'manifest.json': 'windeck-manifest',
      'findings.json': 'windeck-findings',
      'report.md': 'windeck-report',
      'cluster/version.json': 'kube-version-json',
      'nodes/win-3/node.json': 'node-json',
      'nodes/win-3/probes/services.raw': 'get-service-json',
      'nodes/win-3/probes/services.json': 'windeck-probe-result',
      'nodes/win-3/probes/services.meta.json': 'windeck-probe-meta',
      'nodes/win-3/logs/kubelet.log.gz': 'kubelet-log',
      'nodes/win-3/files/SourceVip.json': 'cni-error',
    });
    const byRule = Object.fromEntries(r.findings.map((f) => [f.ruleId, f]));
    expect(byRule['service-not-running']).toMatchObject({ node: 'win-3', title: 'Service kube-proxy is Stopped, not Running' });
    expect(byRule['service-not-running']!.evidence).toEqual([{ source: 'nodes/win-3/probes/services.raw', line: expect.any(Number), excerpt: expect.stringContaining('kube-proxy') }]);
    expect(byRule['flannel-subnet-env-missing']).toMatchObject({ node: 'win-3' });
    expect(byRule['flannel-subnet-env-missing']!.evidence[0]!.source).toBe('nodes/win-3/logs/kubelet.log.gz');
    expect(byRule['sourcevip-invalid']).toMatchObject({ node: 'win-3' });
    // The stale findings.json is not a source of findings.
    expect(r.findings.filter((f) => f.title === 'stale')).toEqual([]);
  });

  it('the same bundle as a folder gives the same result', async () => {
    const dir = path.join(root, 'bundle-dir');
    writeTree(dir, bundleMembers());
    const zip = path.join(root, 'bundle2.zip');
    await writeZip(zip, bundleMembers());
    const a = await diagnoseFiles({ bundle: dir });
    const b = await diagnoseFiles({ bundle: zip });
    expect(a.findings).toEqual(b.findings);
    expect([...a.inputs].sort((x, y) => x.path.localeCompare(y.path))).toEqual([...b.inputs].sort((x, y) => x.path.localeCompare(y.path)));
  });
});

describe('collector outputs and loose folders', () => {
  it('an AKS collect-windows-logs style zip (no manifest): files by content, node unknown', async () => {
    const zip = path.join(root, 'aks.zip');
    await writeZip(zip, {
      'k/kubelet.log': sampleBytes('logs/kubelet-log-pause-os-mismatch-0xc0370101.log'),
      'k/kubeproxy.log': sampleBytes('logs/kube-proxy-1709-remote-endpoint-switch-port-not-found.log'),
      'k/azurecni/netconf/10-azure.conflist': sampleBytes('cni-config/win-bridge-l2bridge-dns-search-outboundnat.conf'),
      'k/notes.txt': 'collected by hand on tuesday',
    });
    const r = await diagnoseFiles({ from: zip });
    expect(r.inputs).toEqual([
      { path: 'k/kubelet.log', kind: 'kubelet-log' },
      { path: 'k/kubeproxy.log', kind: 'kube-proxy-log' },
      { path: 'k/azurecni/netconf/10-azure.conflist', kind: 'cni-config' },
      { path: 'k/notes.txt', kind: 'unknown' },
    ]);
    expect(r.findings.map((f) => [f.ruleId, f.node])).toEqual([
      ['hns-endpoint-creation-failed', null],
      ['pause-image-os-mismatch', null],
    ]);
  });

  it('a collectlogs.ps1 folder: UTF-16LE files (PowerShell 5.1 `>`), table + JSON in network.txt; evidence combines across files', async () => {
    const dir = path.join(root, 'collectlogs');
    const netTxt = 'Name Type Id                                   AddressPrefix\r\n---- ---- --                                   -------------\r\nnat  NAT  1F7E13A2-8ADE-48EE-844E-AC0B0AFF235D {172.28.96.0/20}\r\n\r\n' + JSON.stringify([{ ActivityId: 'A', ID: '1F7E13A2-8ADE-48EE-844E-AC0B0AFF235D', Name: 'nat', Type: 'NAT', Subnets: [{ AddressPrefix: '172.28.96.0/20' }] }], null, 4);
    const utf16 = (s: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);
    writeTree(dir, {
      'network.txt': utf16(netTxt),
      'scqueryex.txt': utf16('\r\nSERVICE_NAME: kubelet\r\nDISPLAY_NAME: kubelet\r\n        TYPE               : 10  WIN32_OWN_PROCESS\r\n        STATE              : 4  RUNNING\r\n'),
      'winver.txt': utf16('Microsoft Windows NT 10.0.17763.0\r\n\r\n\r\n'),
      'cni.conf': sampleBytes('cni-config/sdn-flannel-l2bridge-cni.conf'),
      'winevt/System.evtx': Buffer.concat([Buffer.from('ElfFile\0'), Buffer.alloc(64)]),
    });
    const r = await diagnoseFiles({ from: dir });
    expect(Object.fromEntries(r.inputs.map((i) => [i.path, i.kind]))).toEqual({
      'cni.conf': 'cni-config',
      'network.txt': 'get-hnsnetwork-table',
      'scqueryex.txt': 'sc-query',
      'winevt/System.evtx': 'evtx',
      'winver.txt': 'winver',
    });
    // cbr0 (the CNI config's network) is not in network.txt: the two files together prove it missing.
    const missing = r.findings.find((f) => f.ruleId === 'hns-network-missing')!;
    expect(missing.title).toMatch(/cbr0 does not exist/);
    expect(new Set(missing.evidence.map((e) => e.source))).toEqual(new Set(['network.txt', 'cni.conf']));
  });

  it('a zip inside a folder is opened; every file is listed, nothing silently ignored', async () => {
    const dir = path.join(root, 'mixed');
    writeTree(dir, { 'a/ipconfig.txt': sampleBytes('netinfo/ipconfig-all-pod-flannel.4096-container-adapter.txt'), 'readme.md': '# notes\n' });
    await writeZip(path.join(dir, 'logs.zip'), { 'flanneld.log': sampleBytes('logs/flanneld-hostgw-adapter-not-found-interfaces.log') });
    const r = await diagnoseFiles({ from: dir });
    expect(r.inputs).toEqual([
      { path: 'a/ipconfig.txt', kind: 'ipconfig-all' },
      { path: 'logs.zip', kind: 'zip-archive' },
      { path: 'logs.zip!/flanneld.log', kind: 'flanneld-log' },
      { path: 'readme.md', kind: 'unknown' },
    ]);
    expect(r.findings.find((f) => f.ruleId === 'hns-adapter-not-found')!.evidence[0]!.source).toBe('logs.zip!/flanneld.log');
  });

  it('streams a log bigger than the whole-file limit (signals at the end, an overlong line, CRLF)', async () => {
    const dir = path.join(root, 'big');
    mkdirSync(dir);
    const file = path.join(dir, 'kubelet.log');
    const out = createWriteStream(file);
    const line = 'I0101 10:00:00.000000    1200 kubelet.go:1] routine line that repeats to make the file big\r\n';
    let written = 0;
    while (written < DIAGNOSE_FULL_PARSE_MAX_BYTES + 2 * 1024 * 1024) {
      if (!out.write(line.repeat(1000))) await once(out, 'drain');
      written += line.length * 1000;
    }
    out.write('x'.repeat(200_000) + '\r\n');
    out.write('E0101 10:00:01.000000    1200 portforward.go:424] "Unhandled Error" err="hcs::System::CreateProcess: wincat.exe 127.0.0.1 80 abc: The system cannot find the file specified."\r\n');
    out.end();
    await once(out, 'close');
    const progress: DiagnoseProgress[] = [];
    const r = await diagnoseFiles({ from: dir }, { onProgress: (p) => progress.push(p) });
    expect(r.inputs).toEqual([{ path: 'kubelet.log', kind: 'kubelet-log' }]);
    const f = r.findings.find((x) => x.ruleId === 'port-forward-wincat-missing')!;
    expect(f.evidence[0]!.line).toBe(Math.round(written / line.length) + 2);
    const last = progress[progress.length - 1]!;
    expect(last).toMatchObject({ filesDone: 1, filesTotal: 1 });
    expect(last.bytesDone).toBe(last.bytesTotal);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.bytesDone).toBeGreaterThanOrEqual(progress[i - 1]!.bytesDone);
  });
});

describe('errors and cancellation', () => {
  it('VALIDATION without exactly one input, NOT_FOUND for a missing path, PARSE_FAILED for a broken zip', async () => {
    await expect(diagnoseFiles({})).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(diagnoseFiles({ from: 'a', bundle: 'b' })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(diagnoseFiles({ from: path.join(root, 'missing') })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const broken = path.join(root, 'broken.zip');
    writeFileSync(broken, Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(100, 1)]));
    await expect(diagnoseFiles({ bundle: broken })).rejects.toMatchObject({ code: 'PARSE_FAILED' });
  });

  it('CANCELLED when the signal fires, before or during the scan', async () => {
    const dir = path.join(root, 'cancel');
    writeTree(dir, Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.txt`, sampleBytes('logs/kubelet-cni-flannel-vxlan0-subnet-env-missing-crashloop.log')])));
    const early = new AbortController();
    early.abort();
    await expect(diagnoseFiles({ from: dir }, { signal: early.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
    const mid = new AbortController();
    await expect(diagnoseFiles({ from: dir }, { signal: mid.signal, onProgress: (p) => p.filesDone >= 3 && mid.abort() })).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('an empty folder: no inputs, no findings', async () => {
    const dir = path.join(root, 'empty');
    mkdirSync(dir);
    expect(await diagnoseFiles({ from: dir })).toEqual({ inputs: [], findings: [] });
  });
});
