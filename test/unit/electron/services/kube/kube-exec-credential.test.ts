import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWindeckError, type WindeckError } from '../../../../../shared/contract/errors';
import { fingerprintExec, MemoryExecApprovals, parseExecCredential, pluginEnvironment, resolveExecutable, runExecPlugin } from '../../../../../electron/services/kube/exec-credential';
import type { ExecPlugin } from '../../../../../electron/services/kube/kubeconfig';
import { tempDir } from '../../../../helpers/temp-dir';

let tmp: ReturnType<typeof tempDir>;
let marker: string;
let pluginPath: string;

const ctx = { server: 'https://127.0.0.1:6443', tls: { ca: null, insecureSkipVerify: false, serverName: null }, proxyUrl: null, contextName: 'main', userName: 'u1', sourceFile: '/tmp/kubeconfig' };

/** A real plugin: writes a marker file (proof that it ran), echoes env it saw, prints an ExecCredential. */
function writePlugin(file: string, body = ''): void {
  fs.writeFileSync(
    file,
    `#!/bin/sh
echo "ran $*" >> "${marker}"
echo "FROM_KUBECONFIG=$FROM_KUBECONFIG WINDECK_SECRET=$WINDECK_SECRET" >> "${marker}.env"
echo "$KUBERNETES_EXEC_INFO" > "${marker}.info"
${body}
cat <<'JSON'
{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"tok-123","expirationTimestamp":"2999-01-01T00:00:00Z"}}
JSON
`,
    { mode: 0o755 },
  );
}

function plugin(over: Partial<ExecPlugin> = {}): ExecPlugin {
  return { command: './plugin.sh', args: ['get-token', '--cluster', 'a'], env: [{ name: 'FROM_KUBECONFIG', value: 'yes' }], apiVersion: 'client.authentication.k8s.io/v1', installHint: null, provideClusterInfo: true, interactiveMode: 'Never', baseDir: tmp.dir, ...over };
}

beforeAll(() => {
  tmp = tempDir('windeck-exec-');
  marker = path.join(tmp.dir, 'marker');
  pluginPath = path.join(tmp.dir, 'plugin.sh');
  writePlugin(pluginPath);
});
afterAll(() => tmp.cleanup());

async function rejection(p: Promise<unknown>): Promise<WindeckError> {
  try {
    await p;
  } catch (e) {
    expect(isWindeckError(e)).toBe(true);
    return e as WindeckError;
  }
  throw new Error('expected a rejection');
}

describe('exec credential plugins', () => {
  it('never runs an unapproved plugin (the marker file stays absent)', async () => {
    fs.rmSync(marker, { force: true });
    const approvals = new MemoryExecApprovals();
    const e = await rejection(runExecPlugin(plugin(), ctx, approvals));
    expect(e.code).toBe('PERMISSION_DENIED');
    expect(e.message).toContain(fs.realpathSync(pluginPath));
    expect(e.message).toMatch(/windeck nodes --approve-exec/);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('runs the approved plugin without a shell, with its env only in the child', async () => {
    fs.rmSync(marker, { force: true });
    const approvals = new MemoryExecApprovals();
    approvals.approve(fingerprintExec(plugin()));
    const before = { ...process.env };
    const cred = await runExecPlugin(plugin(), ctx, approvals, { env: { ...process.env, WINDECK_SECRET: 'do-not-pass' } });
    expect(cred).toMatchObject({ token: 'tok-123', clientCertificateData: null });
    expect(fs.readFileSync(marker, 'utf8')).toBe('ran get-token --cluster a\n');
    expect(fs.readFileSync(`${marker}.env`, 'utf8')).toBe('FROM_KUBECONFIG=yes WINDECK_SECRET=\n');
    expect(process.env.FROM_KUBECONFIG).toBeUndefined();
    expect(process.env).toEqual(before);
    const info = JSON.parse(fs.readFileSync(`${marker}.info`, 'utf8'));
    expect(info).toMatchObject({ kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1', spec: { interactive: false, cluster: { server: ctx.server } } });
  });

  it('needs a new approval when the arguments, env or executable change', async () => {
    const approvals = new MemoryExecApprovals();
    approvals.approve(fingerprintExec(plugin()));
    fs.rmSync(marker, { force: true });
    expect((await rejection(runExecPlugin(plugin({ args: ['get-token', '--cluster', 'b'] }), ctx, approvals))).code).toBe('PERMISSION_DENIED');
    expect((await rejection(runExecPlugin(plugin({ env: [{ name: 'FROM_KUBECONFIG', value: 'changed' }] }), ctx, approvals))).code).toBe('PERMISSION_DENIED');
    const copy = path.join(tmp.dir, 'plugin-copy.sh');
    writePlugin(copy, 'echo changed >/dev/null');
    expect((await rejection(runExecPlugin(plugin({ command: './plugin-copy.sh' }), ctx, approvals))).code).toBe('PERMISSION_DENIED');
    // Same path, contents changed after approval (a replaced binary).
    const swap = path.join(tmp.dir, 'plugin-swap.sh');
    writePlugin(swap);
    approvals.approve(fingerprintExec(plugin({ command: './plugin-swap.sh' })));
    writePlugin(swap, 'echo evil >/dev/null');
    expect((await rejection(runExecPlugin(plugin({ command: './plugin-swap.sh' }), ctx, approvals))).code).toBe('PERMISSION_DENIED');
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('resolves bare names on PATH and reports missing plugins with the install hint', () => {
    expect(resolveExecutable(plugin({ command: 'plugin.sh' }), { PATH: `/nonexistent${path.delimiter}${tmp.dir}` })).toBe(fs.realpathSync(pluginPath));
    try {
      resolveExecutable(plugin({ command: 'kubelogin-nope', installHint: 'Install kubelogin.' }), { PATH: tmp.dir });
      throw new Error('expected NOT_FOUND');
    } catch (e) {
      expect((e as WindeckError).code).toBe('NOT_FOUND');
      expect((e as Error).message).toMatch(/not found in PATH\. Install kubelogin\./);
    }
  });

  it('times out a hanging plugin and kills it', async () => {
    const hang = path.join(tmp.dir, 'hang.sh');
    fs.writeFileSync(hang, '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
    const approvals = new MemoryExecApprovals();
    const p = plugin({ command: './hang.sh' });
    approvals.approve(fingerprintExec(p));
    const started = Date.now();
    const e = await rejection(runExecPlugin(p, ctx, approvals, { timeoutMs: 300 }));
    expect(e.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('reports a failing plugin and bad output as AUTH_FAILED', async () => {
    const fail = path.join(tmp.dir, 'fail.sh');
    fs.writeFileSync(fail, '#!/bin/sh\necho "error: not logged in" >&2\nexit 3\n', { mode: 0o755 });
    const junk = path.join(tmp.dir, 'junk.sh');
    fs.writeFileSync(junk, '#!/bin/sh\necho hello\n', { mode: 0o755 });
    const approvals = new MemoryExecApprovals();
    for (const c of ['./fail.sh', './junk.sh']) approvals.approve(fingerprintExec(plugin({ command: c })));
    const a = await rejection(runExecPlugin(plugin({ command: './fail.sh' }), ctx, approvals));
    expect(a.code).toBe('AUTH_FAILED');
    expect(a.message).toMatch(/exit code 3\): error: not logged in/);
    const b = await rejection(runExecPlugin(plugin({ command: './junk.sh' }), ctx, approvals));
    expect(b.message).toMatch(/no valid ExecCredential: output is not JSON/);
  });

  it('parses ExecCredential strictly', () => {
    const ok = (status: object, apiVersion = 'client.authentication.k8s.io/v1beta1') => JSON.stringify({ apiVersion, kind: 'ExecCredential', status });
    expect(parseExecCredential(ok({ token: 't' }), 'client.authentication.k8s.io/v1beta1').token).toBe('t');
    expect(parseExecCredential(ok({ clientCertificateData: 'c', clientKeyData: 'k' }), 'client.authentication.k8s.io/v1beta1').clientKeyData).toBe('k');
    expect(() => parseExecCredential(ok({ token: 't' }), 'client.authentication.k8s.io/v1')).toThrow(/does not match/);
    expect(() => parseExecCredential(ok({}), 'client.authentication.k8s.io/v1beta1')).toThrow(/neither a token/);
    expect(() => parseExecCredential(ok({ token: 't', expirationTimestamp: '2000-01-01T00:00:00Z' }), 'client.authentication.k8s.io/v1beta1')).toThrow(/expired/);
    expect(() => parseExecCredential('{"kind":"Pod"}', 'x')).toThrow(/not ExecCredential/);
  });

  it('builds the child environment without Windeck secrets', () => {
    const env = pluginEnvironment(plugin(), ctx, { PATH: '/bin', WINDECK_SECRET_KEY: 's', HOME: '/h' });
    expect(env.WINDECK_SECRET_KEY).toBeUndefined();
    expect(env).toMatchObject({ PATH: '/bin', HOME: '/h', FROM_KUBECONFIG: 'yes' });
  });
});
