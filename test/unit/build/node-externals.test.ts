import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';

/**
 * What the Node-side bundles load from node_modules at run time (build/node-externals.mjs). Start-up time of every
 * CLI command and of the console depends on it: zod, js-yaml and ws are bundled; native addons and the packages
 * only imported lazily stay external.
 */
const root = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

interface ExternalsModule {
  BUNDLED_PACKAGES: string[];
  nodeExternals(pkg?: unknown): string[];
  withoutZodLocales: Plugin;
}
const load = async (): Promise<ExternalsModule> => (await import(pathToFileURL(path.join(root, 'build', 'node-externals.mjs')).href)) as ExternalsModule;

describe('node-side bundle externals', () => {
  it('keeps native and lazily loaded packages external, with their subpaths, and bundles the rest', async () => {
    const { BUNDLED_PACKAGES, nodeExternals } = await load();
    const external = nodeExternals();
    for (const name of ['better-sqlite3', 'ssh2', '@kubernetes/client-node', '@secretlint/core', 'yauzl', 'electron', 'esbuild']) {
      expect(external).toContain(name);
      expect(external).toContain(`${name}/*`);
    }
    for (const name of BUNDLED_PACKAGES) {
      expect(Object.keys(pkg.dependencies)).toContain(name);
      expect(external).not.toContain(name);
      expect(external).not.toContain(`${name}/*`);
    }
    // A package.json of its own: a new dependency is external unless it is named in BUNDLED_PACKAGES.
    expect(nodeExternals({ dependencies: { zod: '1', 'left-pad': '1' } })).toEqual(['electron', 'electron/*', 'left-pad', 'left-pad/*']);
  });

  it('the CLI bundle loads only better-sqlite3 from node_modules before its first lazy import', async () => {
    const { nodeExternals } = await load();
    const result = await build({
      entryPoints: [path.join(root, 'electron/cli/bin.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      external: nodeExternals(),
      loader: { '.ps1': 'text' },
      define: { WINDECK_VERSION: '"0.0.0-test"' },
      write: false,
      metafile: true,
      logLevel: 'silent',
      outfile: path.join(root, 'out-test', 'cli.js'),
    });
    const output = Object.values(result.metafile.outputs)[0];
    expect(output).toBeDefined();
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    const staticPackages = new Set(output!.imports.filter((i) => i.external && i.kind === 'import-statement' && !builtins.has(i.path)).map((i) => i.path));
    const lazyPackages = new Set(output!.imports.filter((i) => i.external && i.kind === 'dynamic-import').map((i) => i.path));
    expect([...staticPackages]).toEqual(['better-sqlite3']);
    expect(lazyPackages.has('ssh2') || !output!.imports.some((i) => /^ssh2(\/|$)/.test(i.path))).toBe(true); // loadSsh2 requires ssh2's client (createRequire) at the first dial
    // The bundled packages' own files are inputs of the bundle.
    const inputs = Object.keys(result.metafile.inputs);
    for (const name of ['zod', 'js-yaml', 'ws']) expect(inputs.some((f) => f.includes(`node_modules/${name}/`))).toBe(true);
  }, 60_000);

  it('the redaction worker bundle loads no zod (each worker thread would parse and run it again)', async () => {
    const { nodeExternals, withoutZodLocales } = await load();
    const result = await build({
      entryPoints: [path.join(root, 'electron/services/bundle/redact-worker.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      external: nodeExternals(),
      plugins: [withoutZodLocales],
      write: false,
      metafile: true,
      logLevel: 'silent',
      outfile: path.join(root, 'out-test', 'redact-worker.js'),
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs).toContain('electron/services/bundle/entry-pipeline.ts');
    expect(inputs.filter((f) => f.includes('node_modules/zod/'))).toEqual([]);
  }, 60_000);

  it('zod without its other languages: English messages stay, no other locale is bundled', async () => {
    const { withoutZodLocales } = await load();
    const bundle = async (plugins: Plugin[]) => {
      const result = await build({
        stdin: {
          contents: "import { z } from 'zod'; export const message = z.object({ name: z.string() }).safeParse({ name: 1 }).error?.issues[0]?.message;",
          resolveDir: root,
          loader: 'ts',
        },
        bundle: true,
        platform: 'node',
        format: 'esm',
        write: false,
        metafile: true,
        logLevel: 'silent',
        plugins,
        outfile: path.join(root, 'out-test', 'zod.mjs'),
      });
      const text = result.outputFiles[0]!.text;
      const inputs = Object.keys(result.metafile.inputs);
      const url = `data:text/javascript;base64,${Buffer.from(text).toString('base64')}`;
      const { message } = (await import(url)) as { message: string };
      return { bytes: text.length, locales: inputs.filter((f) => /node_modules\/zod\/v4\/locales\//.test(f)), message };
    };
    const plain = await bundle([]);
    const slim = await bundle([withoutZodLocales]);
    expect(plain.locales.length).toBeGreaterThan(20);
    expect(slim.locales.map((f) => path.basename(f))).toEqual(['en.js']);
    expect(slim.message).toBe(plain.message);
    expect(slim.message).toMatch(/expected string/);
    expect(slim.bytes).toBeLessThan(plain.bytes - 200_000);
  }, 60_000);
});
