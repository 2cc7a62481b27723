// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WindeckClient } from '../../../../../renderer/api/client';
import { App } from '../../../../../renderer/app/app';
import { POD_WINDOW_ROWS, windowOffset } from '../../../../../renderer/features/pods/pods-view';
import { PodsRepo } from '../../../../../electron/services/store/repos/pods';
import { testServices } from '../../../../helpers/services';
import { inProcessTransport } from '../../in-process-transport';
import { nodeModel, seedCluster } from '../../seed';

const POD_COUNT = 50_000;
let env: ReturnType<typeof testServices>;

beforeEach(() => {
  env = testServices();
  window.localStorage.clear();
  window.location.hash = '#/pods';
  const id = seedCluster(env.services, { nodes: [nodeModel('win-1'), nodeModel('linux-1', { os: 'linux' })] });
  new PodsRepo(env.services.core.store.db).replaceAll(
    id,
    Array.from({ length: POD_COUNT }, (_, i) => ({
      namespace: i % 2 === 0 ? 'default' : 'kube-system',
      name: `pod-${String(i).padStart(5, '0')}`,
      uid: null,
      node: i % 3 === 0 ? 'linux-1' : 'win-1',
      phase: i === 7 ? 'Failed' : 'Running',
      status: i === 7 ? 'Error' : 'Running',
      readyCount: 1,
      containerCount: 1,
      restarts: i === 11 ? 42 : 0,
      podIP: null,
      ownerKind: null,
      ownerName: null,
      createdAt: '2026-01-01T00:00:00Z',
    })),
  );
});
afterEach(async () => {
  cleanup();
  await env.cleanup();
});

describe('windowOffset', () => {
  it('keeps the window while the rendered rows are inside it with 100 rows to spare, and moves it in steps otherwise', () => {
    expect(windowOffset(0, 0, 30, 50_000)).toBe(0);
    expect(windowOffset(0, 240, 299, 50_000)).toBe(0);
    // Within 100 rows of the window's end: the next window is asked for before any row past it is on screen.
    expect(windowOffset(0, 250, 300, 50_000)).toBe(100);
    expect(windowOffset(0, 280, 320, 50_000)).toBe(100);
    expect(windowOffset(100, 240, 290, 50_000)).toBe(100);
    // Scrolling back up: within 100 rows of the window's start.
    expect(windowOffset(200, 290, 340, 50_000)).toBe(100);
    // At either end of the list there is nothing more to fetch.
    expect(windowOffset(49_600, 49_950, 49_999, 50_000)).toBe(49_600);
    expect(windowOffset(100, 49_980, 49_999, 50_000)).toBe(49_600);
    expect(windowOffset(0, 5, 9, 10)).toBe(0);
  });
});

describe('pods view against the real backend', () => {
  it('lists 50,000 pods a window at a time, filters, sorts and moves by keyboard', async () => {
    render(<App client={new WindeckClient(inProcessTransport(env.services))} />);
    await screen.findByText('50000 pods', {}, { timeout: 20_000 });
    const grid = screen.getByRole('grid', { name: 'Pods' });
    expect(grid.getAttribute('aria-rowcount')).toBe(String(POD_COUNT + 1));
    // Only a window is in the DOM.
    const rows = within(grid).getAllByRole('row');
    expect(rows.length).toBeLessThan(POD_WINDOW_ROWS);
    expect(rows[1]!.textContent).toContain('pod-00000');
    expect(rows[1]!.textContent).toContain('linux');

    // Keyboard: End makes the last pod the active row (the DOM has no layout here: scrolling to it is checked in
    // Chromium by test/e2e/ui-console-more.test.ts).
    fireEvent.keyDown(grid, { key: 'ArrowDown' });
    expect(grid.getAttribute('aria-activedescendant')).toBe('pod-row-0');
    fireEvent.keyDown(grid, { key: 'ArrowDown' });
    expect(grid.getAttribute('aria-activedescendant')).toBe('pod-row-1');
    fireEvent.keyDown(grid, { key: 'End' });
    expect(grid.getAttribute('aria-activedescendant')).toBe(`pod-row-${POD_COUNT - 1}`);

    // Filters are applied by the store: phase, then search.
    fireEvent.change(screen.getByLabelText('Phase'), { target: { value: 'problems' } });
    await screen.findByText('1 matching pod', {}, { timeout: 20_000 });
    expect(within(grid).getByText('Error')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Phase'), { target: { value: 'all' } });
    fireEvent.change(screen.getByLabelText('Search'), { target: { value: 'pod-0001' } });
    await screen.findByText('10 matching pods', {}, { timeout: 20_000 });
    fireEvent.change(screen.getByLabelText('OS'), { target: { value: 'windows' } });
    await waitFor(() => expect(screen.getByText(/^\d+ matching pods$/).textContent).not.toBe('10 matching pods'), { timeout: 20_000 });
    expect(
      within(grid)
        .getAllByRole('row')
        .slice(1)
        .every((r) => r.textContent?.includes('windows')),
    ).toBe(true);

    // Sort by restarts, most first.
    fireEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    fireEvent.click(within(grid).getByRole('button', { name: /Restarts/ }));
    await waitFor(() => expect(within(grid).getAllByRole('row')[1]!.textContent).toContain('pod-00011'), { timeout: 20_000 });
  });
});
