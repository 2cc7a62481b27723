import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import yazl from 'yazl';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PodListResult } from '../../shared/contract/methods/pods';
import { startDemo, type RunningDemo } from '../../electron/services/kube/demo';
import { startWebHost, type WebHost } from '../../electron/web/server';
import { launchChromium } from '../helpers/chromium';
import { ROOT } from '../helpers/processes';
import { testServices } from '../helpers/services';
import { tempDir } from '../helpers/temp-dir';
import { AppPage } from './pages/app-page';
import { FleetPage } from './pages/fleet-page';
import { NodePage } from './pages/node-page';

// Issue 8 additions on the real demo in headless Chromium: the detected layout on the node overview, the fleet's
// Services / Last probed columns and "service not running" filter, the Pods view, and importing by upload (a bundle
// zip through the file input, loose files by a drop, a truncated zip refused with a clear message).
const STATIC = path.join(ROOT, 'dist', 'renderer');

let env: ReturnType<typeof testServices>;
let demo: RunningDemo;
let host: WebHost;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const files = tempDir();

async function writeZip(file: string, members: Record<string, string>): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(members)) zip.addBuffer(Buffer.from(data), name);
  zip.end();
  const out = fs.createWriteStream(file);
  zip.outputStream.pipe(out);
  await once(out, 'close');
}

beforeAll(async () => {
  if (!fs.existsSync(path.join(STATIC, 'index.html'))) throw new Error('dist/renderer is missing: run `npm run build` first.');
  env = testServices();
  demo = await startDemo(env.services.core, {});
  host = await startWebHost({ services: env.services, staticDir: STATIC });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1500, height: 1000 } });
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await host?.close();
  await demo?.stop();
  await env?.cleanup();
  files.cleanup();
});

describe('console additions in Chromium', () => {
  const app = () => new AppPage(page);
  const fleet = () => new FleetPage(page);
  const node = () => new NodePage(page);
  const target = () => demo.nodes.find((n) => n.scenario === 'kube-proxy-stopped')!;

  it('shows "not probed yet" on the overview, then the layout detected after probing, with its age', async () => {
    await app().open(host.url);
    await fleet().waitLoaded();
    await expect.poll(() => fleet().row(target().name).locator('td.cell-probed').textContent()).toBe('not probed yet');
    await fleet().open(target().name);
    await node().title.waitFor();
    const layout = page.getByRole('region', { name: 'Layout detected' });
    await layout.getByText(/^Not probed yet/).waitFor();
    await layout.getByRole('button', { name: 'Probe now to detect the layout' }).click();
    const table = layout.getByRole('table');
    await table.waitFor({ timeout: 90_000 });
    const rows = await table.locator('tbody tr').allTextContents();
    expect(rows.map((r) => r.split(/(?=Windows service|nssm service|DaemonSet pod|bare process|supervised process|not found)/)[0])).toEqual([
      'kubelet',
      'kube-proxy',
      'flanneld',
      'containerd',
      'hns',
    ]);
    expect(await table.getByRole('row', { name: /^kubelet/ }).textContent()).toMatch(/Windows service|nssm service/);
    expect(await layout.textContent()).toMatch(/From probes taken (just now|\d+ s ago)/);
    await layout.getByRole('button', { name: 'Detect the layout again' }).waitFor();
    await app().screenshot('more-01-layout-detected');
  });

  it('shows the services column with accessible text, last probed, and filters nodes with a service not running', async () => {
    await app().go('Fleet');
    await fleet().waitLoaded();
    const row = fleet().row(target().name);
    await expect.poll(() => row.locator('td.cell-services').textContent(), { timeout: 30_000 }).toMatch(/kube-proxy stopped/);
    expect(await row.locator('td.cell-services .visually-hidden').textContent()).toMatch(/^kubelet running, kube-proxy stopped/);
    expect(await row.locator('td.cell-probed').textContent()).toMatch(/^(just now|\d+ (s|min) ago)$/);
    await page.getByLabel('Services', { exact: true }).selectOption('not-running');
    await expect.poll(() => fleet().visibleNames()).toEqual([target().name]);
    await app().screenshot('more-02-fleet-services');
    expect(await app().axeSerious(), 'fleet with services').toEqual([]);
    await page.getByRole('button', { name: 'Clear filters' }).click();
  });

  it('lists the demo pods in the Pods view, with search and keyboard', async () => {
    const stored = await env.services.dispatch('pods:list', { limit: 1 });
    expect(stored.ok).toBe(true);
    const total = (stored.ok ? (stored.value as PodListResult) : null)!.total;
    expect(total).toBeGreaterThan(0);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Pods', exact: true }).click();
    const grid = page.getByRole('grid', { name: 'Pods' });
    await expect.poll(() => page.locator('.toolbar-count').textContent()).toBe(`${total} pods`);
    const winPod = await env.services.dispatch('pods:list', { os: 'windows', limit: 1 });
    const first = (winPod.ok ? (winPod.value as PodListResult) : null)!.pods[0]!;
    await page.getByRole('searchbox', { name: 'Search' }).fill(first.name);
    await expect.poll(() => grid.locator('tbody tr').first().textContent()).toContain(first.name);
    expect(await grid.locator('tbody tr').first().textContent()).toContain('windows');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => page.locator('.toolbar-count').textContent()).toBe(`${total} pods`);
    await grid.focus();
    await page.keyboard.press('End');
    const last = await env.services.dispatch('pods:list', { offset: total - 1, limit: 1 });
    const lastName = (last.ok ? (last.value as PodListResult) : null)!.pods[0]!.name;
    await expect.poll(() => grid.locator(`#pod-row-${total - 1}`).textContent()).toContain(lastName);
    await app().screenshot('more-03-pods');
    expect(await app().axeSerious(), 'pods view').toEqual([]);
  });

  it('imports a bundle zip by upload and shows the same diagnosis as the CLI; refuses a truncated zip clearly', async () => {
    const manifest = JSON.stringify({
      format: 'windeck-bundle',
      version: 1,
      created: '2026-01-01T00:00:00Z',
      tool: { name: 'windeck', version: '0.1.0' },
      nodes: ['win-9'],
      files: [],
      status: 'complete',
      errors: [],
    });
    const servicesRaw = JSON.stringify([
      { Name: 'kubelet', DisplayName: 'kubelet', Status: 4, StartType: 2 },
      { Name: 'kube-proxy', DisplayName: 'kube-proxy', Status: 1, StartType: 2 },
    ]);
    const zip = path.join(files.dir, 'windeck-win-9.zip');
    await writeZip(zip, { 'manifest.json': manifest, 'nodes/win-9/probes/services.raw': servicesRaw });
    await app().go('Import');
    await page.locator('#import-files').setInputFiles(zip);
    await page.getByRole('heading', { name: /findings from 2 inputs/ }).waitFor({ timeout: 60_000 });
    const card = page.getByRole('article', { name: /service-not-running|kube-proxy/i }).first();
    await card.waitFor();
    expect(await card.textContent()).toMatch(/kube-proxy/);
    await app().screenshot('more-04-upload-bundle');
    // Nothing is left in the upload folder once the diagnosis ended.
    const uploads = path.join(env.home, 'tmp', 'uploads');
    await expect.poll(() => (fs.existsSync(uploads) ? fs.readdirSync(uploads) : [])).toEqual([]);

    const cut = path.join(files.dir, 'cut.zip');
    fs.writeFileSync(cut, fs.readFileSync(zip).subarray(0, 60));
    await page.locator('#import-files').setInputFiles(cut);
    const alert = page.getByRole('alert').filter({ hasText: /cut\.zip is not a readable zip archive|cut\.zip is not a zip archive/ });
    await alert.waitFor({ timeout: 30_000 });
    await app().screenshot('more-05-upload-truncated');
  });

  it('diagnoses loose files dropped together as one set', async () => {
    const sourceVip = '{"code":999,"msg":"no IP addresses available in range set"}';
    await page.evaluate(
      ([vip]) => {
        const dt = new DataTransfer();
        dt.items.add(new File([vip!], 'sourcevip.json', { type: 'application/json' }));
        dt.items.add(new File(['not a known output\n'], 'notes.txt', { type: 'text/plain' }));
        const zone = document.querySelector('.drop-zone')!;
        zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      },
      [sourceVip],
    );
    await page.getByRole('heading', { name: /findings from 2 inputs/ }).waitFor({ timeout: 60_000 });
    expect(await page.getByRole('article', { name: /sourcevip/i }).count()).toBeGreaterThan(0);
    await app().screenshot('more-06-drop-files');
  });
});
