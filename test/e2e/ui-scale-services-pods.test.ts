import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebHost, type WebHost } from '../../electron/web/server';
import { PodsRepo } from '../../electron/services/store/repos/pods';
import { ProbeResultsRepo } from '../../electron/services/store/repos/probe-results';
import { launchChromium } from '../helpers/chromium';
import { probeRun } from '../helpers/probe-run';
import { ROOT } from '../helpers/processes';
import { testServices } from '../helpers/services';
import { nodeModel, seedCluster } from '../unit/renderer/seed';
import { AppPage, RESULTS_DIR } from './pages/app-page';
import { FleetPage } from './pages/fleet-page';
import { frameTimes } from './pages/frame-times';

// 5,000 probed nodes (services column) and 50,000 pods (Pods view) in headless Chromium: both tables stay
// virtualized, the pods view fetches windows only, filters run in the store. Timings are recorded in
// test-results/scale-services-pods.json, not asserted (shared CI cores).
const STATIC = path.join(ROOT, 'dist', 'renderer');
const NODE_COUNT = 5_000;
const POD_COUNT = 50_000;

let env: ReturnType<typeof testServices>;
let host: WebHost;
let browser: Browser;
let page: Page;

const nodeName = (i: number) => `akswin-${String(i).padStart(5, '0')}`;

beforeAll(async () => {
  if (!fs.existsSync(path.join(STATIC, 'index.html'))) throw new Error('dist/renderer is missing: run `npm run build` first.');
  env = testServices();
  const id = seedCluster(env.services, { nodes: Array.from({ length: NODE_COUNT }, (_, i) => nodeModel(nodeName(i))) });
  const db = env.services.core.store.db;
  const probes = new ProbeResultsRepo(db);
  const svc = (name: string, status: string) => ({ name, displayName: name, status, startType: 'Automatic' });
  db.transaction(() => {
    for (let i = 0; i < NODE_COUNT; i++) {
      probes.insert(
        probeRun({
          clusterId: id,
          node: nodeName(i),
          probeId: 'services',
          parsed: {
            services: [svc('kubelet', 'Running'), svc('kube-proxy', i % 50 === 7 ? 'Stopped' : 'Running'), svc('containerd', 'Running'), svc('hns', 'Running')],
            missing: [],
          },
          startedAt: Date.now() - i * 1000,
        }),
      );
    }
  })();
  new PodsRepo(db).replaceAll(
    id,
    Array.from({ length: POD_COUNT }, (_, i) => ({
      namespace: `team-${i % 40}`,
      name: `app-${String(i).padStart(5, '0')}`,
      uid: null,
      node: nodeName(i % NODE_COUNT),
      phase: i % 97 === 0 ? 'Pending' : 'Running',
      status: i % 97 === 0 ? 'ContainerCreating' : 'Running',
      readyCount: 1,
      containerCount: 1,
      restarts: i % 11,
      podIP: null,
      ownerKind: 'ReplicaSet',
      ownerName: 'rs',
      createdAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    })),
  );
  env.services.core.changed(['pods', 'probes'], id, null);
  host = await startWebHost({ services: env.services, staticDir: STATIC });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await env?.cleanup();
});

describe('scale: services column on 5,000 nodes, 50,000 pods', () => {
  it('fleet: service badges on every row, "service not running" filter, scrolling', async () => {
    const app = new AppPage(page);
    const fleet = new FleetPage(page);
    const t0 = Date.now();
    await app.open(host.url);
    await fleet.waitLoaded();
    const firstRowsMs = Date.now() - t0;
    expect(await fleet.row(nodeName(0)).locator('td.cell-services').textContent()).toMatch(/kubelet running, kube-proxy running/);
    const scroll = await frameTimes(
      page,
      `const el = document.querySelector('.fleet-scroll'); for (let i = 0; i < 80; i++) { el.scrollTop += 400; await new Promise((r) => requestAnimationFrame(r)); }`,
    );
    expect(await page.locator('.fleet-table tbody tr:not(.spacer)').count()).toBeLessThan(100);
    const t1 = Date.now();
    await page.getByLabel('Services', { exact: true }).selectOption('not-running');
    await expect.poll(() => fleet.count.textContent()).toBe(`${NODE_COUNT / 50} of ${NODE_COUNT} nodes`);
    const filterMs = Date.now() - t1;
    expect((await fleet.visibleNames()).every((n) => Number(n.slice(7)) % 50 === 7)).toBe(true);
    await app.screenshot('scale-fleet-services');
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    fs.writeFileSync(path.join(RESULTS_DIR, 'scale-fleet-services.json'), JSON.stringify({ nodes: NODE_COUNT, firstRowsMs, scroll, filterMs }, null, 2));
  });

  it('pods: 50,000 rows by windows, jump to the end, search and sort in the store', async () => {
    const app = new AppPage(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Pods', exact: true }).click();
    const count = page.locator('.toolbar-count');
    const t0 = Date.now();
    await expect.poll(() => count.textContent()).toBe(`${POD_COUNT} pods`);
    const firstRowsMs = Date.now() - t0;
    const grid = page.getByRole('grid', { name: 'Pods' });
    expect(await grid.locator('tbody tr:not(.spacer)').count()).toBeLessThan(120);
    const scroll = await frameTimes(
      page,
      `const el = document.querySelector('.fleet-scroll'); for (let i = 0; i < 80; i++) { el.scrollTop += 600; await new Promise((r) => requestAnimationFrame(r)); }`,
    );
    const t1 = Date.now();
    await page.evaluate(() => {
      const el = document.querySelector('.fleet-scroll')!;
      el.scrollTop = el.scrollHeight;
    });
    await expect.poll(() => grid.locator(`#pod-row-${POD_COUNT - 1}`).textContent(), { timeout: 30_000 }).toContain('app-49969');
    const jumpMs = Date.now() - t1;
    expect(await grid.locator('tbody tr[aria-busy=true]').count()).toBe(0);
    const t2 = Date.now();
    await page.getByRole('searchbox', { name: 'Search' }).fill('app-4999');
    await expect.poll(() => count.textContent()).toBe('10 matching pods');
    const searchMs = Date.now() - t2;
    const t3 = Date.now();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await grid.getByRole('button', { name: /^Restarts/ }).click();
    await expect.poll(() => grid.locator('tbody tr:not(.spacer)').first().textContent()).toContain('app-00120');
    const sortMs = Date.now() - t3;
    // Keyboard focus on the grid shows a focus ring: drawn by the scroll box, since the rows are opaque layers that
    // would hide one drawn inside the table (renderer/styles/app.css).
    await page.getByRole('searchbox', { name: 'Search' }).focus();
    for (let i = 0; i < 20 && !(await grid.evaluate((t) => t === document.activeElement)); i++) await page.keyboard.press('Tab');
    expect(await grid.evaluate((t) => t === document.activeElement && t.matches(':focus-visible'))).toBe(true);
    const ring = await page.locator('.pods .fleet-scroll').evaluate((el) => {
      const s = getComputedStyle(el);
      return { style: s.outlineStyle, width: s.outlineWidth };
    });
    expect(ring).toEqual({ style: 'solid', width: '3px' });
    await expect.poll(() => grid.locator('tbody tr[aria-selected=true]').count()).toBe(1);
    await app.screenshot('scale-pods-50000');
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    const result = { pods: POD_COUNT, at: new Date().toISOString(), firstRowsMs, scroll, jumpMs, searchMs, sortMs };
    fs.writeFileSync(path.join(RESULTS_DIR, 'scale-pods-50000.json'), JSON.stringify(result, null, 2));
    console.log('pods 50000:', JSON.stringify(result));
  });
});
