import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebHost, type WebHost } from '../../electron/web/server';
import { launchChromium } from '../helpers/chromium';
import { ROOT } from '../helpers/processes';
import { testServices } from '../helpers/services';
import { nodeModel, seedCluster } from '../unit/renderer/seed';
import { AppPage } from './pages/app-page';
import { FleetPage } from './pages/fleet-page';
import { NodePage } from './pages/node-page';
import { ActivityPage } from './pages/activity-page';

// The shell, fleet and node screens in headless Chromium against the real web host and a real store (seeded the way
// the inventory sync writes it). Needs `npm run build` (dist/renderer) and /usr/bin/chromium.
const STATIC = path.join(ROOT, 'dist', 'renderer');

let env: ReturnType<typeof testServices>;
let host: WebHost;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let clusterId: string;

beforeAll(async () => {
  if (!fs.existsSync(path.join(STATIC, 'index.html'))) throw new Error('dist/renderer is missing: run `npm run build` first.');
  env = testServices();
  clusterId = seedCluster(env.services, {
    nodes: [
      nodeModel('win-healthy-1'),
      nodeModel('win-proxy-2', { health: 'error', reasons: ['kube-proxy service is Stopped'] }),
      nodeModel('win-hns-3', { health: 'warning', reasons: ['HNS network "flannel.4096" missing'] }),
      nodeModel('win-gone-4', {
        health: 'unreachable',
        ready: false,
        reasons: ['no answer over SSH or WinRM'],
        conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' }],
      }),
      nodeModel('<script>alert(1)</script>', { health: 'error', reasons: ['<img src=x onerror=alert(2)>'] }),
      nodeModel('linux-cp-1', { os: 'linux', podCount: 17 }),
      nodeModel('linux-worker-2', { os: 'linux' }),
    ],
  });
  host = await startWebHost({ services: env.services, staticDir: STATIC });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await host?.close();
  await env?.cleanup();
});

describe('renderer in Chromium over the web host', () => {
  it('opens on the fleet with the simulated cluster badge, sync age and every node', async () => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('dialog', (d) => {
      errors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    const app = new AppPage(page);
    const fleet = new FleetPage(page);
    await app.open(host.url);
    expect(new URL(page.url()).search).toBe(''); // the token was traded for the cookie
    await fleet.waitLoaded();
    await expect(app.simulatedBadge.isVisible()).resolves.toBe(true);
    expect(await app.syncState.textContent()).toMatch(/live/);
    expect((await fleet.visibleNames()).length).toBe(7);
    expect(await fleet.summary.textContent()).toMatch(/7\s*nodes.*5\s*Windows nodes.*4\s*unhealthy.*1\s*unreachable/);
    // Markup in a node name is text, and nothing ran.
    await expect(fleet.row('<script>alert(1)</script>').count()).resolves.toBe(1);
    await expect(page.locator('tbody img').count()).resolves.toBe(0);
    await app.screenshot('ui-01-fleet');
    expect(errors).toEqual([]);
  });

  it('filters Windows nodes with errors, sorts by health and opens a node with the keyboard', async () => {
    const app = new AppPage(page);
    const fleet = new FleetPage(page);
    await fleet.filterOs('windows');
    await fleet.filterHealth('error');
    await expect.poll(() => fleet.visibleNames()).toEqual(['<script>alert(1)</script>', 'win-proxy-2']);
    await app.screenshot('ui-02-fleet-filtered');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await fleet.sortBy('Health');
    await expect.poll(async () => (await fleet.visibleNames()).slice(0, 2)).toEqual(['<script>alert(1)</script>', 'win-proxy-2']);
    await fleet.sortBy('Name');
    await fleet.grid.focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    const active = await fleet.grid.getAttribute('aria-activedescendant');
    expect(active).toBeTruthy();
    await page.keyboard.press('Enter');
    const node = new NodePage(page);
    await node.title.waitFor();
    expect(page.url()).toContain('#/nodes/');
  });

  it('shows a node overview with conditions, and says plainly when nothing was probed or diagnosed yet', async () => {
    const app = new AppPage(page);
    const node = new NodePage(page);
    await page.goto(`${new URL(host.url).origin}/#/nodes/win-gone-4`);
    await node.title.waitFor();
    expect(await node.title.textContent()).toBe('win-gone-4');
    await page.getByText('Kubelet stopped posting node status.').waitFor();
    await app.screenshot('ui-03-node-overview');
    await node.openTab('Services');
    expect(await node.panel.textContent()).toMatch(/No probe results are stored for this node yet/);
    await node.openTab('Findings');
    await node.panel.getByText(/No findings are stored for this node/).waitFor();
    await node.openTab('Activity');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => location.hash.includes('tab=access'));
  });

  it('has no serious accessibility violations in light and dark themes', async () => {
    const app = new AppPage(page);
    await app.go('Fleet');
    await new FleetPage(page).waitLoaded();
    for (const theme of ['light', 'dark'] as const) {
      await app.setTheme(theme);
      expect(await app.axeSerious(), `fleet, ${theme}`).toEqual([]);
      await app.screenshot(`ui-04-fleet-${theme}`);
    }
    await page.goto(`${new URL(host.url).origin}/#/nodes/win-proxy-2`);
    await new NodePage(page).title.waitFor();
    await page.getByRole('heading', { name: 'Conditions' }).waitFor();
    expect(await app.axeSerious(), 'node detail').toEqual([]);
    await app.go('Activity');
    await new ActivityPage(page).heading.waitFor();
    expect(await app.axeSerious(), 'activity').toEqual([]);
    await app.setTheme('light');
  });

  it('stays readable at 200 % zoom', async () => {
    const zoomed = await browser.newContext({ viewport: { width: 640, height: 450 }, deviceScaleFactor: 2 });
    const cookies = await context.cookies();
    await zoomed.addCookies(cookies);
    const p = await zoomed.newPage();
    try {
      const app = new AppPage(p);
      await app.open(`${new URL(host.url).origin}/`);
      await new FleetPage(p).waitLoaded();
      expect(await app.overflowingElements()).toEqual([]);
      await app.screenshot('ui-05-fleet-zoom-200');
      await p.getByText('Add cluster').click();
      expect(await app.overflowingElements()).toEqual([]);
      await p.getByText('Add cluster').click();
      await p.goto(`${new URL(host.url).origin}/#/nodes/win-hns-3`);
      await p.getByRole('heading', { name: 'Conditions' }).waitFor();
      expect(await app.overflowingElements()).toEqual([]);
      await app.screenshot('ui-06-node-zoom-200');
    } finally {
      await zoomed.close();
    }
  });

  it('shows the offline banner with the age of the stored data when the cluster is unreachable', async () => {
    const app = new AppPage(page);
    env.services.core.repos.clusters.setSync(clusterId, 'offline', {
      error: 'dial tcp 127.0.0.1:6443: connect: connection refused',
      syncedAt: Date.now() - 12 * 60_000,
    });
    env.services.core.changed(['clusters'], clusterId, null);
    await app.go('Fleet');
    await page.locator('.banner', { hasText: 'is unreachable' }).waitFor();
    expect(await app.syncState.textContent()).toMatch(/offline.*synced 12 min ago/);
    await app.screenshot('ui-07-cluster-offline');
  });

  it('shows "connection lost" when the backend goes away and keeps the last state on screen', async () => {
    const app = new AppPage(page);
    await host.close();
    await app.connectionLost.waitFor();
    await expect(new FleetPage(page).row('win-healthy-1').count()).resolves.toBe(1);
    await app.screenshot('ui-08-connection-lost');
  });
});
