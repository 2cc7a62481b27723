import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeDns, normalizeFiles, normalizeOs, normalizeRuntime, normalizeServiceConfig, normalizeServices, psDate, readJson } from '../../../../../electron/services/probes/normalize';
import { PROBES, PROBE_IDS } from '../../../../../electron/services/probes/catalog';
import { validateScriptArgs } from '../../../../../electron/services/powershell/invoke';

const ENC = path.join(__dirname, '../../../../fixtures/samples/encodings');
const read = (f: string) => fs.readFileSync(path.join(ENC, f));

describe('services normalizer (Get-Service JSON as real machines print it)', () => {
  it('Windows PowerShell 5.1, UTF-16LE with BOM, CRLF, enums as numbers', () => {
    const r = normalizeServices(read('constructed-get-service-convertto-json-ps51-utf16le.json'), ['kubelet', 'kube-proxy', 'containerd', 'flanneld']);
    expect(r.warnings).toEqual([]);
    expect(r.value.services).toEqual([
      { name: 'containerd', displayName: 'containerd container runtime', status: 'Running', startType: 'Automatic' },
      { name: 'kubelet', displayName: 'kubelet', status: 'Running', startType: 'Automatic' },
      { name: 'kube-proxy', displayName: 'kube-proxy', status: 'Stopped', startType: 'Automatic' },
    ]);
    expect(r.value.missing).toEqual(['flanneld']);
  });

  it('a single service is an object, not an array (StartPending, Manual)', () => {
    const r = normalizeServices(read('constructed-get-service-convertto-json-ps51-single-object.json'));
    expect(r.value.services).toEqual([{ name: 'flanneld', displayName: 'flanneld', status: 'StartPending', startType: 'Manual' }]);
  });

  it('PowerShell 7 layout and -EnumsAsStrings', () => {
    expect(normalizeServices(read('constructed-get-service-convertto-json-ps7.json')).value.services.map((s) => `${s.name}:${s.status}:${s.startType}`)).toEqual(['kubelet:Running:Automatic', 'kubeproxy:Running:Automatic']);
    const names = normalizeServices(read('constructed-get-service-convertto-json-ps7-enumsasstrings.json')).value.services;
    expect(names.find((s) => s.name === 'containerd')?.status).toBe('Stopped');
  });

  it('empty output means no services; garbage gives a warning, never a throw', () => {
    expect(normalizeServices('', ['kubelet'])).toEqual({ value: { services: [], missing: ['kubelet'] }, warnings: [] });
    const bad = normalizeServices('{"Name": "kub');
    expect(bad.value.services).toEqual([]);
    expect(bad.warnings[0]).toMatch(/not valid JSON/);
    expect(normalizeServices(Buffer.concat([Buffer.from([0xe9, 0x93, 0x0d, 0x0a]), Buffer.from('{"Name":"hns","Status":7,"StartType":9}')])).value.services).toEqual([
      { name: 'hns', displayName: 'hns', status: 'Paused', startType: 'Unknown(9)' },
    ]);
  });
});

describe('other normalizers', () => {
  it('service-config maps Win32_Service strings and builds the nssm command line', () => {
    const raw = JSON.stringify([{ Name: 'kubelet', DisplayName: 'kubelet', State: 'Start Pending', StartMode: 'Auto', PathName: 'C:\\k\\nssm.exe', ProcessId: 0, DependOnService: ['containerd'], Nssm: { Application: 'C:\\k\\kubelet.exe', AppParameters: '--v=2', AppDirectory: 'C:\\k', AppEnvironmentExtra: [] } }]);
    const [c] = normalizeServiceConfig(raw).value;
    expect(c).toMatchObject({ state: 'StartPending', startType: 'Automatic', commandLine: 'C:\\k\\kubelet.exe --v=2', dependOnService: ['containerd'] });
  });

  it('PS 5.1 dates and ISO dates', () => {
    expect(psDate('/Date(1712345678901)/')).toBe('2024-04-05T19:34:38.901Z');
    expect(psDate('2024-04-05T19:34:38.901Z')).toBe('2024-04-05T19:34:38.901Z');
    expect(psDate({ value: '/Date(0)/' })).toBe('1970-01-01T00:00:00.000Z');
    expect(psDate('soon')).toBeNull();
  });

  it('files decode base64 with BOM / UTF-16 detection and say when a tail was cut', () => {
    const bom = read('cni-conf-utf8-bom-crlf.conf');
    const utf16 = read('../encodings/systeminfo-utf16le-bom.txt');
    const raw = JSON.stringify([
      { Path: 'C:\\k\\cni\\config\\cni.conf', Exists: true, Length: bom.length, LastWriteTime: '/Date(0)/', Offset: 0, ContentBase64: bom.toString('base64') },
      { Path: 'C:\\x\\systeminfo.txt', Exists: true, Length: utf16.length + 10, LastWriteTime: null, Offset: 10, ContentBase64: utf16.toString('base64') },
      { Path: 'C:\\run\\flannel\\subnet.env', Exists: false, Length: 0, LastWriteTime: null, Offset: 0, ContentBase64: null },
    ]);
    const [a, b, c] = normalizeFiles(raw).value;
    expect(a).toMatchObject({ encoding: 'utf8-bom', truncated: false, lastWriteTime: '1970-01-01T00:00:00.000Z' });
    expect(a!.text!.startsWith('{')).toBe(true);
    expect(b).toMatchObject({ encoding: 'utf16le', truncated: true });
    expect(b!.text).toContain('Host Name');
    expect(c).toMatchObject({ exists: false, text: null });
  });

  it('dns, os and runtime shapes', () => {
    const dns = normalizeDns(JSON.stringify({ SuffixSearchList: ['svc.cluster.local'], Results: [{ Query: 'kubernetes', Succeeded: true, Answers: [{ Name: 'kubernetes.default.svc.cluster.local', Type: 1, IPAddress: '10.96.0.1' }], Error: null }, { Query: 'x.y', Succeeded: false, Answers: [], Error: 'x.y : DNS name does not exist' }] }));
    expect(dns.value.results).toEqual([
      { query: 'kubernetes', succeeded: true, addresses: ['10.96.0.1'], answerName: 'kubernetes.default.svc.cluster.local', error: null },
      { query: 'x.y', succeeded: false, addresses: [], answerName: null, error: 'x.y : DNS name does not exist' },
    ]);
    expect(normalizeOs('{"Caption":"Microsoft Windows Server 2019 Datacenter","BuildNumber":"17763","UBR":5936,"HotFixes":{"HotFixID":"KB1","InstalledOn":"/Date(0)/"}}').value).toMatchObject({ buildNumber: '17763', ubr: 5936, hotfixes: [{ id: 'KB1' }] });
    expect(normalizeRuntime('{"Containerd":{"VersionOutput":"containerd github.com/containerd/containerd v1.6.21 3dce8eb"},"SandboxImage":"x"}').value).toMatchObject({ containerd: { version: '1.6.21' }, sandboxImage: 'x', images: [] });
    expect(readJson('junk {"a":1}').warnings[0]).toMatch(/ignored 5 characters/);
  });
});

describe('probe catalogue', () => {
  it('every probe builds arguments its script accepts', () => {
    for (const id of PROBE_IDS) {
      const def = PROBES[id];
      expect(def.id).toBe(id);
      expect(() => validateScriptArgs(def.scriptId, def.args({ node: 'win-1', now: Date.now() }))).not.toThrow();
      expect(def.transports).toContain('ssh');
    }
  });

  it('never fetches kubeconfigs or other credential files', () => {
    const paths = (PROBES.files.args({ node: 'n', now: 0 }) as { paths: string[] }).paths;
    expect(paths.some((p) => /\\config$|kubeconfig|\.kube|\.pem$|\.key$|token/i.test(p))).toBe(false);
  });
});
