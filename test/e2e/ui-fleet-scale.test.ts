import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebHost, type WebHost } from '../../electron/web/server';
import type { NodeHealth } from '../../shared/domain/node';
import { launchChromium } from '../helpers/chromium';
import { ROOT } from '../helpers/processes';
import { testServices } from '../helpers/services';
import { nodeModel, seedCluster } from '../unit/renderer/seed';
import { AppPage, RESULTS_DIR } from './pages/app-page';
import { FleetPage } from './pages/fleet-page';
import { frameTimes } from './pages/frame-times';

// The fleet view with 5,000 nodes in headless Chromium: scripted scrolling and filtering with frame times recorded
// (test-results/fleet-5000-frames.json). Timing is recorded, not asserted (shared CI cores); what is asserted is
// that the table stays virtualized and every interaction finishes.
const STATIC = path.join(ROOT, 'dist', 'renderer');
const NODE_COUNT = 5000;
const HEALTH: NodeHealth[] = ['healthy', 'healthy', 'healthy', 'warning', 'error', 'unreachable', 'healthy'];

let env: ReturnType<typeof testServices>;
let host: WebHost;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!fs.existsSync(path.join(STATIC, 'index.html'))) throw new Error('dist/renderer is missing: run `npm run build` first.');
  env = testServices();
  const nodes = Array.from({ length: NODE_COUNT }, (_, i) => {
    const windows = i % 4 !== 0;
    const health = HEALTH[i % HEALTH.length] ?? 'healthy';
    return nodeModel(`${windows ? 'akswin' : 'aks-linux'}-${String(i).padStart(5, '0')}`, {
      os: windows ? 'windows' : 'linux',
      health,
      ready: health !== 'unreachable',
      reasons: health === 'healthy' ? [] : [`${health}: scripted reason ${i}`],
      internalIP: `127.0.${Math.floor(i / 250)}.${i % 250}`,
      podCount: i % 30,
      windowsBuild: windows ? (i % 2 ? 17763 : 20348) : null,
      windowsRelease: windows ? (i % 2 ? 'Windows Server 2019' : 'Windows Server 2022') : null,
    });
  });
  seedCluster(env.services, { nodes });
  host = await startWebHost({ services: env.services, staticDir: STATIC });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await env?.cleanup();
});

describe('fleet view with 5,000 nodes', () => {
  it('loads, stays virtualized, scrolls and filters; frame times recorded', async () => {
    const app = new AppPage(page);
    const fleet = new FleetPage(page);
    const t0 = Date.now();
    await app.open(host.url);
    await fleet.waitLoaded();
    const firstRowsMs = Date.now() - t0;
    expect(await fleet.count.textContent()).toBe(`${NODE_COUNT} nodes`);
    const domRows = await page.locator('.fleet-table tbody tr:not(.spacer)').count();
    expect(domRows).toBeLessThan(100);

    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const before = await metrics();
    const scroll = await frameTimes(
      page,
      `const el = document.querySelector('.fleet-scroll');
       for (let i = 0; i < 120; i++) { el.scrollTop += 400; await new Promise((r) => requestAnimationFrame(r)); }`,
    );
    const after = await metrics();
    // Main-thread time spent during the scripted scroll, by kind (seconds -> ms).
    const scrollCost = Object.fromEntries(
      ['TaskDuration', 'ScriptDuration', 'LayoutDuration', 'RecalcStyleDuration'].map((k) => [k, Math.round(((after[k] ?? 0) - (before[k] ?? 0)) * 1000)]),
    );
    expect((await fleet.visibleNames()).length).toBeGreaterThan(10);
    expect(await page.locator('.fleet-table tbody tr:not(.spacer)').count()).toBeLessThan(100);
    // Recycled rows stay where they are in the DOM while the list scrolls; once it settles they are back in their
    // visual order (the reading order of the accessibility tree): consecutive aria-rowindex values.
    const rowIndexesInDomOrder = () => page.locator('.fleet-table tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('aria-rowindex'))));
    await expect
      .poll(async () => {
        const ix = await rowIndexesInDomOrder();
        return ix.length > 10 && ix.every((x, i) => i === 0 || x === (ix[i - 1] ?? 0) + 1);
      })
      .toBe(true);

    const jump = await frameTimes(page, `document.querySelector('.fleet-scroll').scrollTop = 1e9; await new Promise((r) => setTimeout(r, 100));`);
    expect(await fleet.visibleNames()).toContain('akswin-04999');

    const t1 = Date.now();
    await fleet.filterOs('windows');
    await fleet.filterHealth('error');
    await expect.poll(() => fleet.count.textContent()).toMatch(/^\d+ of 5000 nodes$/);
    const filterMs = Date.now() - t1;

    const t2 = Date.now();
    await fleet.search('akswin-0004');
    await expect.poll(() => fleet.count.textContent()).toMatch(/^\d+ of 5000 nodes$/);
    const names = await fleet.visibleNames();
    expect(names.every((n) => n.startsWith('akswin-0004'))).toBe(true);
    const searchMs = Date.now() - t2;

    const t3 = Date.now();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await fleet.sortBy('Health');
    await expect.poll(() => fleet.count.textContent()).toBe(`${NODE_COUNT} nodes`);
    const sortMs = Date.now() - t3;

    await app.screenshot('ui-fleet-5000');
    const result = { nodes: NODE_COUNT, at: new Date().toISOString(), firstRowsMs, scroll, scrollCost, jump, filterMs, searchMs, sortMs, domRows };
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    fs.writeFileSync(path.join(RESULTS_DIR, 'fleet-5000-frames.json'), JSON.stringify(result, null, 2));
    console.log('fleet 5000:', JSON.stringify(result));
  });
});
