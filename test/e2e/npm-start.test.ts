import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium';
import { ROOT, startProcess, type RunningProcess } from '../helpers/processes';
import { tempDir } from '../helpers/temp-dir';

// Issue 2's "done when": on a machine with no kubeconfig and no Electron binary, `npm start` (dist/start.js) prints a
// tokened 127.0.0.1 URL within 30 s, the page shows the demo's nodes in Chromium, and the bare URL answers 401.
describe('npm start without kubeconfig or Electron binary', () => {
  const home = tempDir();
  const data = tempDir();
  let proc: RunningProcess | null = null;
  afterAll(async () => {
    await proc?.stop();
    home.cleanup();
    data.cleanup();
  });

  it('serves the simulated demo and its nodes', async () => {
    const env: NodeJS.ProcessEnv = { HOME: home.dir, WINDECK_HOME: data.dir, KUBECONFIG: '', XDG_CONFIG_HOME: path.join(home.dir, '.config'), DISPLAY: '' };
    const started = Date.now();
    proc = startProcess(process.execPath, [path.join(ROOT, 'dist', 'start.js')], env);
    const match = await proc.waitForOutput(/http:\/\/127\.0\.0\.1:(\d+)\/\?token=[0-9a-f]{64}/, 30_000);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(proc.stderr()).toMatch(/not opening a desktop window because/);
    expect(proc.stderr()).toMatch(/SIMULATED/);
    const url = match[0];
    const port = Number(match[1]);

    const status = await new Promise<number>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/' }, (res) => (res.resume(), resolve(res.statusCode ?? 0))).on('error', reject);
    });
    expect(status).toBe(401);

    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(url);
      await page.getByText('win-1', { exact: true }).first().waitFor({ timeout: 30_000 });
      await page.getByText('win-5', { exact: true }).first().waitFor({ timeout: 30_000 });
      const body = await page.textContent('body');
      expect(body).toMatch(/simulated/i);
      expect(new URL(page.url()).searchParams.get('token')).toBeNull();
      fs.mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
      await page.screenshot({ path: path.join(ROOT, 'test-results', 'npm-start-demo-node-list.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  });
});
