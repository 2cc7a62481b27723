// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WindeckClient } from '../../../../../renderer/api/client';
import { App } from '../../../../../renderer/app/app';
import { testServices } from '../../../../helpers/services';
import { waitFor } from '../../../../helpers/temp-dir';
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

describe('report composer against the real backend', () => {
  it('drafts the form from stored evidence, previews the user text live and offers copy and a GitHub URL', async () => {
    seedCluster(env.services, { nodes: [nodeModel('win-1', { health: 'error', ready: false, reasons: ['kube-proxy is stopped'] })] });
    window.location.hash = '#/nodes/win-1/report';
    render(<App client={new WindeckClient(inProcessTransport(env.services))} />);
    await screen.findByRole('heading', { name: 'Bug report for win-1' });
    const title = (await screen.findByLabelText('Title')) as HTMLInputElement;
    await waitFor(() => title.value.length > 0);
    const preview = await screen.findByRole('document', { name: 'Report preview' });
    expect(within(preview).getByRole('heading', { name: 'What happened?' })).toBeTruthy();
    const problem = screen.getByLabelText('What happened?') as HTMLTextAreaElement;
    fireEvent.change(problem, { target: { value: 'Pods on win-1 lost Service connectivity <img src=x onerror=alert(1)>' } });
    await waitFor(() => within(screen.getByRole('document', { name: 'Report preview' })).queryByText(/lost Service connectivity/), 5000);
    expect(document.querySelector('.markdown img')).toBeNull();
    expect(screen.getByRole('button', { name: 'Copy report Markdown' })).toBeTruthy();
    const link = screen.getByRole('link', { name: 'Open in GitHub' });
    expect(link.getAttribute('href')).toMatch(/^https:\/\/github\.com\/kubernetes\/kubernetes\/issues\/new\?/);
    expect(link.getAttribute('rel')).toContain('noopener');
    fireEvent.click(screen.getByRole('button', { name: 'Show Markdown source' }));
    expect(screen.getByLabelText('Report Markdown source').textContent).toContain('### What happened?');
  });
});
