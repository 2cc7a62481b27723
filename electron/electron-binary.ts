import fs from 'node:fs';
import path from 'node:path';

export type ElectronBinary = { found: true; path: string } | { found: false; reason: string };

/**
 * Where the Electron binary is, without triggering electron's download-on-first-use (which throws, or hangs,
 * on a machine without internet). `packageDir` is node_modules/electron.
 */
export function findElectronBinary(packageDir: string, env: NodeJS.ProcessEnv = process.env): ElectronBinary {
  if (!fs.existsSync(path.join(packageDir, 'package.json'))) {
    return { found: false, reason: 'the electron package is not installed (npm ci installs it as a dev dependency)' };
  }
  const pathFile = path.join(packageDir, 'path.txt');
  const relative = fs.existsSync(pathFile) ? fs.readFileSync(pathFile, 'utf8').trim() : '';
  if (env.ELECTRON_OVERRIDE_DIST_PATH) {
    const candidate = path.join(env.ELECTRON_OVERRIDE_DIST_PATH, relative || 'electron');
    return fs.existsSync(candidate) ? { found: true, path: candidate } : { found: false, reason: `ELECTRON_OVERRIDE_DIST_PATH has no Electron binary at ${candidate}` };
  }
  if (!relative) {
    return {
      found: false,
      reason: 'the Electron binary has not been downloaded (electron fetches it on first use; run `npx install-electron` on a machine with internet access)',
    };
  }
  const full = path.join(packageDir, 'dist', relative);
  return fs.existsSync(full) ? { found: true, path: full } : { found: false, reason: `the Electron binary is missing at ${full}` };
}

/** A window needs a display on Linux. */
export function hasDisplay(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): boolean {
  return platform !== 'linux' || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}
