/**
 * Windows command lines (`sc qc` BINARY_PATH_NAME, Win32_Process.CommandLine, nssm AppParameters) split into
 * tokens, and flag lookup that understands `--flag=value`, `--flag value` and `-flag`.
 */

/** Split a command line the way CommandLineToArgvW does for the common cases (quotes, backslashes kept). */
export function splitCommandLine(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inQuote = false;
  let has = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && text[i + 1] === '"') {
      cur += '"';
      i++;
      has = true;
      continue;
    }
    if (c === '"') {
      inQuote = !inQuote;
      has = true;
      continue;
    }
    if (!inQuote && /\s/.test(c)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
      continue;
    }
    cur += c;
    has = true;
  }
  if (has) out.push(cur);
  return out;
}

/**
 * The value of a flag in `args`, `''` when present without value, null when absent. Matches `--name`,
 * `-name` and `--name=value`; a following token that is not a flag is taken as the value.
 */
export function flagValue(args: readonly string[], name: string): string | null {
  const bare = name.replace(/^-+/, '').toLowerCase();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const m = /^--?([A-Za-z0-9][A-Za-z0-9-]*)(?:=(.*))?$/.exec(a);
    if (!m || m[1]!.toLowerCase() !== bare) continue;
    if (m[2] !== undefined) return m[2].replace(/^"(.*)"$/, '$1');
    const next = args[i + 1];
    if (next !== undefined && !next.startsWith('-')) return next;
    return '';
  }
  return null;
}

/** The executable's base name (`C:\k\kubelet.exe` → `kubelet.exe`). */
export function executableName(args: readonly string[]): string | null {
  const first = args[0];
  if (!first) return null;
  const parts = first.split(/[\\/]/);
  return parts[parts.length - 1] ?? null;
}
