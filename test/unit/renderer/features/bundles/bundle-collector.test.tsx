// @vitest-environment happy-dom
import fs from 'node:fs';
import path from 'node:path';
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

describe('bundle collector against the real backend', () => {
  it('collects from the store while offline, previews the redaction and writes the zip where asked', async () => {
    seedCluster(env.services, { syncState: 'offline', nodes: [nodeModel('win-1')] });
    window.location.hash = '#/nodes/win-1/collect';
    render(<App client={new WindeckClient(inProcessTransport(env.services))} />);
    await screen.findByRole('heading', { name: 'Collect a bundle for win-1' });
    const storeOnly = screen.getByLabelText(/From the store only/) as HTMLInputElement;
    expect(storeOnly.checked).toBe(true);
    expect(storeOnly.disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Collect and preview' }));
    await screen.findByRole('heading', { name: 'Preview: what redaction found' }, { timeout: 20_000 });
    const files = screen.getAllByRole('rowheader').map((h) => h.textContent);
    expect(files.some((f) => f?.startsWith('nodes/win-1/'))).toBe(true);
    const output = screen.getByLabelText(/Save as/) as HTMLInputElement;
    expect(output.value.startsWith(path.join(env.home, 'bundles'))).toBe(true);
    const target = path.join(env.home, 'out', 'b.zip');
    fireEvent.change(output, { target: { value: target } });
    fireEvent.click(screen.getByRole('button', { name: 'Save bundle' }));
    await screen.findByText('Bundle written', undefined, { timeout: 20_000 });
    expect(screen.getByText(target)).toBeTruthy();
    expect(fs.statSync(target).size).toBeGreaterThan(100);
  });
});
