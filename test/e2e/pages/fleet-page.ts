import type { Locator, Page } from 'playwright-core';

/** The fleet view: summary strip, filters, the virtualized node table. */
export class FleetPage {
  constructor(readonly page: Page) {}

  get grid(): Locator {
    return this.page.getByRole('grid', { name: 'Nodes' });
  }
  get summary(): Locator {
    return this.page.getByRole('list', { name: 'Fleet summary' });
  }
  get count(): Locator {
    return this.page.locator('.toolbar-count');
  }

  row(name: string): Locator {
    return this.grid.locator('tbody tr', { has: this.page.locator('td.cell-name', { hasText: name }) });
  }

  /** Names of the rows currently in the DOM (the virtualizer only renders what is near the viewport). */
  async visibleNames(): Promise<string[]> {
    return this.grid.locator('tbody tr td.cell-name').allTextContents();
  }

  async waitLoaded(): Promise<void> {
    await this.grid.locator('tbody tr td.cell-name').first().waitFor();
  }

  async search(text: string): Promise<void> {
    await this.page.getByRole('searchbox', { name: 'Search' }).fill(text);
  }
  async filterOs(os: 'all' | 'windows' | 'linux' | 'unknown'): Promise<void> {
    await this.page.getByLabel('OS', { exact: true }).selectOption(os);
  }
  async filterHealth(health: 'all' | 'problems' | 'error' | 'warning' | 'unreachable' | 'unknown' | 'healthy'): Promise<void> {
    await this.page.getByLabel('Health', { exact: true }).selectOption(health);
  }
  async filterFindings(value: 'all' | 'any' | 'error' | 'warning' | 'info'): Promise<void> {
    await this.page.getByLabel('Findings', { exact: true }).selectOption(value);
  }
  async sortBy(column: string): Promise<void> {
    await this.grid.getByRole('button', { name: new RegExp(`^${column}`) }).click();
  }
  async open(name: string): Promise<void> {
    await this.row(name).locator('td.cell-name a').click();
  }
}
