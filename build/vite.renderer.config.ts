import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('../renderer/', import.meta.url));
const outDir = fileURLToPath(new URL('../dist/renderer/', import.meta.url));

/**
 * The renderer bundle: one static page served by the web host and loaded by the Electron window (file://), hence
 * relative asset paths (`base: './'`). No inline scripts, so a strict CSP (script-src 'self') holds.
 */
export default defineConfig({
  root,
  base: './',
  plugins: [react()],
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // Keep the module preload polyfill out: it would be an inline script under the CSP.
    modulePreload: { polyfill: false },
  },
  server: { host: '127.0.0.1', strictPort: false },
  preview: { host: '127.0.0.1' },
});
