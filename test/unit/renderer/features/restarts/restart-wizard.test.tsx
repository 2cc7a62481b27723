// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WindeckClient } from '../../../../../renderer/api/client';
import { App } from '../../../../../renderer/app/app';
import { testServices } from '../../../../helpers/services';
import { inProcessTransport } from '../../in-process-transport';
import { nodeModel, seedCluster } from '../../seed';

let env: ReturnType<typeof testServices>;
beforeEach(() => {
  env = testServices();
  window.localStorage.clear();
});
afterEach(async () => {
  cleanup();
  await env.cleanup();
});

describe('restart wizard against the real backend', () => {
  it('plans through an operation and shows why planning failed when the node cannot be reached', async () => {
    seedCluster(env.services, { nodes: [nodeModel('win-1')] });
    window.location.hash = '#/nodes/win-1/restart';
    render(<App client={new WindeckClient(inProcessTransport(env.services))} />);
    await screen.findByRole('heading', { name: 'Restart a component on win-1' });
    expect(screen.getByRole('listitem', { current: 'step' }).textContent).toMatch(/Choose/);
    fireEvent.click(screen.getByRole('radio', { name: 'kubelet' }));
    fireEvent.click(screen.getByRole('button', { name: 'Plan the restart' }));
    // The store has the node but no way to reach its host: the plan operation fails, and the wizard says why.
    const back = await screen.findByRole('button', { name: 'Back' }, { timeout: 20_000 });
    expect(screen.getAllByRole('alert').some((a) => /win-1/.test(a.textContent ?? ''))).toBe(true);
    fireEvent.click(back);
    expect((screen.getByRole('radio', { name: 'kubelet' }) as HTMLInputElement).checked).toBe(true);
  });

  it('keeps live-only actions disabled, with the reason, when the cluster is offline', async () => {
    seedCluster(env.services, { syncState: 'offline', nodes: [nodeModel('win-1')] });
    window.location.hash = '#/nodes/win-1/restart';
    render(<App client={new WindeckClient(inProcessTransport(env.services))} />);
    const plan = await screen.findByRole('button', { name: 'Plan the restart' });
    expect((plan as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getAllByText(/Restarts need a live session: Cluster windeck-demo is unreachable/).length).toBeGreaterThan(0);
    const action = screen.getByRole('button', { name: 'Restart a component…' }) as HTMLButtonElement;
    expect(action.disabled).toBe(true);
    // The overview's layout panel shows its own probe button once its stored-probes query answers (after the plan
    // button, or before it on a busy machine): wait for it, so the count does not depend on which came first.
    const layout = (await screen.findByRole('button', { name: /detect the layout/ })) as HTMLButtonElement;
    expect(layout.disabled).toBe(true);
    expect(screen.getAllByText(/Needs a live session: Cluster windeck-demo is unreachable/).length).toBe(4); // refresh probes, run diagnosis, restart, layout
    expect((screen.getByRole('button', { name: 'Refresh probes' }) as HTMLButtonElement).disabled).toBe(true);
  });
});
