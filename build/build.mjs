// Builds everything `npm start`, the `windeck` bin and the Electron app run: plain JavaScript in dist/.
// Run by `npm ci` (prepare) and `npm run build`. esbuild for the Node and Electron sides, Vite for the renderer.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeExternals, withoutZodLocales } from './node-externals.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const exists = (p) => fs.existsSync(path.join(root, p));
const started = Date.now();

fs.mkdirSync(dist, { recursive: true });

const node = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // Native and lazily loaded packages stay in node_modules; zod, js-yaml and ws are bundled (start-up time; see
  // build/node-externals.mjs).
  external: nodeExternals(pkg),
  plugins: [withoutZodLocales],
  sourcemap: 'linked',
  logLevel: 'warning',
  loader: { '.ps1': 'text' },
  define: { WINDECK_VERSION: JSON.stringify(pkg.version) },
  // ESM output still meets CommonJS-only code in dependencies' shapes; give it require().
  banner: { js: "import { createRequire as __windeckCreateRequire } from 'node:module'; const require = __windeckCreateRequire(import.meta.url);" },
};

const jobs = [
  build({
    ...node,
    entryPoints: [path.join(root, 'electron/cli/bin.ts')],
    outfile: path.join(dist, 'cli.js'),
    banner: { js: '#!/usr/bin/env node\n' + node.banner.js },
  }),
  build({ ...node, entryPoints: [path.join(root, 'electron/start.ts')], outfile: path.join(dist, 'start.js') }),
  // The bundle's redaction worker threads (electron/services/bundle/worker-pool.ts looks for it next to the bundle
  // that runs: dist/cli.js, dist/start.js, dist/electron/main.js).
  build({ ...node, entryPoints: [path.join(root, 'electron/services/bundle/redact-worker.ts')], outfile: path.join(dist, 'redact-worker.js') }),
];
if (exists('electron/main/main.ts')) {
  jobs.push(build({ ...node, entryPoints: [path.join(root, 'electron/main/main.ts')], outfile: path.join(dist, 'electron/main.js') }));
}
if (exists('electron/preload/preload.ts')) {
  jobs.push(
    build({
      ...node,
      format: 'cjs',
      banner: {},
      entryPoints: [path.join(root, 'electron/preload/preload.ts')],
      outfile: path.join(dist, 'electron/preload.cjs'),
    }),
  );
}
await Promise.all(jobs);
fs.chmodSync(path.join(dist, 'cli.js'), 0o755);

// Shipped PowerShell scripts travel as files next to the bundle too (hashed by the probe catalogue).
const scripts = path.join(root, 'electron/services/powershell/scripts');
if (fs.existsSync(scripts)) fs.cpSync(scripts, path.join(dist, 'scripts'), { recursive: true });

if (exists('build/vite.renderer.config.ts')) {
  const { build: viteBuild } = await import('vite');
  await viteBuild({ configFile: path.join(root, 'build/vite.renderer.config.ts'), logLevel: 'warn' });
} else {
  console.warn('build: renderer not built (build/vite.renderer.config.ts missing)');
}
console.log(`build: dist/ ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
