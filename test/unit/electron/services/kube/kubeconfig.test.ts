import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWindeckError, WindeckError } from '../../../../../shared/contract/errors';
import { kubeconfigFiles, loadKubeconfig, resolveContext, resolveKubeconfig, describeContext } from '../../../../../electron/services/kube/kubeconfig';
import { generateSimPki } from '../../../../../electron/sim/kube-api/pki';
import { tempDir } from '../../../../helpers/temp-dir';

const pki = generateSimPki();
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** A valid kubeconfig as an object (mutated below into the malformed corpus). */
function validConfig(): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'main',
    preferences: {},
    clusters: [{ name: 'c1', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': b64(pki.caCert) } }],
    users: [{ name: 'u1', user: { 'client-certificate-data': b64(pki.clientCert), 'client-key-data': b64(pki.clientKey) } }],
    contexts: [{ name: 'main', context: { cluster: 'c1', user: 'u1', namespace: 'apps' } }],
  };
}

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('windeck-kubeconfig-');
});
afterAll(() => tmp.cleanup());

let n = 0;
function write(content: string | Record<string, unknown>, name?: string): string {
  const file = path.join(tmp.dir, name ?? `kc-${++n}.yaml`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof content === 'string' ? content : yaml.dump(content));
  return file;
}

function load(file: string, env: NodeJS.ProcessEnv = {}) {
  return resolveKubeconfig({ explicitPath: file, env });
}

describe('valid kubeconfigs', () => {
  it('resolves the current context with embedded certificates, like client-node does', () => {
    const file = write(validConfig());
    const ctx = load(file);
    expect(ctx).toMatchObject({ contextName: 'main', clusterName: 'c1', userName: 'u1', namespace: 'apps', server: 'https://127.0.0.1:6443', sourceFile: file, warnings: [] });
    expect(ctx.tls.ca?.toString()).toBe(pki.caCert);
    expect(ctx.clientCert?.cert.toString()).toBe(pki.clientCert);
    const kc = new KubeConfig();
    kc.loadFromFile(file);
    expect(kc.getCurrentCluster()?.server).toBe(ctx.server);
    expect(kc.getCurrentContext()).toBe(ctx.contextName);
    expect(JSON.stringify(describeContext(ctx))).not.toContain(b64(pki.clientKey).slice(0, 40));
  });

  it('merges a KUBECONFIG list like kubectl: first name wins, first current-context wins, missing files skipped', () => {
    const a = write({ 'current-context': '', clusters: [{ name: 'c1', cluster: { server: 'https://127.0.0.1:1111' } }], contexts: [{ name: 'x', context: { cluster: 'c1' } }] });
    const b = write({
      'current-context': 'y',
      clusters: [
        { name: 'c1', cluster: { server: 'https://127.0.0.1:2222' } },
        { name: 'c2', cluster: { server: 'https://127.0.0.1:3333', 'insecure-skip-tls-verify': true } },
      ],
      contexts: [
        { name: 'x', context: { cluster: 'c2' } },
        { name: 'y', context: { cluster: 'c2' } },
      ],
    });
    const env = { KUBECONFIG: [a, path.join(tmp.dir, 'missing.yaml'), b].join(path.delimiter) };
    const loaded = loadKubeconfig({ env });
    expect(loaded.files).toEqual([a, b]);
    expect(loaded.origin).toBe('env');
    const y = resolveContext(loaded);
    expect(y.contextName).toBe('y');
    expect(y.server).toBe('https://127.0.0.1:3333');
    expect(y.warnings.join()).toMatch(/insecure-skip-tls-verify/);
    const x = resolveContext(loaded, 'x');
    expect(x.server).toBe('https://127.0.0.1:1111');
  });

  it('uses ~/.kube/config by default and --kubeconfig alone when given', () => {
    expect(kubeconfigFiles({ env: {}, homedir: '/home/someone' })).toEqual({ files: ['/home/someone/.kube/config'], origin: 'default' });
    expect(kubeconfigFiles({ explicitPath: 'rel/kc', env: { KUBECONFIG: '/x' } }).files).toEqual([path.resolve('rel/kc')]);
  });

  it('resolves relative certificate and token files against the kubeconfig directory', () => {
    const dir = path.join(tmp.dir, 'rel');
    fs.mkdirSync(path.join(dir, 'pki'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'pki/ca.crt'), pki.caCert);
    fs.writeFileSync(path.join(dir, 'pki/token'), 'abc\n');
    const file = write(
      {
        'current-context': 'main',
        clusters: [{ name: 'c1', cluster: { server: 'https://127.0.0.1:6443/', 'certificate-authority': 'pki/ca.crt', 'proxy-url': 'http://127.0.0.2:3128', 'tls-server-name': 'kubernetes' } }],
        users: [{ name: 'u1', user: { tokenFile: 'pki/token' } }],
        contexts: [{ name: 'main', context: { cluster: 'c1', user: 'u1' } }],
      },
      'rel/config',
    );
    const ctx = load(file);
    expect(ctx.tls.ca?.toString()).toBe(pki.caCert);
    expect(ctx.tokenFile).toBe(path.join(dir, 'pki/token'));
    expect(ctx.server).toBe('https://127.0.0.1:6443');
    expect(ctx.proxyUrl).toBe('http://127.0.0.2:3128');
    expect(ctx.tls.serverName).toBe('kubernetes');
    expect(ctx.namespace).toBe('default');
  });

  it('reads exec plugins without running anything', () => {
    const file = write({
      ...validConfig(),
      users: [{ name: 'u1', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './bin/plugin', args: ['get-token'], env: [{ name: 'A', value: 'b' }], interactiveMode: 'Never', provideClusterInfo: true } } }],
    });
    const ctx = load(file);
    expect(ctx.exec).toMatchObject({ command: './bin/plugin', args: ['get-token'], interactiveMode: 'Never', provideClusterInfo: true, baseDir: tmp.dir });
  });

  it('accepts a UTF-8 BOM and CRLF line ends', () => {
    const file = write('\uFEFF' + yaml.dump(validConfig()).replace(/\n/g, '\r\n'));
    expect(load(file).contextName).toBe('main');
  });
});

// ---- the malformed corpus ----

type Mutation = { name: string; content: string | Record<string, unknown>; setup?: (file: string) => string };

function setAt(obj: Record<string, unknown>, p: Array<string | number>, value: unknown): Record<string, unknown> {
  const copy = structuredClone(obj);
  let cur: Record<string | number, unknown> = copy;
  for (const seg of p.slice(0, -1)) cur = cur[seg] as Record<string | number, unknown>;
  cur[p[p.length - 1]!] = value;
  return copy;
}

function corpus(): Mutation[] {
  const out: Mutation[] = [];
  // 1. Type swaps: every field given a value of the wrong type.
  const fields: Array<{ p: Array<string | number>; type: 'string' | 'list' | 'map' | 'bool' }> = [
    { p: ['clusters'], type: 'list' },
    { p: ['clusters', 0], type: 'map' },
    { p: ['clusters', 0, 'name'], type: 'string' },
    { p: ['clusters', 0, 'cluster'], type: 'map' },
    { p: ['clusters', 0, 'cluster', 'server'], type: 'string' },
    { p: ['clusters', 0, 'cluster', 'certificate-authority-data'], type: 'string' },
    { p: ['clusters', 0, 'cluster', 'insecure-skip-tls-verify'], type: 'bool' },
    { p: ['clusters', 0, 'cluster', 'proxy-url'], type: 'string' },
    { p: ['users'], type: 'list' },
    { p: ['users', 0], type: 'map' },
    { p: ['users', 0, 'name'], type: 'string' },
    { p: ['users', 0, 'user'], type: 'map' },
    { p: ['users', 0, 'user', 'client-certificate-data'], type: 'string' },
    { p: ['users', 0, 'user', 'client-key-data'], type: 'string' },
    { p: ['users', 0, 'user', 'token'], type: 'string' },
    { p: ['users', 0, 'user', 'tokenFile'], type: 'string' },
    { p: ['users', 0, 'user', 'exec'], type: 'map' },
    { p: ['contexts'], type: 'list' },
    { p: ['contexts', 0], type: 'map' },
    { p: ['contexts', 0, 'name'], type: 'string' },
    { p: ['contexts', 0, 'context'], type: 'map' },
    { p: ['contexts', 0, 'context', 'cluster'], type: 'string' },
    { p: ['contexts', 0, 'context', 'user'], type: 'string' },
    { p: ['contexts', 0, 'context', 'namespace'], type: 'string' },
    { p: ['current-context'], type: 'string' },
    { p: ['preferences'], type: 'map' },
  ];
  const values: Record<string, unknown> = { string: 'text', number: 42, float: 1.5, bool: true, list: ['a', 1], map: { k: 'v' } };
  const wrong: Record<string, string[]> = { string: ['number', 'float', 'bool', 'list', 'map'], list: ['string', 'number', 'bool', 'map'], map: ['string', 'number', 'bool', 'list'], bool: ['string', 'number', 'list', 'map'] };
  for (const f of fields) {
    for (const v of wrong[f.type]!) out.push({ name: `${f.p.join('.')} as ${v}`, content: setAt(validConfig(), f.p, values[v]) });
  }
  // 2. YAML syntax breakers inserted at different lines.
  const text = yaml.dump(validConfig());
  const lines = text.split('\n');
  const breakers = ['\tclusters: []', 'server: "unterminated', 'key: [1, 2', 'key: {a: 1', 'clusters: *nowhere', ': no key', 'a: b: c', '- - -: [', '%YAML 9.9', 'name: &a x\nname: *a'];
  for (const [bi, b] of breakers.entries()) {
    for (const at of [1, 3, 7, Math.floor(lines.length / 2), lines.length - 2]) {
      const copy = [...lines];
      copy.splice(at, 0, b);
      out.push({ name: `syntax ${bi} at line ${at}`, content: copy.join('\n') });
    }
  }
  out.push({ name: 'duplicate key', content: `${text}\ncurrent-context: again\n` });
  // 3. Whole-document shapes that are not kubeconfigs.
  for (const [i, doc] of ['[]', '- a\n- b', 'hello', '42', 'true', '"just a string"', '[[[', '{', '---\n...\n---\n- x', 'clusters'].entries()) out.push({ name: `document ${i}`, content: doc });
  // 4. Semantics kubectl refuses.
  const v = validConfig;
  const sem: Array<[string, Record<string, unknown> | string]> = [
    ['no current-context', { ...v(), 'current-context': '' }],
    ['unknown current-context', { ...v(), 'current-context': 'nope' }],
    ['no contexts at all', { ...v(), contexts: [], 'current-context': '' }],
    ['context without cluster', setAt(v(), ['contexts', 0, 'context'], { user: 'u1' })],
    ['context to unknown cluster', setAt(v(), ['contexts', 0, 'context', 'cluster'], 'ghost')],
    ['context to unknown user', setAt(v(), ['contexts', 0, 'context', 'user'], 'ghost')],
    ['cluster without server', setAt(v(), ['clusters', 0, 'cluster'], { 'certificate-authority-data': b64(pki.caCert) })],
    ['server not a URL', setAt(v(), ['clusters', 0, 'cluster', 'server'], 'not a url')],
    ['server ftp', setAt(v(), ['clusters', 0, 'cluster', 'server'], 'ftp://127.0.0.1')],
    ['server with credentials', setAt(v(), ['clusters', 0, 'cluster', 'server'], 'https://me:pw@127.0.0.1')],
    ['ca data not base64', setAt(v(), ['clusters', 0, 'cluster', 'certificate-authority-data'], '***not base64***')],
    ['ca data not PEM', setAt(v(), ['clusters', 0, 'cluster', 'certificate-authority-data'], b64('hello world!'))],
    ['client cert data not base64', setAt(v(), ['users', 0, 'user', 'client-certificate-data'], 'a!b')],
    ['client cert not PEM', setAt(v(), ['users', 0, 'user', 'client-certificate-data'], b64('nope'))],
    ['client key not PEM', setAt(v(), ['users', 0, 'user', 'client-key-data'], b64('nope'))],
    ['cert without key', setAt(v(), ['users', 0, 'user'], { 'client-certificate-data': b64(pki.clientCert) })],
    ['key without cert', setAt(v(), ['users', 0, 'user'], { 'client-key-data': b64(pki.clientKey) })],
    ['token and exec', setAt(v(), ['users', 0, 'user'], { token: 't', exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'x' } })],
    ['token and basic', setAt(v(), ['users', 0, 'user'], { token: 't', username: 'a', password: 'b' })],
    ['username without password', setAt(v(), ['users', 0, 'user'], { username: 'a' })],
    ['auth-provider', setAt(v(), ['users', 0, 'user'], { 'auth-provider': { name: 'gcp', config: {} } })],
    ['exec without command', setAt(v(), ['users', 0, 'user'], { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1' } })],
    ['exec empty command', setAt(v(), ['users', 0, 'user'], { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: '' } })],
    ['exec without apiVersion', setAt(v(), ['users', 0, 'user'], { exec: { command: 'x' } })],
    ['exec wrong apiVersion', setAt(v(), ['users', 0, 'user'], { exec: { command: 'x', apiVersion: 'v1' } })],
    ['exec v1 without interactiveMode', setAt(v(), ['users', 0, 'user'], { exec: { command: 'x', apiVersion: 'client.authentication.k8s.io/v1' } })],
    ['exec bad interactiveMode', setAt(v(), ['users', 0, 'user'], { exec: { command: 'x', apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Sometimes' } })],
    ['exec env not a list', setAt(v(), ['users', 0, 'user'], { exec: { command: 'x', apiVersion: 'client.authentication.k8s.io/v1beta1', env: { A: 'b' } } })],
    ['exec env entry without value', setAt(v(), ['users', 0, 'user'], { exec: { command: 'x', apiVersion: 'client.authentication.k8s.io/v1beta1', env: [{ name: 'A' }] } })],
    ['duplicate cluster', { ...v(), clusters: [...(v().clusters as unknown[]), ...(v().clusters as unknown[])] }],
    ['duplicate user', { ...v(), users: [...(v().users as unknown[]), ...(v().users as unknown[])] }],
    ['duplicate context', { ...v(), contexts: [...(v().contexts as unknown[]), ...(v().contexts as unknown[])] }],
    ['insecure with CA', setAt(v(), ['clusters', 0, 'cluster', 'insecure-skip-tls-verify'], true)],
    ['proxy-url bad scheme', setAt(v(), ['clusters', 0, 'cluster', 'proxy-url'], 'ftp://127.0.0.1:21')],
    ['proxy-url not a URL', setAt(v(), ['clusters', 0, 'cluster', 'proxy-url'], '::::')],
    ['missing CA file', setAt(setAt(v(), ['clusters', 0, 'cluster', 'certificate-authority-data'], undefined), ['clusters', 0, 'cluster', 'certificate-authority'], 'nope/ca.crt')],
    ['missing client cert file', setAt(v(), ['users', 0, 'user'], { 'client-certificate': 'nope.crt', 'client-key': 'nope.key' })],
    ['cluster entry without name', setAt(v(), ['clusters', 0], { cluster: { server: 'https://127.0.0.1' } })],
    ['empty cluster name', setAt(v(), ['clusters', 0, 'name'], '')],
    ['binary garbage', '\u0000\u0001\u0002kubeconfig\u0000'],
  ];
  for (const [name, content] of sem) out.push({ name, content: typeof content === 'string' ? content : JSON.parse(JSON.stringify(content)) });
  out.push({ name: 'file does not exist', content: '', setup: (f) => `${f}.does-not-exist` });
  out.push({ name: 'a directory', content: '', setup: (f) => path.dirname(f) });
  out.push({ name: 'larger than 4 MB', content: `# ${'x'.repeat(4 * 1024 * 1024 + 10)}\n` });
  return out;
}

describe('malformed kubeconfig corpus', () => {
  const cases = corpus();

  it('has at least 200 generated cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
  });

  it('every case gives a clear WindeckError naming the file, and nothing crashes', () => {
    const bad: string[] = [];
    for (const c of cases) {
      const written = write(c.content);
      const file = c.setup ? c.setup(written) : written;
      try {
        load(file);
        bad.push(`${c.name}: accepted`);
      } catch (error) {
        if (!isWindeckError(error)) {
          bad.push(`${c.name}: threw ${(error as Error)?.constructor?.name}: ${(error as Error)?.message}`);
          continue;
        }
        const e = error as WindeckError;
        const message = e.message;
        if (!message.includes(file)) bad.push(`${c.name}: message does not name the file: ${message}`);
        if (/undefined|\[object Object\]|NaN/.test(message)) bad.push(`${c.name}: unclear message: ${message}`);
        if (message.length > 600) bad.push(`${c.name}: message too long (${message.length})`);
        if (!['VALIDATION', 'NOT_FOUND', 'UNSUPPORTED'].includes(e.code)) bad.push(`${c.name}: code ${e.code}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('says what is wrong, where', () => {
    const msg = (content: Record<string, unknown> | string) => {
      try {
        load(write(content));
        return 'accepted';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(msg(setAt(validConfig(), ['clusters', 0, 'cluster', 'server'], 42))).toMatch(/clusters\[0\]\.cluster\.server must be a string, not a number/);
    expect(msg('a: [1, 2')).toMatch(/is not valid YAML at line \d+, column \d+/);
    expect(msg(setAt(validConfig(), ['contexts', 0, 'context', 'cluster'], 'ghost'))).toMatch(/context "main" refers to cluster "ghost", which is not defined/);
    expect(msg({ ...validConfig(), 'current-context': 'nope' })).toMatch(/Context "nope" is not defined .* \(known: main\)/);
    expect(msg(setAt(validConfig(), ['users', 0, 'user'], { 'auth-provider': { name: 'gcp' } }))).toMatch(/auth-provider "gcp".*exec plugin/);
  });

  it('truncations anywhere never crash (they load or give a clear error)', () => {
    const text = yaml.dump(validConfig());
    for (let cut = 0; cut < text.length; cut += 37) {
      const file = write(text.slice(0, cut));
      try {
        load(file);
      } catch (error) {
        expect(isWindeckError(error), `cut at ${cut}: ${(error as Error).message}`).toBe(true);
      }
    }
  });

  it('never writes to a kubeconfig', () => {
    const file = write(validConfig());
    const before = fs.statSync(file).mtimeMs;
    const content = fs.readFileSync(file, 'utf8');
    load(file);
    try {
      load(file, {});
    } catch {
      // irrelevant
    }
    expect(fs.readFileSync(file, 'utf8')).toBe(content);
    expect(fs.statSync(file).mtimeMs).toBe(before);
    expect(() => new WindeckError('VALIDATION', 'x')).not.toThrow();
  });
});
