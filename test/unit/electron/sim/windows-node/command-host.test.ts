import { describe, expect, it, vi } from 'vitest';
import { createCommandHost, splitCommandLine, type CommandExecution } from '../../../../../electron/sim/windows-node/command-host';
import { WindowsNodeModel } from '../../../../../electron/sim/windows-node/node-model';
import { resolveScenario, SCENARIO_NAMES, scenarioFile } from '../../../../../electron/sim/windows-node/scenario';
import { bootstrapFor, POWERSHELL_COMMAND_LINE } from '../../../../../electron/services/powershell/invoke';
import { loadScript } from '../../../../../electron/services/powershell/script-loader';

async function collect(e: CommandExecution): Promise<{ code: number; drop: boolean; out: Buffer; err: string }> {
  const out: Buffer[] = [];
  let err = '';
  e.stdout.on('data', (c: Buffer) => out.push(c));
  e.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const x = await e.exit;
  return { code: x.code, drop: x.dropConnection, out: Buffer.concat(out), err };
}

function node(scenario = 'healthy', now?: () => number) {
  const r = resolveScenario(scenario, { nodeName: 'win-7', nodeIp: '127.0.40.7' });
  const model = new WindowsNodeModel(r.spec, now ? { now } : {});
  return { model, host: createCommandHost({ model, faults: r.faults }), scenario: r };
}

async function run(host: ReturnType<typeof node>['host'], id: Parameters<typeof loadScript>[0], args: unknown) {
  const script = (await loadScript(id)).text;
  return collect(host.execute(POWERSHELL_COMMAND_LINE, bootstrapFor(script, args)));
}

describe('command host: answers like Windows', () => {
  it('unknown commands get PowerShell\'s error; cmd.exe\'s when that is the default shell; too-long lines are refused', async () => {
    const { host, model } = node();
    const r = await collect(host.execute('Get-Process', ''));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^Get-Process : The term 'Get-Process' is not recognized as the name of a cmdlet/);
    expect(r.err).toContain('+ ~~~~~~~~~~~\r\n');
    const viaPs = await collect(host.execute(POWERSHELL_COMMAND_LINE, 'Stop-Computer -Force\r\n'));
    expect(viaPs.err).toContain("The term 'Stop-Computer' is not recognized");
    const cmd = createCommandHost({ model, defaultShell: 'cmd' });
    expect((await collect(cmd.execute('dir C:\\', ''))).err).toBe("'dir' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n");
    expect((await collect(host.execute('x'.repeat(8192), ''))).err).toBe('The command line is too long.\r\n');
  });

  it('accepts the same bootstrap through -EncodedCommand (UTF-16LE base64)', async () => {
    const { host } = node();
    const script = (await loadScript('os')).text;
    const enc = Buffer.from(bootstrapFor(script, {}), 'utf16le').toString('base64');
    const r = await collect(host.execute(`powershell.exe -NoProfile -EncodedCommand ${enc}`, ''));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out.toString()).Caption).toBe('Microsoft Windows Server 2022 Datacenter');
  });

  it('services: 5.1 JSON with enum numbers; one service is a bare object; none prints nothing', async () => {
    const { host } = node('kube-proxy-stopped');
    const many = await run(host, 'services', { names: ['kubelet', 'kube-proxy'] });
    expect(many.out.toString()).toBe(
      '[\r\n    {\r\n        "Name":  "kubelet",\r\n        "DisplayName":  "kubelet",\r\n        "Status":  4,\r\n        "StartType":  2\r\n    },\r\n    {\r\n        "Name":  "kube-proxy",\r\n        "DisplayName":  "kube-proxy",\r\n        "Status":  1,\r\n        "StartType":  2\r\n    }\r\n]\r\n',
    );
    expect(JSON.parse((await run(host, 'services', { names: ['hns'] })).out.toString())).toEqual({ Name: 'hns', DisplayName: 'Host Network Service', Status: 4, StartType: 3 });
    expect((await run(host, 'services', { names: ['nope'] })).out.length).toBe(0);
  });

  it('restart-service changes the model: transition delays, dependents restarted, failing starts end Stopped', async () => {
    let t = 1_000_000;
    const { host, model } = node('healthy', () => t);
    const done = run(host, 'restart-service', { name: 'kubelet', timeoutSeconds: 30 });
    await vi.waitFor(() => expect(model.service('kubelet')?.status).toBe('StartPending'));
    expect(model.service('kube-proxy')?.status).toBe('StopPending');
    t += 10_000;
    const r = JSON.parse((await done).out.toString()) as { Succeeded: boolean; After: { Status: number }; Dependents: string[] };
    expect(r).toMatchObject({ Succeeded: true, After: { Status: 4 }, Dependents: ['kube-proxy'] });
    t += 10_000;
    expect(model.service('kube-proxy')?.status).toBe('Running');

    const failing = node('kubelet-restart-fails', () => t);
    const p = run(failing.host, 'restart-service', { name: 'kubelet', timeoutSeconds: 30 });
    await vi.waitFor(() => expect(failing.model.service('kubelet')?.status).toBe('StartPending'));
    t += 10_000;
    const f = JSON.parse((await p).out.toString()) as { Succeeded: boolean; Error: string; After: { Status: number } };
    expect(f.Succeeded).toBe(false);
    expect(f.After.Status).toBe(1);
    expect(f.Error).toContain('cannot be started');
    expect(failing.model.service('kubelet')?.status).toBe('Stopped');
  });

  it('logs grow with time and honour the window; files come back as base64 bytes', async () => {
    let t = Date.parse('2025-01-01T00:00:00Z');
    const { host, model } = node('healthy', () => t);
    const before = model.file('C:\\k\\kubelet.log')!.bytes.length;
    t += 60_000;
    expect(model.file('C:\\k\\kubelet.log')!.bytes.length).toBeGreaterThan(before);
    const r = JSON.parse((await run(host, 'logs', { sources: [{ dir: 'C:\\k', filter: '*.log' }], sinceEpochMs: t - 1000, maxBytesPerFile: 64 })).out.toString()) as Array<{ Path: string; Offset: number; ContentBase64: string }>;
    // Only logs written within the window (kubelet and kube-proxy grow; flanneld and containerd did not change).
    expect(r.map((x) => x.Path)).toEqual(['C:\\k\\kube-proxy.log', 'C:\\k\\kubelet.log']);
    expect(r[1]!.Offset).toBeGreaterThan(0);
    expect(Buffer.from(r[1]!.ContentBase64, 'base64').length).toBe(64);
    const f = JSON.parse((await run(host, 'files', { paths: ['C:\\run\\flannel\\subnet.env', 'C:\\nope.txt'], maxBytes: 4096 })).out.toString()) as Array<{ Exists: boolean; ContentBase64: string | null }>;
    expect(Buffer.from(f[0]!.ContentBase64!, 'base64').toString()).toContain('FLANNEL_SUBNET=10.244.7.1/24');
    expect(f[1]).toMatchObject({ Exists: false, ContentBase64: null });
  });

  it('dns resolves like the Windows client: short names through the suffix list, dotted partial names fail', async () => {
    const { host } = node();
    const r = JSON.parse((await run(host, 'dns', { names: ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc.cluster.local'] })).out.toString()) as { Results: Array<{ Succeeded: boolean; Error: string | null }> };
    expect(r.Results.map((x) => x.Succeeded)).toEqual([true, false, true]);
    expect(r.Results[1]!.Error).toBe('kubernetes.default : DNS name does not exist');
  });

  it('output faults: slow, stall, drop, huge, non-UTF-8', async () => {
    const { host } = node();
    host.faults = { dropAfterBytes: 10 };
    const d = await run(host, 'os', {});
    expect(d.drop).toBe(true);
    expect(d.out.length).toBe(10);
    host.faults = { nonUtf8: true };
    const n = await run(host, 'os', {});
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(n.out)).toThrow();
    host.faults = { hugeOutputBytes: 3_000_000, scripts: ['files'] };
    const h = JSON.parse((await run(host, 'files', { paths: ['C:\\k\\kubelet.log'], maxBytes: 64 * 1024 * 1024 })).out.toString()) as Array<{ Length: number }>;
    expect(h[0]!.Length).toBeGreaterThanOrEqual(3_000_000);
    expect((await run(host, 'os', {})).out.length).toBeLessThan(10_000); // fault limited to `files`
    host.faults = { slowOutput: { chunkBytes: 100, delayMs: 5 } };
    const started = Date.now();
    const s = await run(host, 'os', {});
    expect(s.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(5 * Math.floor(s.out.length / 100) - 5);
    host.faults = { stallAfterBytes: 5 };
    const script = (await loadScript('os')).text;
    const e = host.execute(POWERSHELL_COMMAND_LINE, bootstrapFor(script, {}));
    const got: Buffer[] = [];
    e.stdout.on('data', (c: Buffer) => {
      got.push(c);
      e.abort();
    });
    expect((await e.exit).code).toBe(130);
    expect(Buffer.concat(got).length).toBe(5);
  });

  it('splits Windows command lines', () => {
    expect(splitCommandLine('powershell.exe -Command "Get-Service kubelet" -x')).toEqual(['powershell.exe', '-Command', 'Get-Service kubelet', '-x']);
    expect(splitCommandLine('a \\"b\\" c')).toEqual(['a', '"b"', 'c']);
  });
});

describe('scenarios', () => {
  it('every scenario resolves to a valid node with every placeholder filled', () => {
    for (const name of SCENARIO_NAMES) {
      const r = resolveScenario(name, { nodeName: 'win-9', nodeIp: '127.0.40.9' });
      const text = JSON.stringify(r.spec);
      expect(text.match(/\{\{(?!ts\}\}|iso\}\})\w+\}\}/g), name).toBeNull();
      const model = new WindowsNodeModel(r.spec);
      expect(model.services().length, name).toBeGreaterThan(3);
      expect(scenarioFile(name).description.length).toBeGreaterThan(10);
    }
    expect(SCENARIO_NAMES[0]).toBe('healthy');
  });

  it('scenarios plant what they say', () => {
    const get = (n: string) => new WindowsNodeModel(resolveScenario(n, { nodeName: 'w', nodeIp: '127.0.40.1' }).spec);
    expect(get('kube-proxy-stopped').service('kube-proxy')?.status).toBe('Stopped');
    expect(get('service-not-automatic').service('kube-proxy')?.startType).toBe('Manual');
    expect(get('hns-network-missing').hnsNetworks().map((n) => n.Name)).toEqual(['External']);
    expect(get('flannel-waiting').file('C:\\run\\flannel\\subnet.env')).toBeNull();
    expect(get('wrong-mgmt-ip').hnsNetworks().find((n) => n.Name === 'flannel.4096')?.ManagementIP).toBe('192.168.56.21');
    expect(get('flannel-bare-process').service('flanneld')).toBeNull();
    expect(get('flannel-bare-process').processes().some((p) => p.name === 'flanneld.exe')).toBe(true);
    expect(get('vethernet-duplicate').adapters().filter((a) => a.name.startsWith('vEthernet (Ethernet)'))).toHaveLength(2);
    expect(resolveScenario('host-key-changed', { nodeName: 'w', nodeIp: '127.0.40.1' }).faults.hostKeyChange).toBe(true);
    expect(() => resolveScenario('nope', { nodeName: 'w', nodeIp: '127.0.0.1' })).toThrow(/unknown scenario/);
  });
});
