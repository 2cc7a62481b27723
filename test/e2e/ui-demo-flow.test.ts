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
import { NodePage } from './pages/node-page';

// The user flow of issue 8 on the real demo (API simulator + Windows node simulators over SSH/WinRM on 127.0.0.0/8),
// the real services and the real web host, in headless Chromium. Screenshots of each step go to test-results/.
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
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, permissions: ['clipboard-read', 'clipboard-write'] });
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await host?.close();
  await demo?.stop();
  await env?.cleanup();
});

describe('demo flow in Chromium', () => {
  const app = () => new AppPage(page);
  const fleet = () => new FleetPage(page);
  const node = () => new NodePage(page);

  it('opens the demo: simulated badge, live sync, every demo node', async () => {
    await app().open(host.url);
    await fleet().waitLoaded();
    await app().simulatedBadge.waitFor();
    await expect.poll(() => app().syncState.textContent()).toMatch(/live/);
    await expect.poll(() => fleet().count.textContent()).toBe(`${demo.nodes.length} nodes`);
    await app().screenshot('flow-01-demo-fleet');
  });

  it('filters Windows nodes with errors and opens one', async () => {
    await fleet().filterOs('windows');
    await fleet().filterHealth('problems');
    const names = await fleet().visibleNames();
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n) => demo.nodes.find((d) => d.name === n)?.os === 'windows')).toBe(true);
    await app().screenshot('flow-02-windows-with-problems');
    const target = demo.nodes.find((n) => n.scenario === 'kube-proxy-stopped');
    expect(target).toBeTruthy();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await fleet().search(target!.name);
    await fleet().open(target!.name);
    await node().title.waitFor();
    expect(await node().title.textContent()).toBe(target!.name);
    await app().screenshot('flow-03-node');
  });

  it('refreshes probes over the node transport and shows the stopped service', async () => {
    await page.getByRole('button', { name: 'Refresh probes' }).click();
    await page.getByText('Probes finished; the tabs below show the new results.').waitFor({ timeout: 90_000 });
    await node().openTab('Services');
    const row = node()
      .panel.getByRole('row', { name: /kube-proxy/ })
      .first();
    await row.waitFor();
    expect(await row.textContent()).toMatch(/Stopped/);
    await app().screenshot('flow-04-services');
    await node().openTab('Network');
    await node().panel.getByRole('heading', { name: 'HNS networks' }).waitFor();
    await app().screenshot('flow-05-network');
    await node().openTab('DNS');
    await node().panel.getByRole('heading', { name: 'DNS from the node' }).waitFor();
    await node().openTab('Logs');
    await node().panel.getByRole('heading', { name: 'Logs' }).waitFor();
    await app().screenshot('flow-06-logs');
  });

  it('runs a diagnosis and shows a finding with its evidence and remediation', async () => {
    await page.getByRole('button', { name: 'Run diagnosis' }).click();
    await page.getByText('Diagnosis finished; see the Findings tab.').waitFor({ timeout: 120_000 });
    await node().openTab('Findings');
    const finding = node()
      .panel.getByRole('article', { name: /service-not-running|kube-proxy/i })
      .first();
    await finding.waitFor();
    expect(await finding.locator('pre.excerpt').first().textContent()).toMatch(/kube-proxy/i);
    expect(await finding.getByRole('heading', { name: 'What to do' }).count()).toBe(1);
    await app().screenshot('flow-04b-findings');
    // The fleet counts it too.
    await app().go('Fleet');
    await fleet().search('');
    const name = demo.nodes.find((n) => n.scenario === 'kube-proxy-stopped')!.name;
    await expect.poll(() => fleet().row(name).locator('.finding-counts').textContent()).toMatch(/✖ \d+/);
    await fleet().open(name);
    await node().title.waitFor();
  });

  it('runs the restart wizard to success: plan, typed confirmation, progress, outcome', async () => {
    const name = (await node().title.textContent()) ?? '';
    await page.getByRole('button', { name: 'Restart a component…' }).click();
    await page.getByRole('heading', { name: `Restart a component on ${name}` }).waitFor();
    await page.getByRole('radio', { name: 'kube-proxy' }).check();
    await page.getByRole('button', { name: 'Plan the restart' }).click();
    await page.getByRole('heading', { name: 'Pre-checks' }).waitFor({ timeout: 90_000 });
    await app().screenshot('flow-08-restart-plan');
    const go = page.getByRole('button', { name: `Restart kube-proxy on ${name}` });
    expect(await go.isDisabled()).toBe(true);
    await page.getByLabel(/Type the node name/).fill(name);
    await go.click();
    await page.getByRole('button', { name: 'Cancel restart' }).waitFor();
    await app().screenshot('flow-09-restart-progress');
    const outcome = page.getByRole('status', { name: /^Restart outcome: / });
    await outcome.waitFor({ timeout: 150_000 });
    expect(await outcome.getAttribute('aria-label')).toBe('Restart outcome: Recovered');
    await app().screenshot('flow-10-restart-outcome');
    await page.getByRole('button', { name: 'See activity' }).click();
    await page
      .getByRole('listitem', { name: /: succeeded$/ })
      .first()
      .waitFor();
  });

  it('composes a report and copies it', async () => {
    await page.getByRole('button', { name: 'Compose bug report…' }).click();
    await page.getByRole('heading', { name: /^Bug report for / }).waitFor();
    await page.getByRole('document', { name: 'Report preview' }).waitFor({ timeout: 30_000 });
    await page.getByLabel('What happened?').fill('Services on this node stopped answering after a reboot.');
    await expect
      .poll(() => page.getByRole('document', { name: 'Report preview' }).textContent(), { timeout: 30_000 })
      .toContain('stopped answering after a reboot');
    await page.getByRole('button', { name: 'Copy report Markdown' }).click();
    await page.getByRole('button', { name: 'Copied report Markdown' }).waitFor();
    const clip = await page.evaluate(() => navigator.clipboard.readText());
    expect(clip).toContain('### What happened?');
    expect(clip).toContain('stopped answering after a reboot');
    await app().screenshot('flow-07-report');
  });

  it('collects a redacted bundle, then imports it offline and sees the same diagnosis', async () => {
    await page.getByRole('button', { name: 'Collect bundle…' }).click();
    await page.getByRole('button', { name: 'Collect and preview' }).click();
    await page.getByRole('heading', { name: 'Preview: what redaction found' }).waitFor({ timeout: 120_000 });
    await app().screenshot('flow-13-bundle-preview');
    const target = path.join(env.home, 'exports', 'flow-bundle.zip');
    await page.getByLabel(/Save as/).fill(target);
    await page.getByRole('button', { name: 'Save bundle' }).click();
    await page.getByText('Bundle written').waitFor({ timeout: 120_000 });
    expect(fs.statSync(target).size).toBeGreaterThan(1000);
    await app().go('Import');
    await page.getByLabel(/A Windeck bundle/).fill(target);
    await page.getByRole('button', { name: 'Diagnose', exact: true }).click();
    await page.getByRole('heading', { name: /findings from \d+ inputs/ }).waitFor({ timeout: 120_000 });
    expect(await page.getByRole('article').count()).toBeGreaterThan(0);
    await app().screenshot('flow-14-import-bundle');
    await page.goBack();
  });

  it('has no serious accessibility violations on the node screens', async () => {
    const v = await app().axeSerious();
    expect(v, `report composer: ${JSON.stringify(v)}`).toEqual([]);
    await node().openTab('Services');
    expect(await app().axeSerious(), 'services tab').toEqual([]);
  });

  it('with the API simulator stopped, reopening shows the last state with its age and the offline banner', async () => {
    await demo.api.stop();
    await page.reload();
    await app().open(`${new URL(host.url).origin}/`);
    await page.locator('.banner', { hasText: /unreachable|stalled|failed/ }).waitFor({ timeout: 120_000 });
    await fleet().waitLoaded();
    expect(await fleet().count.textContent()).toBe(`${demo.nodes.length} nodes`);
    expect(await app().syncState.textContent()).toMatch(/(offline|stale|sync error).*synced (just now|\d+ (s|min|h|d) ago)/);
    expect(
      await page
        .getByRole('grid', { name: 'Nodes' })
        .locator('tbody td')
        .filter({ hasText: /^(just now|\d+ (s|min|h|d) ago)$/ })
        .count(),
    ).toBeGreaterThan(0);
    await app().screenshot('flow-11-api-stopped-offline');
    await fleet().open(demo.nodes.find((n) => n.os === 'windows')!.name);
    await node().title.waitFor();
    expect(await page.getByRole('button', { name: 'Restart a component…' }).isDisabled()).toBe(true);
    await page
      .getByText(/^Needs a live session: /)
      .first()
      .waitFor();
    await app().screenshot('flow-12-offline-actions-disabled');
  });
});
