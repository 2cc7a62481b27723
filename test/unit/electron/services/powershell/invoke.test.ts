import { describe, expect, it } from 'vitest';
import { WindeckError } from '../../../../../shared/contract/errors';
import {
  bootstrapFor,
  DNS_NAME,
  encodeInvocation,
  POWERSHELL_COMMAND_LINE,
  runScript,
  SERVICE_NAME,
  validateScriptArgs,
  WINDOWS_PATH,
} from '../../../../../electron/services/powershell/invoke';
import { loadScript } from '../../../../../electron/services/powershell/script-loader';
import { SCRIPT_IDS } from '../../../../../electron/services/powershell/script-ids';
import type { NodeTransport, RunRequest, RunResult } from '../../../../../electron/services/transports/node-transport';
import { createCommandHost } from '../../../../../electron/sim/windows-node/command-host';
import { WindowsNodeModel } from '../../../../../electron/sim/windows-node/node-model';
import { resolveScenario } from '../../../../../electron/sim/windows-node/scenario';

/** A transport that records what reaches it (the edge of the process: nothing is sent anywhere). */
class RecordingTransport implements NodeTransport {
  readonly kind = 'ssh' as const;
  readonly node = 'win-rec';
  readonly requests: RunRequest[] = [];
  async run(request: RunRequest): Promise<RunResult> {
    this.requests.push(request);
    const inv = encodeInvocation(request);
    return { transport: 'ssh', stdout: inv.stdin, stderr: '', exitCode: 0, startedAt: 0, durationMs: 0 };
  }
  async close(): Promise<void> {}
}

const QUOTES = ["'", '"', '`', '\u2018', '\u2019', '\u201C', '\u201D', '\u201A', '\u201E', '\u2032'];
const HOSTILE: string[] = [
  ...QUOTES.map((q) => `kubelet${q}`),
  ...QUOTES.map((q) => `${q}; Remove-Item C:\\ -Recurse${q}`),
  '$(Stop-Computer -Force)',
  '$(whoami)',
  '${env:PATH}',
  '@(1,2)',
  '`whoami`',
  'kubelet`nStop-Service hns',
  'kubelet; Stop-Service hns',
  'kubelet;Stop-Service hns',
  'kubelet && shutdown /s',
  'kubelet || calc',
  'kubelet | Out-File x',
  'kubelet & calc',
  'kubelet > C:\\x',
  'kubelet\nStop-Service hns',
  'kubelet\r\nStop-Service hns',
  'kubelet\rcalc',
  'kubelet\u2028calc',
  'kubelet\u0085calc',
  'kubelet\u0000',
  '\u0000',
  'kubelet\u0000; calc',
  'kube*',
  'kube?',
  '[kubelet]',
  '%COMSPEC%',
  '^calc',
  'kubelet\t',
  ' kubelet',
  'kubelet ',
  '',
  '-kubelet',
  '.kubelet',
  'k'.repeat(81),
  'k'.repeat(100_000),
  'ｋｕｂｅｌｅｔ',
  'kubеlet', // Cyrillic e
  '\uFEFFkubelet',
  '..\\..\\Windows',
];

const HOSTILE_PATHS: string[] = [
  'C:\\k\\..\\Windows\\System32\\config\\SAM',
  'C:\\k\\.\\x',
  'C:\\k\\x.log;calc',
  "C:\\k\\x'.log",
  'C:\\k\\x".log',
  'C:\\k\\$(calc).log',
  'C:\\k\\`calc`.log',
  'C:\\k\\x\n.log',
  'C:\\k\\x\u0000.log',
  '\\\\evil\\share\\x',
  '//evil/share/x',
  'k\\x.log',
  'C:/k/x.log',
  'C:\\k\\x.log ',
  'C:\\k\\x.',
  'C:\\k\\*.log',
  'C:\\k\\x|y',
  'C:\\k\\x&y',
  'C:\\k\\%TEMP%',
  'C:\\' + 'a\\'.repeat(200),
  'HKLM:\\SOFTWARE',
  'C:\\k\\x$',
];

const HOSTILE_DNS: string[] = ['kubernetes; calc', "kubernetes'", 'kubernetes"', 'a..b', '-a.b', 'a-.b', 'a b', 'kubernetes\n', 'kubernetes\u0000', 'x'.repeat(64) + '.local', ('a'.repeat(60) + '.').repeat(5), '$(x)', '`x`', 'a.b/c', 'a.b:53', '*.cluster.local'];

async function expectRefused(fn: () => Promise<unknown>): Promise<WindeckError> {
  const error = await fn().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WindeckError);
  expect((error as WindeckError).code).toBe('VALIDATION');
  return error as WindeckError;
}

describe('argument validation happens before anything reaches a transport', () => {
  it('refuses every hostile service name for every script that takes names, and the transport sees nothing', async () => {
    const t = new RecordingTransport();
    for (const bad of HOSTILE) {
      for (const script of ['services', 'service-config'] as const) {
        const e = await expectRefused(() => runScript(t, script, { names: ['kubelet', bad] }, { signal: new AbortController().signal }));
        // The message never echoes a raw control character or a long value.
        // eslint-disable-next-line no-control-regex
        expect(e.message).not.toMatch(/[\u0000\n\r]/);
        expect(e.message.length).toBeLessThan(400);
      }
      await expectRefused(() => runScript(t, 'restart-service', { name: bad, timeoutSeconds: 60 }, { signal: new AbortController().signal }));
      await expectRefused(() => runScript(t, 'processes', { names: [bad] }, { signal: new AbortController().signal }));
    }
    for (const bad of HOSTILE_PATHS) {
      await expectRefused(() => runScript(t, 'files', { paths: [bad], maxBytes: 1024 }, { signal: new AbortController().signal }));
      await expectRefused(() => runScript(t, 'logs', { sources: [{ dir: bad, filter: '*.log' }], sinceEpochMs: 0, maxBytesPerFile: 1024 }, { signal: new AbortController().signal }));
    }
    for (const bad of ['*.log;calc', "*'", '$(x)', '*.log\n', '..', 'a/b', 'a\\b', '']) {
      await expectRefused(() => runScript(t, 'logs', { sources: [{ dir: 'C:\\k', filter: bad }], sinceEpochMs: 0, maxBytesPerFile: 1024 }, { signal: new AbortController().signal }));
    }
    for (const bad of HOSTILE_DNS) {
      await expectRefused(() => runScript(t, 'dns', { names: [bad] }, { signal: new AbortController().signal }));
    }
    expect(t.requests).toEqual([]);
  });

  it('refuses wrong shapes: extra keys, wrong types, huge lists, out-of-range numbers, unknown scripts', async () => {
    const t = new RecordingTransport();
    const signal = new AbortController().signal;
    await expectRefused(() => runScript(t, 'services', { names: ['kubelet'], extra: '$(calc)' }, { signal }));
    await expectRefused(() => runScript(t, 'services', { names: 'kubelet' }, { signal }));
    await expectRefused(() => runScript(t, 'services', { names: [{ toString: () => 'kubelet' }] }, { signal }));
    await expectRefused(() => runScript(t, 'services', { names: [] }, { signal }));
    await expectRefused(() => runScript(t, 'services', { names: Array.from({ length: 65 }, (_, i) => `s${i}`) }, { signal }));
    await expectRefused(() => runScript(t, 'os', { anything: 1 }, { signal }));
    await expectRefused(() => runScript(t, 'restart-service', { name: 'kubelet', timeoutSeconds: 0 }, { signal }));
    await expectRefused(() => runScript(t, 'restart-service', { name: 'kubelet', timeoutSeconds: 1.5 }, { signal }));
    await expectRefused(() => runScript(t, 'files', { paths: ['C:\\k\\a'], maxBytes: -1 }, { signal }));
    await expectRefused(() => runScript(t, 'not-a-script' as never, {}, { signal }));
    await expectRefused(() => runScript(t, '__proto__' as never, {}, { signal }));
    expect(t.requests).toEqual([]);
  });

  it('a transport that bypasses runScript still cannot send an unchecked value (encodeInvocation re-validates)', async () => {
    const script = (await loadScript('services')).text;
    expect(() => encodeInvocation({ scriptId: 'services', script, args: { names: ["kubelet'; calc; '"] } })).toThrow(WindeckError);
    expect(() => encodeInvocation({ scriptId: 'services', script: '# windeck-script: os v1\r\n', args: { names: ['kubelet'] } })).toThrow(/first line/);
    expect(() => encodeInvocation({ scriptId: 'services', script: 'Stop-Computer\r\n', args: { names: ['kubelet'] } })).toThrow(WindeckError);
  });

  it('accepts the values real nodes have', () => {
    for (const ok of ['kubelet', 'kube-proxy', 'kubeproxy', 'CalicoNode', 'rancher-wins', 'containerd', 'ovs-vswitchd', 'csi-proxy', 'Kubelet', 'svc_1.2']) expect(SERVICE_NAME.test(ok), ok).toBe(true);
    for (const ok of ['C:\\k\\cni\\config\\cni.conf', 'C:\\Program Files\\containerd\\config.toml', 'C:\\Program Files (x86)\\x\\y.log', 'D:\\data\\k8s-logs\\kubelet.log', 'C:\\']) expect(WINDOWS_PATH.test(ok), ok).toBe(true);
    for (const ok of ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc.cluster.local', 'kube-dns.kube-system.svc.cluster.local.', '_dns._udp.kube-dns.kube-system.svc.cluster.local', 'win-1']) expect(DNS_NAME.test(ok), ok).toBe(true);
    expect(validateScriptArgs('files', { paths: ['C:\\Program Files\\containerd\\config.toml'], maxBytes: 1 })).toEqual({ paths: ['C:\\Program Files\\containerd\\config.toml'], maxBytes: 1 });
  });
});

describe('invocation shape', () => {
  it('is a short fixed command line plus an ASCII-only stdin bootstrap; the values travel only as base64 JSON', async () => {
    const t = new RecordingTransport();
    const args = { names: ['kubelet', 'kube-proxy'] };
    const r = await runScript(t, 'services', args, { signal: new AbortController().signal });
    const stdin = r.stdout;
    expect(POWERSHELL_COMMAND_LINE).toBe('powershell.exe -NoLogo -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command -');
    expect(POWERSHELL_COMMAND_LINE.length).toBeLessThan(8191);
    expect(stdin).toMatch(/^[\x20-\x7e\r\n]*$/);
    expect(stdin.startsWith('# windeck-script: services v1\r\n')).toBe(true);
    expect(stdin.endsWith('\r\n\r\n')).toBe(true);
    expect(stdin.split('\r\n')).toHaveLength(4);
    expect(stdin).toContain("[Console]::OutputEncoding=New-Object System.Text.UTF8Encoding $false");
    expect(stdin).not.toContain('kube-proxy');
    const b64 = /-WindeckArgs '([A-Za-z0-9+/=]+)'/.exec(stdin)![1]!;
    expect(JSON.parse(Buffer.from(b64, 'base64').toString('utf8'))).toEqual(args);
    const scriptB64 = /FromBase64String\('([A-Za-z0-9+/=]+)'\)/.exec(stdin)![1]!;
    expect(Buffer.from(scriptB64, 'base64').toString('utf8')).toBe((await loadScript('services')).text);
  });

  it('the simulator decodes the same bootstrap back to the same arguments (round trip through the Windows side)', async () => {
    const model = new WindowsNodeModel(resolveScenario('healthy', { nodeName: 'win-1', nodeIp: '127.0.0.5' }).spec);
    const host = createCommandHost({ model });
    for (const id of SCRIPT_IDS.filter((s) => s !== 'restart-service')) {
      const script = (await loadScript(id)).text;
      const args =
        id === 'services' || id === 'service-config' || id === 'processes'
          ? { names: ['kubelet'] }
          : id === 'dns'
            ? { names: ['kubernetes'] }
            : id === 'files'
              ? { paths: ['C:\\run\\flannel\\subnet.env'], maxBytes: 100 }
              : id === 'logs'
                ? { sources: [{ dir: 'C:\\k', filter: '*.log' }], sinceEpochMs: 0, maxBytesPerFile: 100 }
                : {};
      const inv = encodeInvocation({ scriptId: id, script, args });
      const exec = host.execute(inv.commandLine, inv.stdin);
      exec.stdout.resume();
      exec.stderr.resume();
      expect((await exec.exit).code, id).toBe(0);
      expect(host.invocations.at(-1)).toMatchObject({ scriptId: id, scriptVersion: 1, args });
    }
  });

  it('stays far below cmd.exe limits even for the largest argument set', async () => {
    const script = (await loadScript('files')).text;
    const paths = Array.from({ length: 64 }, (_, i) => `C:\\k\\${'d'.repeat(200)}\\f${i}.log`);
    const inv = encodeInvocation({ scriptId: 'files', script, args: { paths, maxBytes: 1 } });
    expect(inv.commandLine.length).toBeLessThan(200);
    expect(inv.stdin.length).toBeGreaterThan(8191); // why the script goes on stdin, not the command line
    expect(bootstrapFor(script, { paths, maxBytes: 1 })).toBe(inv.stdin);
  });
});
