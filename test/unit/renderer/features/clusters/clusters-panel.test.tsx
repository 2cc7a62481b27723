// @vitest-environment happy-dom
import fs from 'node:fs';
import path from 'node:path';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WindeckClient } from '../../../../../renderer/api/client';
import { App } from '../../../../../renderer/app/app';
import { clusterRows } from '../../../../../renderer/features/clusters/clusters-panel';
import type { KubeContext } from '../../../../../shared/contract/methods/clusters';
import type { ClusterSummary } from '../../../../../shared/domain/cluster';
import { testServices } from '../../../../helpers/services';
import { waitFor } from '../../../../helpers/temp-dir';
import { inProcessTransport } from '../../in-process-transport';
import { nodeModel, seedCluster } from '../../seed';

// The clusters panel over the real services and store (in-process transport): stored clusters with their sync state,
// adding a kubeconfig by path with the error in place, forgetting a cluster after confirmation.

let env: ReturnType<typeof testServices>;

beforeEach(() => {
  env = testServices({ env: { KUBECONFIG: '', HOME: '/nonexistent-windeck-home' } });
  window.location.hash = '';
  window.localStorage.clear();
});

afterEach(async () => {
  cleanup();
  await env.cleanup();
});

function kubeconfigText(context: string, server: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${context}`,
    '  cluster:',
    `    server: ${server}`,
    '    insecure-skip-tls-verify: true',
    'users:',
    `- name: ${context}-user`,
    '  user:',
    '    token: not-a-real-token',
    'contexts:',
    `- name: ${context}`,
    '  context:',
    `    cluster: ${context}`,
    `    user: ${context}-user`,
    '    namespace: ops',
    `current-context: ${context}`,
    '',
  ].join('\n');
}

async function openPanel() {
  render(<App client={new WindeckClient(inProcessTransport(env.services))} />);
  const toggle = await screen.findByText('Add cluster · switch context');
  fireEvent.click(toggle);
  // happy-dom does not toggle <details> on a summary click: open it the way the browser would.
  const details = toggle.closest('details')!;
  if (!details.open) {
    details.open = true;
    details.dispatchEvent(new Event('toggle'));
  }
  return screen.findByRole('heading', { name: 'Clusters and kubeconfig contexts' });
}

describe('clusters panel', () => {
  it('lists stored clusters with state and age, marks the demo simulated, and says auth failed', async () => {
    seedCluster(env.services, { nodes: [nodeModel('win-1')] });
    const prod = seedCluster(env.services, {
      id: 'prod@/k/prod.yaml',
      name: 'prod',
      simulated: false,
      syncState: 'auth-failed',
      syncedAt: Date.now() - 2 * 3600_000,
      nodes: [nodeModel('win-9')],
    });
    env.services.core.repos.clusters.setSync(prod, 'auth-failed', { error: 'The API server rejected the credentials of user "ops" (401 Unauthorized).' });
    await openPanel();
    const demoRow = await screen.findByRole('listitem', { name: 'Cluster windeck-demo' });
    expect(within(demoRow).getByText('simulated')).toBeTruthy();
    expect(within(demoRow).getByRole('group', { name: 'windeck-demo: sync state' }).textContent).toMatch(/^live.*synced 3 min ago/);
    const prodRow = screen.getByRole('listitem', { name: 'Cluster prod' });
    expect(within(prodRow).queryByText('simulated')).toBeNull();
    expect(within(prodRow).getByRole('group', { name: 'prod: sync state' }).textContent).toMatch(/auth failed.*synced 2 h ago/);
    expect(within(prodRow).getByText(/Last error: .*401 Unauthorized/)).toBeTruthy();
    expect(within(prodRow).getByRole('button', { name: 'Switch to prod' })).toBeTruthy();
    expect(within(prodRow).getByRole('button', { name: 'Sync now prod' })).toBeTruthy();
  });

  it('adds a kubeconfig by path: errors in place with a retry, then its context is listed', async () => {
    seedCluster(env.services, { nodes: [nodeModel('win-1')] });
    await openPanel();
    const field = screen.getByLabelText('Kubeconfig file path');
    fireEvent.change(field, { target: { value: 'relative/config' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add kubeconfig' }));
    const alert = await screen.findByText(/is not an absolute path/);
    expect(alert.closest('[role="alert"]')).toBeTruthy();

    const file = path.join(env.home, 'staging.yaml');
    fs.writeFileSync(file, 'clusters: [\n');
    fireEvent.change(field, { target: { value: file } });
    fireEvent.click(screen.getByRole('button', { name: 'Add kubeconfig' }));
    await screen.findByText(/staging\.yaml: is not valid YAML at line/);
    fs.writeFileSync(file, kubeconfigText('staging', 'https://127.0.0.1:9')); // fixed in place
    fireEvent.click(screen.getByRole('button', { name: 'Retry adding the kubeconfig' }));
    await screen.findByText(/: 1 context\./);
    const row = await screen.findByRole('listitem', { name: 'Cluster staging' });
    expect(row.textContent).toMatch(/https:\/\/127\.0\.0\.1:9 · user staging-user · namespace ops · current context/);
    expect(row.textContent).toMatch(/not synced yet/);
    expect(row.textContent).not.toMatch(/not-a-real-token/);
    expect(env.services.core.repos.settings.get('kubeconfigFiles')).toEqual([file]);
  });

  it('forgets a stored cluster only after the confirmation', async () => {
    seedCluster(env.services, { nodes: [nodeModel('win-1')] });
    const old = seedCluster(env.services, { id: 'old@/k/old.yaml', name: 'old', simulated: false, syncState: 'stale', nodes: [nodeModel('win-7')] });
    await openPanel();
    const row = await screen.findByRole('listitem', { name: 'Cluster old' });
    fireEvent.click(within(row).getByRole('button', { name: 'Forget… stored data of old' }));
    const confirm = within(row).getByRole('group', { name: 'Confirm forgetting old' });
    expect(env.services.core.repos.clusters.get(old)).not.toBeNull();
    fireEvent.click(within(confirm).getByRole('button', { name: 'Forget old' }));
    await waitFor(() => env.services.core.repos.clusters.get(old) === null);
    await waitFor(() => screen.queryByRole('listitem', { name: 'Cluster old' }) === null);
    expect(env.services.core.repos.nodes.listSummaries(old)).toEqual([]);
  });
});

describe('clusterRows', () => {
  const stored = (id: string, name: string): ClusterSummary => ({
    id,
    name,
    context: name,
    server: 'https://127.0.0.1:1',
    kubeconfigPath: '/k',
    simulated: false,
    kubernetesVersion: null,
    syncState: 'stale',
    syncError: null,
    syncedAt: 1,
    nodeCount: 0,
    windowsNodeCount: 0,
  });
  const ctx = (clusterId: string, name: string): KubeContext => ({
    clusterId,
    name,
    cluster: name,
    server: 'https://127.0.0.1:2',
    user: null,
    namespace: 'default',
    kubeconfigPath: '/k',
    origin: 'added',
    current: false,
    exec: null,
    problem: null,
  });

  it('joins stored clusters and contexts by id, stored first, contexts not stored after', () => {
    const rows = clusterRows([stored('a@/k', 'a'), stored('b@/k', 'b')], [ctx('c@/k', 'c'), ctx('a@/k', 'a')]);
    expect(rows.map((r) => [r.id, r.stored !== null, r.context !== null])).toEqual([
      ['a@/k', true, true],
      ['b@/k', true, false],
      ['c@/k', false, true],
    ]);
  });
});
