import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeInvocation, runScript } from '../../electron/services/powershell/invoke';
import { loadScript } from '../../electron/services/powershell/script-loader';
import { WinrmTransport } from '../../electron/services/transports/winrm/winrm-transport';
import { createCommandHost } from '../../electron/sim/windows-node/command-host';
import { WindowsNodeModel } from '../../electron/sim/windows-node/node-model';
import { resolveScenario } from '../../electron/sim/windows-node/scenario';
import { startWinrmEndpoint, type WinrmEndpoint } from '../../electron/sim/windows-node/winrm-server';
import { tempDir } from '../helpers/temp-dir';

/**
 * Interop: Debian's pywinrm (`python3-winrm`, under /usr/bin/python3) and Windeck's WinrmTransport against the
 * same simulated WinRM endpoint. pywinrm is an independent WS-Management client (its NTLM comes from
 * ntlm-auth, its framing from winrm/encryption.py); it working against the endpoint is the evidence that the
 * endpoint speaks real WS-Man, NTLM sealing included, and Windeck getting the same answers shows the two agree.
 *
 * pywinrm's NTLM needs MD4, which OpenSSL 3 only provides through its legacy provider: this test writes an
 * OPENSSL_CONF that loads it, for the Python process only.
 */

const PYTHON = '/usr/bin/python3';
const ADDRESS = '127.0.10.21';
const USER = 'Administrator';
const PASSWORD = 'Interop-Pa55word!';
const NAMES = ['containerd', 'kubelet', 'kube-proxy'];

const OPENSSL_LEGACY_CONF = `openssl_conf = openssl_init

[openssl_init]
providers = provider_sect

[provider_sect]
default = default_sect
legacy = legacy_sect

[default_sect]
activate = 1

[legacy_sect]
activate = 1
`;

const PY_CLIENT = String.raw`
import base64, json, sys, traceback
import xmltodict
import winrm
from winrm.exceptions import InvalidCredentialsError
from winrm.protocol import Protocol

cfg = json.load(open(sys.argv[1]))
SHELL_URI = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd'

def protocol(url, transport, password=None, **kw):
    return Protocol(endpoint=url, transport=transport, username=cfg['user'], password=password or cfg['password'],
                    operation_timeout_sec=5, read_timeout_sec=10, **kw)

def run_with_stdin(p):
    # Windeck's invocation: the fixed command line, the script bootstrap on stdin (rsp:Send, End="true").
    shell = p.open_shell(codepage=65001, noprofile=True)
    command_id = p.run_command(shell, cfg['commandLine'])
    req = {'env:Envelope': p._get_soap_header(resource_uri=SHELL_URI,
           action='http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Send', shell_id=shell)}
    stream = req['env:Envelope'].setdefault('env:Body', {}).setdefault('rsp:Send', {}).setdefault('rsp:Stream', {})
    stream['@Name'] = 'stdin'
    stream['@CommandId'] = command_id
    stream['@End'] = 'true'
    stream['#text'] = base64.b64encode(cfg['stdin'].encode('utf-8')).decode('ascii')
    p.send_message(xmltodict.unparse(req))
    stdout, stderr, code = p.get_command_output(shell, command_id)
    p.cleanup_command(shell, command_id)
    p.close_shell(shell)
    return {'stdout': stdout.decode('utf-8'), 'stderr': stderr.decode('utf-8', 'replace'), 'code': code}

def attempt(name, fn):
    try:
        results[name] = {'ok': True, **fn()}
    except InvalidCredentialsError as e:
        results[name] = {'ok': False, 'error': 'InvalidCredentialsError', 'message': str(e)}
    except Exception as e:
        results[name] = {'ok': False, 'error': type(e).__name__, 'message': str(e), 'trace': traceback.format_exc()}

results = {}
attempt('http_ntlm_stdin', lambda: run_with_stdin(protocol(cfg['httpUrl'], 'ntlm')))
attempt('http_ntlm_run_ps', lambda: (lambda r: {'stdout': r.std_out.decode('utf-8'), 'stderr': r.std_err.decode('utf-8', 'replace') if isinstance(r.std_err, bytes) else r.std_err, 'code': r.status_code})(
    winrm.Session(cfg['httpUrl'], auth=(cfg['user'], cfg['password']), transport='ntlm').run_ps(cfg['stdin'])))
attempt('https_basic_stdin', lambda: run_with_stdin(protocol(cfg['httpsUrl'], 'basic', ca_trust_path=cfg['caFile'])))
attempt('https_ntlm_cbt_stdin', lambda: run_with_stdin(protocol(cfg['httpsUrl'], 'ntlm', ca_trust_path=cfg['caFile'])))
# Not through the recording relay: pywinrm sends Basic over HTTP in clear (the node refuses it, but the bytes left).
attempt('http_ntlm_wrong_password', lambda: run_with_stdin(protocol(cfg['httpDirectUrl'], 'ntlm', password='wrong-password')))
attempt('http_basic_refused', lambda: run_with_stdin(protocol(cfg['httpDirectUrl'], 'basic')))
print(json.dumps(results))
`;

interface PyResult {
  ok: boolean;
  stdout?: string;
  stderr?: string;
  code?: number;
  error?: string;
  message?: string;
  trace?: string;
}

let http: WinrmEndpoint;
let https: WinrmEndpoint;
let work: { dir: string; cleanup(): void };
let proxy: { url: string; bytes(): Buffer; close(): Promise<void> };

async function recordingProxy(targetUrl: string): Promise<typeof proxy> {
  const target = new URL(targetUrl);
  const captured: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (d: Buffer) => captured.push(d));
    upstream.on('data', (d: Buffer) => captured.push(d));
    client.pipe(upstream).pipe(client);
    const close = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    bytes: () => Buffer.concat(captured),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  const probe = spawnSync(PYTHON, ['-c', 'import winrm, requests_ntlm, ntlm_auth'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    throw new Error(`pywinrm is missing for ${PYTHON}: install it with "apt-get install -y python3-winrm" (${probe.stderr.trim()})`);
  }
  const scenario = resolveScenario('healthy', { nodeName: 'win-interop-1', nodeIp: ADDRESS });
  const model = new WindowsNodeModel(scenario.spec);
  const host = createCommandHost({ model, faults: scenario.faults });
  const credentials = { username: USER, password: PASSWORD };
  http = await startWinrmEndpoint({ address: ADDRESS, commandHost: host, credentials });
  https = await startWinrmEndpoint({ address: ADDRESS, commandHost: host, credentials, https: true });
  proxy = await recordingProxy(http.url);
  work = tempDir('windeck-pywinrm-');
});

afterAll(async () => {
  await proxy?.close();
  await http?.stop();
  await https?.stop();
  work?.cleanup();
});

/** Runs the Python client as a child process (asynchronously: the endpoints live in this process). */
async function runPywinrm(config: Record<string, unknown>): Promise<Record<string, PyResult>> {
  const configFile = path.join(work.dir, 'config.json');
  const scriptFile = path.join(work.dir, 'client.py');
  const opensslConf = path.join(work.dir, 'openssl-legacy.cnf');
  fs.writeFileSync(configFile, JSON.stringify(config));
  fs.writeFileSync(scriptFile, PY_CLIENT);
  fs.writeFileSync(opensslConf, OPENSSL_LEGACY_CONF);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work.dir, OPENSSL_CONF: opensslConf, NO_PROXY: '*', no_proxy: '*' };
  const child = spawn(PYTHON, [scriptFile, configFile], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(timer);
  if (status !== 0) throw new Error(`pywinrm client failed (${status}):\n${stderr}\n${stdout}`);
  return JSON.parse(stdout) as Record<string, PyResult>;
}

function names(stdout: string | undefined): string[] {
  const parsed = JSON.parse(stdout ?? 'null') as Array<{ Name: string }> | { Name: string };
  return (Array.isArray(parsed) ? parsed : [parsed]).map((row) => row.Name).sort();
}

describe('pywinrm and Windeck against the same simulated WinRM endpoint', () => {
  it('both run the services script and get the same answer, over HTTP with NTLM sealing and over HTTPS', async () => {
    const script = await loadScript('services');
    const invocation = encodeInvocation({ scriptId: 'services', script: script.text, args: { names: NAMES } });
    const caFile = path.join(work.dir, 'winrm-ca.pem');
    fs.writeFileSync(caFile, https.certPem ?? '');

    const py = await runPywinrm({
      user: USER,
      password: PASSWORD,
      httpUrl: proxy.url,
      httpDirectUrl: http.url,
      httpsUrl: https.url,
      caFile,
      commandLine: invocation.commandLine,
      stdin: invocation.stdin,
    });

    for (const name of ['http_ntlm_stdin', 'http_ntlm_run_ps', 'https_basic_stdin', 'https_ntlm_cbt_stdin']) {
      const r = py[name];
      expect(r?.ok, `${name}: ${r?.error} ${r?.message}\n${r?.trace ?? ''}`).toBe(true);
      expect(r?.code, name).toBe(0);
      expect(names(r?.stdout), name).toEqual([...NAMES].sort());
    }
    // Refusals a real client sees: a wrong password, and Basic over plain HTTP (not offered by the node).
    expect(py['http_ntlm_wrong_password']).toMatchObject({ ok: false, error: 'InvalidCredentialsError' });
    expect(py['http_basic_refused']).toMatchObject({ ok: false, error: 'InvalidCredentialsError' });

    // pywinrm sealed its messages: nothing of the SOAP, the script or the output crossed the wire in clear.
    const wire = proxy.bytes().toString('latin1');
    expect(wire).toContain('application/HTTP-SPNEGO-session-encrypted');
    for (const clear of ['Envelope', 'windeck-script', 'powershell', 'kube-proxy', PASSWORD]) {
      expect(wire.includes(clear), `"${clear}" visible on the wire`).toBe(false);
    }
    expect(http.events.some((e) => e.detail === 'unencrypted request refused')).toBe(false);
    expect(http.openShellIds()).toEqual([]);
    expect(https.openShellIds()).toEqual([]);

    // Windeck, same endpoints, same script: the same bytes come back.
    const overHttp = new WinrmTransport({ node: 'win-interop-1', url: http.url, credentials: { username: USER, password: PASSWORD } });
    const overHttps = new WinrmTransport({
      node: 'win-interop-1',
      url: https.url,
      credentials: { username: USER, password: PASSWORD, method: 'basic' },
      trust: { ca: https.certPem ?? '' },
    });
    try {
      const windeckHttp = await runScript(overHttp, 'services', { names: NAMES }, { signal: new AbortController().signal });
      const windeckHttps = await runScript(overHttps, 'services', { names: NAMES }, { signal: new AbortController().signal });
      expect(windeckHttp.exitCode).toBe(0);
      expect(windeckHttp.stdout).toBe(py['http_ntlm_stdin']?.stdout);
      expect(windeckHttps.stdout).toBe(py['https_basic_stdin']?.stdout);
    } finally {
      await overHttp.close();
      await overHttps.close();
    }
    expect(http.openShellIds()).toEqual([]);
  });
});
