// Which packages the Node-side bundles (dist/cli.js, dist/start.js, dist/electron/main.js, dist/redact-worker.js)
// load from node_modules at run time, and which esbuild copies into the bundle.
//
// Loading a package from node_modules at start-up costs more than its code: Node resolves, reads and compiles each of
// its files, and an ESM import of a CommonJS package also runs cjs-module-lexer over every file. Measured on the
// 2-core CI machine (Node 20, `await import(name)` in a warm process): zod 95-117 ms (its ESM build is ~100 files),
// ws ~150 ms, js-yaml 15-21 ms; zod bundled into one file loads in ~30 ms. Every CLI command and the console's
// start-up paid that before doing anything.
//
// Bundled: pure JavaScript on the start-up path. External: native addons (better-sqlite3; ssh2 and cpu-features,
// whose `.node` files are found relative to their package), packages only imported lazily (secretlint, yauzl,
// @kubernetes/client-node), and electron. electron-builder still ships node_modules (the externals need it).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUNDLED_PACKAGES = ['zod', 'js-yaml', 'ws'];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** esbuild `external` for the Node-side bundles: every package.json dependency but BUNDLED_PACKAGES, with subpaths. */
export function nodeExternals(pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))) {
  const names = new Set(['electron']);
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
    for (const name of Object.keys(pkg[field] ?? {})) names.add(name);
  }
  for (const name of BUNDLED_PACKAGES) names.delete(name);
  return [...names].sort().flatMap((name) => [name, `${name}/*`]);
}

/**
 * esbuild plugin for the Node-side bundles: zod's `locales` namespace (every language's error messages, ~360 KB
 * of the CLI bundle, ~10-15 ms of every start on the CI machine) becomes an empty module. zod's own English
 * messages come from `locales/en.js`, which its schemas import directly and which stays. Nothing in Windeck uses
 * `z.locales` (test/unit/build/node-externals.test.ts checks the English messages and that no other language is
 * bundled). The renderer's Vite build drops the namespace by tree-shaking already.
 */
export const withoutZodLocales = {
  name: 'windeck-without-zod-locales',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'windeck-empty' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'windeck-empty' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};
