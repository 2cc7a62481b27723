import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type RunningDemo } from '../../electron/services/kube/demo';
import { startWebHost, type WebHost } from '../../electron/web/server';
import { launchChromium } from '../helpers/chromium';
import { ROOT } from '../helpers/processes';
import { testServices } from '../helpers/services';
import { AppPage } from './pages/app-page';
import { FleetPage } from './pages/fleet-page';

// The node Access tab and the Credentials screen on the real demo in headless Chromium: the demo registers SSH and
// WinRM endpoints and credentials for its simulated Windows nodes, so "Check access" proves SSH works for real (a
// fresh connection to the node simulator on loopback). The web host here has no secret store: adding a credential
// with a password says so in place (STORE_UNAVAILABLE). axe (no serious violations) in light and dark, 200 % zoom.
const STATIC = path.join(ROOT, 'dist', 'renderer');

let env: ReturnType<typeof testServices>;
let demo: RunningDemo;
let host: WebHost;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  if (!fs.existsSync(path.join(STATIC, 'index.html'))) throw new Error('dist/renderer is missing: run `npm run build` first.');
  env = testServices();
  demo = await startDemo(env.services.core, {});
  host = await startWebHost({ services: env.services, staticDir: STATIC });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await host?.close();
  await demo?.stop();
  await env?.cleanup();
});

describe('access configuration in Chromium', () => {
  const app = () => new AppPage(page);
  const target = () => demo.nodes.find((n) => n.os === 'windows' && n.ssh !== null)!;

  it('shows the demo endpoints and credential of a node, and "Check access" says SSH works', async () => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await app().open(host.url);
    await new FleetPage(page).waitLoaded();
    const node = target().name;
    await page.evaluate((n) => {
      window.location.hash = `#/nodes/${encodeURIComponent(n)}?tab=access`;
    }, node);
    await page.getByRole('tab', { name: 'Access' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Access' }).getAttribute('aria-selected')).toBe('true');
    const ssh = page.getByRole('listitem', { name: 'SSH' });
    await expect.poll(() => ssh.textContent(), { timeout: 30_000 }).toContain(target().ssh!);
    expect(await ssh.textContent()).toContain('Registered by the demo');
    const winrm = page.getByRole('listitem', { name: 'WinRM' });
    expect(await winrm.textContent()).toContain(target().winrm!);

    await page.getByRole('button', { name: 'Check access' }).click();
    await page.getByText(`${node} is reachable over SSH.`).waitFor({ timeout: 90_000 });
    const table = page.getByRole('region', { name: `Access check of ${node}` });
    expect(await table.getByRole('row', { name: /^SSH/ }).textContent()).toContain('Works');
    expect(await table.getByRole('row', { name: /^WinRM/ }).textContent()).toMatch(/Works|Refused|Sign-in failed|Timed out|Error|Not configured/);
    await app().screenshot('access-01-check-works');
    expect(await app().axeSerious(), 'access tab, light').toEqual([]);
    await app().setTheme('dark');
    expect(await app().axeSerious(), 'access tab, dark').toEqual([]);
    await app().screenshot('access-02-check-works-dark');
    await app().setTheme('light');
    expect(errors).toEqual([]);
  });

  it('lists credentials, says plainly when no secret store exists, and saves without the secret', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Credentials', exact: true }).click();
    await page.getByRole('heading', { name: 'Credentials', level: 2 }).waitFor();
    const table = page.getByRole('region', { name: 'Credential sets' });
    await table.waitFor({ timeout: 30_000 });
    expect(await table.locator('tbody tr').count()).toBeGreaterThan(0);

    await page.getByLabel('Name', { exact: true }).fill('e2e-ops');
    await page.getByLabel('Kind', { exact: true }).selectOption('winrm-ntlm');
    await page.getByLabel('User', { exact: true }).fill('ops');
    await page.getByLabel('Password', { exact: true }).fill('e2e-secret-value');
    await page.getByRole('button', { name: 'Save credential' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'No secret store on this host' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('STORE_UNAVAILABLE');
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    await app().screenshot('access-03-store-unavailable');
    expect(await app().axeSerious(), 'credentials, store unavailable').toEqual([]);
    await alert.getByRole('button', { name: 'Save without the secret' }).click();
    await table.getByRole('row', { name: /e2e-ops/ }).waitFor();
    expect(await table.getByRole('row', { name: /e2e-ops/ }).textContent()).toContain('None stored');
    expect(await page.content()).not.toContain('e2e-secret-value');
    await app().setTheme('dark');
    expect(await app().axeSerious(), 'credentials, dark').toEqual([]);
    await app().screenshot('access-04-credentials-dark');
    await app().setTheme('light');
  });

  it('stays readable at 200 % zoom (credentials and access tab)', async () => {
    const zoomed = await browser.newContext({ viewport: { width: 640, height: 450 }, deviceScaleFactor: 2 });
    await zoomed.addCookies(await context.cookies());
    const p = await zoomed.newPage();
    try {
      const zapp = new AppPage(p);
      await zapp.open(`${new URL(host.url).origin}/#/settings/credentials`);
      await p.getByRole('region', { name: 'Credential sets' }).waitFor({ timeout: 30_000 });
      expect(await zapp.overflowingElements()).toEqual([]);
      await zapp.screenshot('access-05-credentials-zoom-200');
      await p.evaluate((n) => {
        window.location.hash = `#/nodes/${encodeURIComponent(n)}?tab=access`;
      }, target().name);
      await p.getByRole('listitem', { name: 'SSH' }).waitFor({ timeout: 30_000 });
      await p.getByRole('heading', { name: 'Set an endpoint override' }).waitFor();
      expect(await zapp.overflowingElements()).toEqual([]);
      await zapp.screenshot('access-06-access-tab-zoom-200');
    } finally {
      await zoomed.close();
    }
  });
});
