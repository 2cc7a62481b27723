import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import yaml from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/temp-dir';

/**
 * Packaging config of the desktop app (issue 9). electron-builder cannot package here (no Electron binary, no
 * network), so this checks what can be checked without it: the config passes electron-builder's own schema
 * validation, says what the issue asks (fuses, targets, no auto-update), and the icons it names exist and are sound.
 */
const root = path.resolve(__dirname, '../../..');
const require = createRequire(import.meta.url);
const configPath = path.join(root, 'build', 'electron-builder.yml');

type Target = { target: string; arch?: string[] };
interface BuilderConfig {
  appId: string;
  productName: string;
  asar: boolean;
  asarUnpack: string[];
  files: string[];
  npmRebuild: boolean;
  publish: unknown;
  electronFuses: Record<string, boolean>;
  win: { icon: string; target: Target[] };
  linux: { icon: string; target: Target[] };
  mac: { icon: string; target: Target[] };
  directories: { output: string; buildResources: string };
}

const config = yaml.load(fs.readFileSync(configPath, 'utf8')) as BuilderConfig;

function pngSize(file: string): { width: number; height: number } {
  const b = fs.readFileSync(file);
  expect(b.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(b.subarray(12, 16).toString('ascii')).toBe('IHDR');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

describe('build/electron-builder.yml', () => {
  it('passes electron-builder’s own configuration validation', async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
      validateConfiguration(config: unknown, logger: { isEnabled: boolean; add(): void }): Promise<void>;
    };
    await expect(validateConfiguration(structuredClone(config), { isEnabled: false, add: () => undefined })).resolves.toBeUndefined();
    // The validation is real: a misspelt fuse is refused.
    const typo = structuredClone(config) as unknown as { electronFuses: Record<string, boolean> };
    typo.electronFuses.runAsNod = false;
    await expect(validateConfiguration(typo, { isEnabled: false, add: () => undefined })).rejects.toThrow(/Invalid configuration object/);
  });

  it('names the app and ships only the built output in an asar, native modules unpacked and rebuilt', () => {
    expect(config.appId).toBe('io.windeck.console');
    expect(config.productName).toBe('Windeck');
    expect(config.asar).toBe(true);
    expect(config.asarUnpack).toContain('**/*.node');
    expect(config.npmRebuild).toBe(true);
    expect(config.files).toEqual(expect.arrayContaining(['package.json', 'dist/**/*', '!dist/**/*.map']));
    expect(config.files.filter((f) => !f.startsWith('!')).every((f) => f === 'package.json' || f.startsWith('dist/') || f.startsWith('assets/'))).toBe(true);
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      main: string;
      devDependencies: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(pkg.main).toBe('dist/electron/main.js');
    expect(pkg.devDependencies.electron).toBeDefined();
    expect(pkg.dependencies.electron).toBeUndefined();
  });

  it('flips the security fuses', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
      enableEmbeddedAsarIntegrityValidation: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('builds NSIS + portable, AppImage + deb, and dmg, and never publishes or auto-updates', () => {
    expect(config.win.target.map((t) => t.target)).toEqual(['nsis', 'portable']);
    expect(config.linux.target.map((t) => t.target)).toEqual(['AppImage', 'deb']);
    expect(config.mac.target.map((t) => t.target)).toEqual(['dmg']);
    expect(config.publish).toBeNull();
    const pkg = fs.readFileSync(path.join(root, 'package.json'), 'utf8');
    expect(pkg).not.toMatch(/electron-updater/);
  });

  it('points at icons that exist: a 256-entry .ico, PNGs 16..1024', () => {
    const ico = fs.readFileSync(path.join(root, config.win.icon));
    expect(ico.readUInt16LE(2)).toBe(1);
    const count = ico.readUInt16LE(4);
    const sizes = Array.from({ length: count }, (_, i) => ico[6 + i * 16] || 256);
    expect(sizes).toEqual(expect.arrayContaining([16, 32, 48, 256]));
    for (let i = 0; i < count; i += 1) {
      const length = ico.readUInt32LE(6 + i * 16 + 8);
      const offset = ico.readUInt32LE(6 + i * 16 + 12);
      expect(offset + length).toBeLessThanOrEqual(ico.length);
      expect(ico.subarray(offset, offset + 4).toString('hex')).toBe('89504e47');
    }
    for (const size of [16, 32, 48, 64, 128, 256, 512, 1024]) {
      expect(pngSize(path.join(root, config.linux.icon, `${size}x${size}.png`))).toEqual({ width: size, height: size });
    }
    expect(pngSize(path.join(root, config.mac.icon))).toEqual({ width: 1024, height: 1024 });
  });
});

describe('assets/generate-icons.mjs', () => {
  const tmp = tempDir('windeck-icons-');
  afterAll(() => tmp.cleanup());

  it('reproduces the committed icons byte for byte', { timeout: 120_000 }, async () => {
    const { generate } = (await import(pathToFileURL(path.join(root, 'assets', 'generate-icons.mjs')).href)) as { generate(dir: string): void };
    generate(tmp.dir);
    for (const rel of ['icon.svg', 'icon.ico', 'icon.png', 'icons/16x16.png', 'icons/256x256.png', 'icons/1024x1024.png']) {
      expect(fs.readFileSync(path.join(tmp.dir, rel)).equals(fs.readFileSync(path.join(root, 'assets', rel))), rel).toBe(true);
    }
  });
});
