import type { Locator, Page } from 'playwright-core';

/** The activity list of operations. */
export class ActivityPage {
  constructor(readonly page: Page) {}

  get heading(): Locator {
    return this.page.getByRole('heading', { name: 'Activity' });
  }
  operation(title: string): Locator {
    return this.page.getByRole('listitem', { name: new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `) });
  }
  async cancel(title: string): Promise<void> {
    await this.operation(title)
      .getByRole('button', { name: `Cancel ${title}` })
      .click();
  }
}
