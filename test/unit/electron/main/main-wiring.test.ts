import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_CSP } from '../../../../electron/main/policies';
import { tempDir } from '../../../helpers/temp-dir';

/**
 * main.ts is the one module that needs the real Electron. Here its bundle runs under Node against a recording
 * stand-in for the `electron` module (fake-electron/), with the real services, store and protocol handler: the
 * order of startup calls, the window it makes, the IPC it answers and an orderly quit are checked end to end.
 */
const root = path.resolve(__dirname, '../../../..');
const driver = path.join(__dirname, 'fake-electron', 'driver.mjs');
const tmp = tempDir('windeck-main-wiring-');
const mainJs = path.join(tmp.dir, 'dist', 'electron', 'main.js');

interface Report {
  crashed?: string;
  errors: string[];
  userData: string;
  order: string[];
  webPreferences: Record<string, unknown>;
  loaded: string;
  menuLabels: string[];
  sessionHandlers: string[];
  protocol: { status: number; csp: string; body: string };
  info: { ok: boolean; value?: { host: string; home: string } };
  foreign: { ok: boolean; error?: { code: string } };
  opsList: { ok: boolean };
  openDecision: { action: string };
  externalOpened: string[];
  navigationPrevented: boolean;
  quitRequested: number;
  windows: number;
}

function run(env: Record<string, string>): Report {
  const child = spawnSync(process.execPath, [driver, mainJs], {
    cwd: tmp.dir,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, WINDECK_HOME: path.join(tmp.dir, 'home'), FAKE_ELECTRON_APPDATA: path.join(tmp.dir, 'appdata'), ...env },
  });
  const line = child.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as Report;
  } catch {
    throw new Error(`driver printed no report (exit ${child.status}): ${child.stdout.slice(-2000)} ${child.stderr.slice(-2000)}`);
  }
}

beforeAll(async () => {
  await build({
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    external: ['electron'],
    logLevel: 'error',
    loader: { '.ps1': 'text' },
    define: { WINDECK_VERSION: '"0.0.0-test"' },
    banner: { js: "import { createRequire as __windeckCreateRequire } from 'node:module'; const require = __windeckCreateRequire(import.meta.url);" },
    entryPoints: [path.join(root, 'electron/main/main.ts')],
    outfile: mainJs,
  });
  // Bare imports in an ESM bundle resolve from its own directory upwards: give the temp dir the repo's packages.
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(tmp.dir, 'node_modules'), 'dir');
  fs.mkdirSync(path.join(tmp.dir, 'dist', 'renderer'), { recursive: true });
  fs.writeFileSync(path.join(tmp.dir, 'dist', 'renderer', 'index.html'), '<!doctype html><html><head><title>Windeck</title></head><body>app</body></html>');
}, 120_000);
afterAll(() => tmp.cleanup());

describe('main.ts wiring (bundle run against a recording electron stand-in)', () => {
  it('starts in the right order, serves windeck://, answers IPC from our frame only, and quits after disposing', { timeout: 90_000 }, () => {
    const report = run({});
    expect(report.crashed).toBeUndefined();
    expect(report.errors).toEqual([]);
    // Before ready: name, data dir, sandbox, scheme, single-instance lock. After: protocol and IPC.
    const order = report.order;
    for (const name of [
      'app.setName',
      'app.setPath',
      'app.enableSandbox',
      'app.commandLine.appendSwitch',
      'protocol.registerSchemesAsPrivileged',
      'app.requestSingleInstanceLock',
    ]) {
      expect(order, name).toContain(name);
    }
    expect(order).toContain('protocol.handle@ready');
    expect(order).toContain('ipcMain.handle@ready');
    expect(report.userData).toBe(path.join(tmp.dir, 'home'));
    expect(fs.existsSync(path.join(tmp.dir, 'home', 'windeck.db'))).toBe(true);

    expect(report.webPreferences).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false, webSecurity: true, webviewTag: false });
    expect(String(report.webPreferences.preload)).toBe(path.join(tmp.dir, 'dist', 'electron', 'preload.cjs'));
    expect(report.loaded).toBe('windeck://app/index.html');
    expect(report.menuLabels).toEqual(['&File', '&Edit', '&View', '&Window', '&Help']);
    expect(report.sessionHandlers).toEqual(['devicePermission', 'displayMedia', 'permissionCheck', 'permissionRequest']);

    expect(report.protocol.status).toBe(200);
    expect(report.protocol.csp).toBe(APP_CSP);
    expect(report.protocol.body).toContain('Content-Security-Policy');

    expect(report.info).toMatchObject({ ok: true, value: { host: 'electron', home: path.join(tmp.dir, 'home') } });
    expect(report.foreign).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(report.opsList.ok).toBe(true);
    expect(report.openDecision).toEqual({ action: 'deny' });
    expect(report.externalOpened).toEqual(['https://github.com/a/b/issues/new']);
    expect(report.navigationPrevented).toBe(true);
    // window-all-closed -> quit (held while the services dispose) -> quit again.
    expect(report.quitRequested).toBe(2);
    expect(fs.existsSync(path.join(tmp.dir, 'home', 'window-state.json'))).toBe(true);
  });

  it('a second instance quits at once and opens no window', { timeout: 90_000 }, () => {
    const report = run({ FAKE_ELECTRON_SECOND_INSTANCE: '1' });
    expect(report.crashed).toBeUndefined();
    expect(report.quitRequested).toBe(1);
    expect(report.windows).toBe(0);
  });
});
