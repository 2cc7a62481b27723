import type { Locator, Page } from 'playwright-core';

/** The clusters disclosure in the header: stored clusters + kubeconfig contexts, switch, sync now, add kubeconfig. */
export class ClustersPanelPage {
  constructor(readonly page: Page) {}

  get toggle(): Locator {
    return this.page.locator('header.app-header summary', { hasText: 'Add cluster · switch context' });
  }
  get panel(): Locator {
    return this.page.locator('.clusters-panel');
  }
  get pathField(): Locator {
    return this.page.getByLabel('Kubeconfig file path', { exact: true });
  }
  get addButton(): Locator {
    return this.page.getByRole('button', { name: 'Add kubeconfig', exact: true });
  }
  get formError(): Locator {
    return this.page.locator('form.add-kubeconfig [role="alert"]');
  }
  row(name: string): Locator {
    return this.page.getByRole('listitem', { name: `Cluster ${name}`, exact: true });
  }
  rowSync(name: string): Locator {
    return this.page.getByRole('group', { name: `${name}: sync state`, exact: true });
  }

  async open(): Promise<void> {
    if (!(await this.panel.isVisible())) await this.toggle.click();
    await this.panel.waitFor();
  }
  async close(): Promise<void> {
    if (await this.panel.isVisible()) await this.toggle.click();
  }
  async add(path: string): Promise<void> {
    await this.pathField.fill(path);
    await this.addButton.click();
  }
  async switchTo(name: string): Promise<void> {
    await this.page.getByRole('button', { name: `Switch to ${name}`, exact: true }).click();
  }
  async syncNow(name: string): Promise<void> {
    await this.page.getByRole('button', { name: `Sync now ${name}`, exact: true }).click();
  }
}
