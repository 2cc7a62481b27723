// @vitest-environment happy-dom
import fs from 'node:fs';
import path from 'node:path';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WindeckClient } from '../../../../../renderer/api/client';
import { App } from '../../../../../renderer/app/app';
import { testServices } from '../../../../helpers/services';
import { tempDir } from '../../../../helpers/temp-dir';
import { inProcessTransport } from '../../in-process-transport';

// Real samples (test/fixtures/samples, sources in SOURCES.md) diagnosed offline through the real backend.
const SAMPLES = path.resolve(import.meta.dirname, '../../../../fixtures/samples');
const PAUSE_LOG = 'logs/kubelet-log-pause-os-mismatch-0xc0370101.log';
const SUBNET_LOG = 'logs/kubelet-cni-flannel-vxlan0-subnet-env-missing-crashloop.log';

let env: ReturnType<typeof testServices>;
beforeEach(() => {
  env = testServices();
  window.localStorage.clear();
  window.location.hash = '#/import';
});
afterEach(async () => {
  cleanup();
  await env.cleanup();
});

function renderApp() {
  return render(<App client={new WindeckClient(inProcessTransport(env.services))} />);
}

describe('import view against the real backend', () => {
  it('diagnoses pasted text and shows the finding with its evidence', async () => {
    renderApp();
    await screen.findByRole('heading', { name: 'Import and diagnose offline' });
    fireEvent.change(screen.getByLabelText('Output or log text'), { target: { value: fs.readFileSync(path.join(SAMPLES, PAUSE_LOG), 'utf8') } });
    fireEvent.change(screen.getByLabelText(/File name, if you know it/), { target: { value: 'kubelet.log' } });
    fireEvent.click(screen.getByRole('button', { name: 'Diagnose text' }));
    await screen.findByRole('heading', { name: /findings from 1 inputs/ }, { timeout: 20_000 });
    const card = await screen.findByRole('article', { name: /^error: / });
    expect(card.textContent).toMatch(/pause-image-os-mismatch/);
    expect(card.querySelector('pre.excerpt')?.textContent?.length).toBeGreaterThan(0);
  });

  it('diagnoses a folder by path, listing every input with its kind', async () => {
    const dir = tempDir();
    try {
      for (const f of [PAUSE_LOG, SUBNET_LOG]) fs.copyFileSync(path.join(SAMPLES, f), path.join(dir.dir, path.basename(f)));
      fs.writeFileSync(path.join(dir.dir, 'notes.bin'), Buffer.from([0, 1, 2, 3, 255]));
      renderApp();
      fireEvent.change(await screen.findByLabelText(/A Windeck bundle/), { target: { value: dir.dir } });
      fireEvent.click(screen.getByRole('button', { name: 'Diagnose' }));
      await screen.findByRole('heading', { name: /findings from 3 inputs/ }, { timeout: 30_000 });
      const ids = screen.getAllByRole('article').map((a) => a.textContent ?? '');
      expect(ids.some((t) => t.includes('pause-image-os-mismatch'))).toBe(true);
      expect(ids.some((t) => t.includes('flannel-subnet-env-missing'))).toBe(true);
      expect(screen.getByText(/1 inputs were not recognized/)).toBeTruthy();
    } finally {
      dir.cleanup();
    }
  });

  it('refuses archives dropped as files with the reason, and diagnoses the text files of the same drop', async () => {
    renderApp();
    await screen.findByRole('heading', { name: 'Import and diagnose offline' });
    const text = fs.readFileSync(path.join(SAMPLES, SUBNET_LOG), 'utf8');
    const files = [
      new File([text], 'kubelet.log', { type: 'text/plain' }),
      new File([new Uint8Array([80, 75, 3, 4])], 'bundle.zip', { type: 'application/zip' }),
    ];
    const input = document.getElementById('import-files') as HTMLInputElement;
    Object.defineProperty(input, 'files', { value: files });
    fireEvent.change(input);
    await screen.findByRole('heading', { name: /findings from 1 inputs/ }, { timeout: 20_000 });
    expect(screen.getByText(/bundle.zip: an archive cannot be read from a drop here/)).toBeTruthy();
    expect(screen.getAllByRole('article').some((a) => a.textContent?.includes('flannel-subnet-env-missing'))).toBe(true);
  });
});
