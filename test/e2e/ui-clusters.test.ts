import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiSimulator } from '../../electron/sim/kube-api/server';
import { launchChromium } from '../helpers/chromium';
import { CLI, ROOT, startCli, type RunningProcess } from '../helpers/processes';
import { tempDir } from '../helpers/temp-dir';
import { AppPage } from './pages/app-page';
import { ClustersPanelPage } from './pages/clusters-panel-page';
import { FleetPage } from './pages/fleet-page';

// Issue 8 items 1 and 6 end to end: the real `windeck serve` (dist/cli.js) against a kubeconfig that points at one
// Kubernetes API simulator on loopback; a second simulator's kubeconfig is added from the UI in headless Chromium,
// the console switches to it, shows its nodes, and says "unreachable" with the data's age when it stops. Then the
// whole app is restarted with every simulator stopped: it opens on the last stored state with its age and the banner.
const STATIC = path.join(ROOT, 'dist', 'renderer');
const AGE = /synced (just now|\d+ (s|min|h|d) ago)/;

let simA: KubeApiSimulator;
let simB: KubeApiSimulator;
let serve: RunningProcess | null = null;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let url: string;
const dirs = { home: tempDir('windeck-e2e-home-'), data: tempDir('windeck-e2e-data-') };
let kubeA: string;
let kubeB: string;

async function startServe(): Promise<string> {
  serve = startCli(['serve'], { HOME: dirs.home.dir, WINDECK_HOME: dirs.data.dir, KUBECONFIG: kubeA, XDG_CONFIG_HOME: path.join(dirs.home.dir, '.config') });
  const match = await serve.waitForOutput(/http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}/, 30_000);
  return match[0];
}

beforeAll(async () => {
  if (!fs.existsSync(path.join(STATIC, 'index.html')) || !fs.existsSync(CLI)) throw new Error('dist/ is missing: run `npm run build` first.');
  simA = await new KubeApiSimulator({ cluster: { nodes: 3, windows: 2 } }).start();
  simB = await new KubeApiSimulator({ cluster: { nodes: 6, windows: 4 } }).start();
  kubeA = simA.writeKubeconfig(path.join(dirs.home.dir, '.kube', 'team-a.yaml'), { context: 'team-a' });
  kubeB = simB.writeKubeconfig(path.join(dirs.home.dir, 'configs', 'team-b.yaml'), { context: 'team-b' });
  url = await startServe();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await serve?.stop();
  await simA?.stop();
  await simB?.stop();
  dirs.home.cleanup();
  dirs.data.cleanup();
});

describe('clusters and offline in Chromium over `windeck serve`', () => {
  const app = () => new AppPage(page);
  const fleet = () => new FleetPage(page);
  const panel = () => new ClustersPanelPage(page);

  it('opens live on the KUBECONFIG context and lists it in the clusters panel', async () => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await app().open(url);
    await fleet().waitLoaded();
    await expect.poll(() => fleet().count.textContent(), { timeout: 30_000 }).toBe('3 nodes');
    await expect.poll(() => app().syncState.textContent(), { timeout: 30_000 }).toMatch(/^live/);
    await expect(app().simulatedBadge.count()).resolves.toBe(0); // a kubeconfig context is not the demo
    await panel().open();
    await panel().row('team-a').waitFor();
    expect(await panel().row('team-a').textContent()).toContain(simA.url);
    await expect.poll(() => panel().row('team-a').textContent()).toMatch(/live source.*user team-a-admin · namespace default · current context/);
    expect(await page.getByRole('button', { name: 'Live now team-a' }).isDisabled()).toBe(true);
    expect(await app().axeSerious(), 'clusters panel').toEqual([]);
    await app().screenshot('clusters-01-panel');
    expect(errors).toEqual([]);
  });

  it('explains a bad kubeconfig path in place, then adds the second cluster by path', async () => {
    await panel().add('configs/team-b.yaml');
    await panel().formError.waitFor();
    expect(await panel().formError.textContent()).toMatch(/not an absolute path/);
    const broken = path.join(dirs.home.dir, 'configs', 'broken.yaml');
    fs.writeFileSync(broken, 'apiVersion: v1\nclusters:\n- name: x\n  cluster:\n   server: [\n');
    await panel().add(broken);
    await expect.poll(() => panel().formError.textContent()).toMatch(/broken\.yaml: is not valid YAML at line \d+/);
    await app().screenshot('clusters-02-add-error');
    // Retry after fixing the file in place.
    fs.copyFileSync(kubeB, broken);
    await page.getByRole('button', { name: 'Retry adding the kubeconfig' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Added ${broken}: 1 context` })
      .waitFor();
    // That file goes away again: the panel says so and it can be forgotten.
    fs.rmSync(broken);
    await panel().add(kubeB);
    await page
      .getByRole('status')
      .filter({ hasText: `Added ${kubeB}: 1 context` })
      .waitFor();
    await page.getByRole('list', { name: 'Kubeconfig files with problems' }).filter({ hasText: 'does not exist any more' }).waitFor();
    await page.getByRole('button', { name: `Forget file ${broken}` }).click();
    await page.getByRole('list', { name: 'Kubeconfig files with problems' }).waitFor({ state: 'detached' });
    await panel().row('team-b').waitFor();
    expect(await panel().row('team-b').textContent()).toMatch(/not synced yet/);
    expect(await app().axeSerious(), 'clusters panel with contexts').toEqual([]);
    await app().setTheme('dark');
    expect(await app().axeSerious(), 'clusters panel, dark theme').toEqual([]);
    await app().screenshot('clusters-02b-panel-dark');
    await app().setTheme('light');
  });

  it('switches the live source to the added context and shows its nodes; the first stays stored', async () => {
    await panel().switchTo('team-b');
    await expect.poll(() => fleet().count.textContent(), { timeout: 30_000 }).toBe('6 nodes');
    await expect.poll(() => app().syncState.textContent(), { timeout: 30_000 }).toMatch(/^live/);
    await expect.poll(() => app().clusterSelect.inputValue()).toMatch(/^team-b@/);
    await expect.poll(() => panel().rowSync('team-a').textContent(), { timeout: 30_000 }).toMatch(new RegExp(`^stale${AGE.source}`));
    expect(await panel().row('team-b').textContent()).toMatch(/live source/);
    await app().screenshot('clusters-03-switched');
    // Sync now on the stored one: it lists again without becoming the live source.
    await panel().syncNow('team-a');
    await expect.poll(() => panel().row('team-a').textContent(), { timeout: 30_000 }).toMatch(/Sync now: succeeded/);
    await expect.poll(() => panel().rowSync('team-a').textContent()).toMatch(new RegExp(`^stale${AGE.source}`));
    expect(await panel().row('team-b').textContent()).toMatch(/live source/);
  });

  it('says unreachable, with the age of the stored data, when the second simulator stops', async () => {
    await panel().close();
    await simB.down();
    await page.locator('.banner', { hasText: 'team-b is unreachable' }).waitFor({ timeout: 30_000 });
    expect(await app().syncState.textContent()).toMatch(new RegExp(`offline \\(unreachable\\)${AGE.source}`));
    expect(await fleet().count.textContent()).toBe('6 nodes');
    await panel().open();
    await expect.poll(() => panel().row('team-b').textContent(), { timeout: 30_000 }).toMatch(/Last error: .*refused/);
    await app().screenshot('clusters-04-unreachable');
    // Sync now while it is down: the failure shows in the row, the stored nodes stay.
    await panel().syncNow('team-b');
    await expect.poll(() => panel().row('team-b').textContent(), { timeout: 30_000 }).toMatch(/Sync now: failed/);
    expect(await fleet().count.textContent()).toBe('6 nodes');
    await panel().close();
  });

  it('stays readable at 200 % zoom with the panel open', async () => {
    const zoomed = await browser.newContext({ viewport: { width: 640, height: 450 }, deviceScaleFactor: 2 });
    await zoomed.addCookies(await context.cookies());
    const p = await zoomed.newPage();
    try {
      const zapp = new AppPage(p);
      await zapp.open(`${new URL(url).origin}/`);
      await new FleetPage(p).waitLoaded();
      const zpanel = new ClustersPanelPage(p);
      await zpanel.open();
      await zpanel.row('team-b').waitFor();
      expect(await zapp.overflowingElements()).toEqual([]);
      await zapp.screenshot('clusters-05-panel-zoom-200');
    } finally {
      await zoomed.close();
    }
  });

  it('reopened with every API simulator stopped: the last state, its age and the offline banner', async () => {
    await simA.down();
    await serve?.stop();
    serve = null;
    url = await startServe();
    const fresh = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    try {
      const fapp = new AppPage(fresh);
      const ffleet = new FleetPage(fresh);
      await fapp.open(url);
      await ffleet.waitLoaded();
      // `serve` reopened on the context the user switched to (team-b): its stored nodes, its age, the banner.
      await fresh.locator('.banner', { hasText: 'team-b is unreachable' }).waitFor({ timeout: 30_000 });
      expect(await ffleet.count.textContent()).toBe('6 nodes');
      expect(await fapp.syncState.textContent()).toMatch(new RegExp(`offline \\(unreachable\\)${AGE.source}`));
      expect(serve!.stderr()).toMatch(/Syncing context "team-b" live/);
      expect(
        await ffleet.grid
          .locator('tbody td')
          .filter({ hasText: /^(just now|\d+ (s|min|h|d) ago)$/ })
          .count(),
      ).toBeGreaterThan(0);
      await fapp.screenshot('clusters-06-reopened-offline');
      // The other cluster's data is still in the store, shown with its age.
      const other = await fapp.clusterSelect.locator('option', { hasText: 'team-a' }).getAttribute('value');
      await fapp.clusterSelect.selectOption(other!);
      await expect.poll(() => ffleet.count.textContent()).toBe('3 nodes');
      expect(await fapp.syncState.textContent()).toMatch(new RegExp(`stale${AGE.source}`));
      await fresh.locator('.banner', { hasText: /team-a/ }).waitFor();
      await fapp.screenshot('clusters-07-reopened-other-cluster');
    } finally {
      await fresh.close();
    }
  });
});
