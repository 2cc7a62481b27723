// Bundle TypeScript sources into plain .mjs programs under bench/out/ (gitignored) for the benchmarks.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { nodeExternals, withoutZodLocales } from '../../build/node-externals.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const outDir = path.join(root, 'bench', 'out');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // As build/build.mjs: zod, js-yaml and ws bundled, native and lazily loaded packages from node_modules.
  external: nodeExternals(),
  plugins: [withoutZodLocales],
  logLevel: 'warning',
  loader: { '.ps1': 'text' },
  define: { WINDECK_VERSION: JSON.stringify(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version) },
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
};

/** Bundle `source` (TypeScript, absolute imports) to bench/out/<name>.mjs; returns the file. */
export async function bundleProgram(name, source) {
  fs.mkdirSync(outDir, { recursive: true });
  const outfile = path.join(outDir, `${name}.mjs`);
  await build({ ...common, stdin: { contents: source, resolveDir: root, loader: 'ts', sourcefile: `${name}.entry.ts` }, outfile });
  return outfile;
}

/**
 * The windeck CLI from the current sources (electron/cli/bin.ts, same options as build/build.mjs) as
 * bench/out/cli.mjs, so a stale dist/ is not what gets measured. Falls back to dist/cli.js when the sources do
 * not build right now (returns { file, from }).
 */
export async function windeckCli() {
  fs.mkdirSync(outDir, { recursive: true });
  const outfile = path.join(outDir, 'cli.mjs');
  try {
    await build({ ...common, entryPoints: [path.join(root, 'electron/cli/bin.ts')], outfile });
    // A bundle that builds can still fail to load (the tree is shared and changing): `--help` must run.
    const r = spawnSync(process.execPath, [outfile, '--help'], { encoding: 'utf8' });
    if (r.status !== 0) {
      const line = `${r.stderr}`.split('\n').find((l) => /Error/.test(l)) ?? `exit ${r.status}`;
      throw Object.assign(new Error(`the bundled CLI does not start: ${line}`), {
        errors: [{ text: `the bundled CLI does not start: ${line.slice(0, 200)}` }],
      });
    }
    return { file: outfile, from: 'sources (bench/out/cli.mjs)' };
  } catch (error) {
    const dist = path.join(root, 'dist', 'cli.js');
    if (!fs.existsSync(dist)) throw error;
    const why = error.errors?.[0]
      ? `${error.errors[0].text}${error.errors[0].location?.file ? ` (${error.errors[0].location.file})` : ''}`
      : String(error.message).split('\n')[0];
    return { file: dist, from: `dist/cli.js (sources did not build: ${why})` };
  }
}

/** `--name value` from argv, else fallback. */
export function flag(args, name, fallback) {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1] : fallback;
}

/**
 * The renderer built from the current sources with Vite into bench/out/renderer (same config as `npm run build`,
 * no source maps), so the UI benchmarks do not measure a stale dist/. Falls back to dist/renderer when the build
 * fails (returns { dir, from }).
 */
export async function rendererStatic() {
  const dir = path.join(outDir, 'renderer');
  try {
    const { build: viteBuild } = await import('vite');
    await viteBuild({
      configFile: path.join(root, 'build/vite.renderer.config.ts'),
      logLevel: 'warn',
      build: { outDir: dir, emptyOutDir: true, sourcemap: false },
    });
    if (!fs.existsSync(path.join(dir, 'index.html'))) throw new Error('no index.html');
    return { dir, from: 'sources (bench/out/renderer)' };
  } catch (error) {
    const dist = path.join(root, 'dist', 'renderer');
    if (!fs.existsSync(path.join(dist, 'index.html'))) throw error;
    return {
      dir: dist,
      from: `dist/renderer built ${fs.statSync(path.join(dist, 'index.html')).mtime.toISOString()} (sources did not build: ${String(error.message).split('\n')[0].slice(0, 200)})`,
    };
  }
}
