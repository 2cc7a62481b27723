// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WindeckClient } from '../../../../renderer/api/client';
import { App } from '../../../../renderer/app/app';
import { THEME_STORAGE_KEY } from '../../../../renderer/app/theme';
import { testServices } from '../../../helpers/services';
import { waitFor } from '../../../helpers/temp-dir';
import { inProcessTransport } from '../in-process-transport';
import { nodeModel, seedCluster } from '../seed';

let env: ReturnType<typeof testServices>;

beforeEach(() => {
  env = testServices();
  window.location.hash = '';
  window.localStorage.clear();
});

afterEach(async () => {
  cleanup();
  await env.cleanup();
});

function renderApp() {
  const client = new WindeckClient(inProcessTransport(env.services));
  return render(<App client={client} />);
}

describe('App shell', () => {
  it('says what to do when the store has no cluster', async () => {
    renderApp();
    await screen.findByRole('heading', { name: 'No cluster yet' });
    expect(within(screen.getByRole('region', { name: 'No cluster yet' })).getByText('windeck demo')).toBeTruthy();
    expect(screen.getByText(/add a kubeconfig/)).toBeTruthy();
    expect(screen.queryByText('SIMULATED DEMO CLUSTER')).toBeNull();
  });

  it('shows the demo cluster unmistakably, with its sync state and age, and its nodes', async () => {
    seedCluster(env.services, {
      nodes: [
        nodeModel('win-1'),
        nodeModel('win-2', { health: 'error', ready: false, reasons: ['kube-proxy is stopped'] }),
        nodeModel('linux-1', { os: 'linux' }),
      ],
    });
    renderApp();
    await screen.findByText('SIMULATED DEMO CLUSTER');
    const grid = await screen.findByRole('grid', { name: 'Nodes' });
    expect(within(grid).getByText('win-1')).toBeTruthy();
    expect(within(grid).getByText('kube-proxy is stopped')).toBeTruthy();
    expect(screen.getByRole('group', { name: /Sync state of windeck-demo/ }).textContent).toMatch(/live/);
    const strip = screen.getByRole('list', { name: 'Fleet summary' });
    expect(within(strip).getByRole('button', { name: /2 Windows nodes/ })).toBeTruthy();
    expect(within(strip).getByRole('button', { name: /1 unhealthy/ })).toBeTruthy();
  });

  it('renders markup in node names and reasons as text', async () => {
    const evil = '<img src=x onerror="window.__pwned=1">';
    seedCluster(env.services, { nodes: [nodeModel(evil, { reasons: ['<b>bold</b>'] })] });
    const { container } = renderApp();
    await screen.findByText(evil);
    expect(screen.getByText('<b>bold</b>')).toBeTruthy();
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
  });

  it('says the data is stored, with its age, when the cluster is offline', async () => {
    seedCluster(env.services, { syncState: 'offline', syncedAt: Date.now() - 10 * 60_000, nodes: [nodeModel('win-1')] });
    renderApp();
    await screen.findByText(/Cluster windeck-demo is unreachable. Showing the last stored state with its age/);
    expect(screen.getByRole('group', { name: /Sync state/ }).textContent).toMatch(/offline.*synced 10 min ago/);
  });

  it('re-reads when the store changes (pushed event, no polling)', async () => {
    const id = seedCluster(env.services, { nodes: [nodeModel('win-1')] });
    renderApp();
    await screen.findByText('win-1');
    env.services.core.repos.nodes.upsertMany(id, [nodeModel('win-new')]);
    expect(screen.queryByText('win-new')).toBeNull();
    env.services.core.changed(['nodes'], id, null);
    await screen.findByText('win-new', undefined, { timeout: 3000 });
  });

  it('filters, searches and sorts the fleet', async () => {
    seedCluster(env.services, {
      nodes: [nodeModel('win-a'), nodeModel('win-b', { health: 'error', reasons: ['hns network missing'] }), nodeModel('lin-c', { os: 'linux' })],
    });
    renderApp();
    const grid = await screen.findByRole('grid', { name: 'Nodes' });
    fireEvent.change(screen.getByLabelText('OS'), { target: { value: 'linux' } });
    await waitFor(() => within(grid).queryByText('win-a') === null);
    expect(within(grid).getByText('lin-c')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    fireEvent.change(screen.getByLabelText('Search'), { target: { value: 'hns' } });
    await waitFor(() => within(grid).queryByText('win-a') === null);
    expect(within(grid).getByText('win-b')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Search'), { target: { value: '' } });
    await waitFor(() => within(grid).queryByText('win-a'));
    const nameHeader = screen.getByRole('columnheader', { name: /Name/ });
    expect(nameHeader.getAttribute('aria-sort')).toBe('ascending');
    fireEvent.click(within(nameHeader).getByRole('button'));
    expect(nameHeader.getAttribute('aria-sort')).toBe('descending');
    const names = within(grid)
      .getAllByRole('row')
      .slice(1)
      .map((r) => r.querySelector('.cell-name')?.textContent);
    expect(names).toEqual(['win-b', 'win-a', 'lin-c']);
  });

  it('moves with the arrow keys and opens the node with Enter', async () => {
    seedCluster(env.services, { nodes: [nodeModel('win-1'), nodeModel('win-2'), nodeModel('win-3')] });
    renderApp();
    const grid = await screen.findByRole('grid', { name: 'Nodes' });
    await within(grid).findByText('win-3');
    act(() => grid.focus());
    fireEvent.keyDown(grid, { key: 'ArrowDown' });
    fireEvent.keyDown(grid, { key: 'ArrowDown' });
    expect(grid.getAttribute('aria-activedescendant')).toBe('node-row-win-3');
    fireEvent.keyDown(grid, { key: 'ArrowUp' });
    fireEvent.keyDown(grid, { key: 'Enter' });
    expect(window.location.hash).toBe('#/nodes/win-2');
    await screen.findByRole('heading', { name: 'win-2', level: 2 });
    await screen.findByRole('heading', { name: 'Conditions' });
    expect(screen.getByText('kubelet is posting ready status')).toBeTruthy();
  });

  it('says plainly when nothing is stored yet, and shows NOT_FOUND for an unknown node', async () => {
    seedCluster(env.services, { nodes: [nodeModel('win-1')] });
    window.location.hash = '#/nodes/win-1?tab=services';
    renderApp();
    await screen.findByText(/No probe results are stored for this node yet/);
    act(() => {
      window.location.hash = '#/nodes/win-1?tab=findings';
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    });
    await screen.findByText(/No findings are stored for this node/);
    act(() => {
      window.location.hash = '#/nodes/ghost';
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    });
    const alert = await screen.findByText(/Node "ghost" is not in the store/);
    expect(alert).toBeTruthy();
    expect(screen.getByText('Not found')).toBeTruthy();
  });

  it('persists the theme choice', async () => {
    renderApp();
    const select = await screen.findByLabelText('Theme');
    fireEvent.change(select, { target: { value: 'dark' } });
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(window.localStorage.getItem(THEME_STORAGE_KEY)).toBe('dark');
    fireEvent.change(select, { target: { value: 'light' } });
    expect(document.documentElement.dataset.theme).toBe('light');
    fireEvent.change(select, { target: { value: 'system' } });
    expect(window.localStorage.getItem(THEME_STORAGE_KEY)).toBeNull();
  });
});
