import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WindeckError } from '../../../shared/contract/errors';
import { SCRIPT_IDS, type ScriptId } from './script-ids';

/** A shipped script: its text exactly as in scripts/<id>.ps1, its version from the first line, its hash. */
export interface LoadedScript {
  id: ScriptId;
  version: number;
  text: string;
  sha256: string;
}

/** `# windeck-script: <id> v<N>` on the first line of every script. */
export const SCRIPT_MARKER = /^# windeck-script: ([a-z0-9][a-z0-9-]*) v(\d+)$/;

/** The header sentence every script carries until someone has run it on a real Windows node. */
export const NEVER_RUN_NOTICE = 'this script has never run on a real Windows node';

/**
 * Where the .ps1 files are: WINDECK_SCRIPTS_DIR; else `scripts/` next to this module (source tree, tests);
 * else `powershell/scripts/` next to the bundle (dist/cli.js), where the build copies them.
 */
export function scriptDirCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const out: string[] = [];
  if (env.WINDECK_SCRIPTS_DIR) out.push(path.resolve(env.WINDECK_SCRIPTS_DIR));
  out.push(path.join(here, 'scripts'), path.join(here, 'powershell', 'scripts'));
  return out;
}

/** Check a script's text: marker line naming `id`, the never-run notice, CRLF-free-or-not does not matter. */
export function checkScriptText(id: string, text: string): { version: number } {
  const first = text.split(/\r?\n/, 1)[0] ?? '';
  const m = SCRIPT_MARKER.exec(first);
  if (!m || m[1] !== id) throw new WindeckError('INTERNAL', `The shipped script ${id}.ps1 does not start with "# windeck-script: ${id} v<N>".`);
  if (!text.includes(NEVER_RUN_NOTICE)) throw new WindeckError('INTERNAL', `The shipped script ${id}.ps1 lacks its "never run on Windows" notice.`);
  return { version: Number(m[2]) };
}

const cache = new Map<string, Promise<LoadedScript>>();

async function readFirst(dirs: string[], file: string): Promise<string> {
  let lastError: unknown = null;
  for (const dir of dirs) {
    try {
      return await fs.readFile(path.join(dir, file), 'utf8');
    } catch (error) {
      lastError = error;
    }
  }
  throw new WindeckError('INTERNAL', `The shipped script ${file} was not found (looked in ${dirs.join(', ')}). Reinstall Windeck or set WINDECK_SCRIPTS_DIR.`, undefined, { cause: lastError });
}

/** Load (once) the shipped script `id`. */
export function loadScript(id: ScriptId, dirs: string[] = scriptDirCandidates()): Promise<LoadedScript> {
  if (!(SCRIPT_IDS as readonly string[]).includes(id)) return Promise.reject(new WindeckError('VALIDATION', `Unknown script id "${String(id).slice(0, 64)}".`));
  const key = `${dirs.join('|')}::${id}`;
  let p = cache.get(key);
  if (!p) {
    p = (async () => {
      const text = await readFirst(dirs, `${id}.ps1`);
      const { version } = checkScriptText(id, text);
      return { id, version, text, sha256: crypto.createHash('sha256').update(text).digest('hex') };
    })();
    p.catch(() => cache.delete(key));
    cache.set(key, p);
  }
  return p;
}
