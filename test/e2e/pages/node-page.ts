import type { Locator, Page } from 'playwright-core';

export type NodeTabName = 'Overview' | 'Findings' | 'Services' | 'Network' | 'DNS' | 'Logs' | 'Access' | 'Activity';

/** One node: header, tabs, panels. */
export class NodePage {
  constructor(readonly page: Page) {}

  get title(): Locator {
    return this.page.locator('#node-title');
  }
  get panel(): Locator {
    return this.page.getByRole('tabpanel');
  }
  tab(name: NodeTabName): Locator {
    return this.page.getByRole('tab', { name: new RegExp(`^${name}`) });
  }
  async openTab(name: NodeTabName): Promise<void> {
    await this.tab(name).click();
    await this.page.waitForFunction((n) => document.querySelector('[role=tab][aria-selected=true]')?.textContent?.startsWith(n), name);
  }
  get findings(): Locator {
    return this.panel.locator('article.finding');
  }
  action(name: RegExp): Locator {
    return this.page.getByRole('button', { name });
  }
}
