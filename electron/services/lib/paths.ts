import os from 'node:os';
import path from 'node:path';

/**
 * The data directory all hosts share (DESIGN.md section 2): WINDECK_HOME if set, else what Electron's
 * `app.getPath('userData')` gives for the product name `Windeck` on this platform.
 */
export function resolveHome(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, homedir: string = os.homedir()): string {
  if (env.WINDECK_HOME && env.WINDECK_HOME.trim() !== '') return path.resolve(env.WINDECK_HOME);
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(homedir, 'AppData', 'Roaming'), 'Windeck');
  if (platform === 'darwin') return path.join(homedir, 'Library', 'Application Support', 'Windeck');
  const xdg = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.trim() !== '' ? env.XDG_CONFIG_HOME : path.join(homedir, '.config');
  return path.join(xdg, 'Windeck');
}

export function storePath(home: string): string {
  return path.join(home, 'windeck.db');
}

export function demoDir(home: string): string {
  return path.join(home, 'demo');
}

export function logDir(home: string): string {
  return path.join(home, 'logs');
}
