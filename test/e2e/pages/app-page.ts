import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Locator, Page } from 'playwright-core';
import { ROOT } from '../../helpers/processes';

export const RESULTS_DIR = path.join(ROOT, 'test-results');

/** The whole window: header, cluster indicator, banners, navigation, theme. */
export class AppPage {
  constructor(readonly page: Page) {}

  async open(url: string): Promise<void> {
    await this.page.goto(url);
    await this.page.waitForSelector('header.app-header');
  }

  get header(): Locator {
    return this.page.locator('header.app-header');
  }
  get simulatedBadge(): Locator {
    return this.page.getByText('SIMULATED DEMO CLUSTER', { exact: true });
  }
  get clusterSelect(): Locator {
    return this.page.getByLabel('Cluster', { exact: true });
  }
  get syncState(): Locator {
    return this.page.getByRole('group', { name: /^Sync state of / });
  }
  get banners(): Locator {
    return this.page.locator('.banner');
  }
  get connectionLost(): Locator {
    return this.page.locator('.banner', { hasText: /Connection lost|Cannot reach the Windeck backend/ });
  }

  async setTheme(theme: 'system' | 'light' | 'dark'): Promise<void> {
    await this.page.getByLabel('Theme').selectOption(theme);
    if (theme !== 'system') await this.page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
  }

  async go(section: 'Fleet' | 'Activity' | 'Import'): Promise<void> {
    await this.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: section, exact: true }).click();
  }

  /** Full-page screenshot under test-results/ (kept by CI). */
  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    const file = path.join(RESULTS_DIR, `${name}.png`);
    await this.page.screenshot({ path: file, fullPage: true });
    return file;
  }

  /**
   * Run axe-core in the page (through the debugging protocol, so the page's CSP stays on) and return the
   * violations of impact serious or critical.
   */
  async axeSerious(): Promise<Array<{ id: string; impact: string; help: string; nodes: string[] }>> {
    const require = createRequire(import.meta.url);
    const source = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    await this.page.evaluate(source);
    const violations = await this.page.evaluate(async () => {
      const axe = (
        window as unknown as {
          axe: {
            run: (
              ctx: Document,
              opts: unknown,
            ) => Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }>;
          };
        }
      ).axe;
      const r = await axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({
        id: v.id,
        impact: v.impact ?? 'unknown',
        help: v.help,
        nodes: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)),
      }));
    });
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  }

  /** Elements wider than the viewport outside of a scroll container (what makes a page unreadable when zoomed). */
  async overflowingElements(): Promise<string[]> {
    return this.page.evaluate(() => {
      const vw = document.documentElement.clientWidth;
      const out: string[] = [];
      for (const el of Array.from(document.querySelectorAll('body *'))) {
        if (el.closest('.fleet-scroll, pre, .plain-table, .visually-hidden, .skip-link')) continue;
        if (!el.checkVisibility()) continue; // e.g. the content of a closed <details>
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > vw + 1) out.push(`${el.tagName.toLowerCase()}.${(el as HTMLElement).className} right=${Math.round(r.right)} vw=${vw}`);
      }
      return out;
    });
  }
}
