import { WindeckError } from '../../shared/contract/errors';

export type FlagKind = 'string' | 'boolean' | 'multi';
export type FlagSpec = Record<string, FlagKind>;

/** Flags every command takes (DESIGN.md section 10). */
export const GLOBAL_FLAGS: FlagSpec = {
  '--kubeconfig': 'string',
  '--context': 'string',
  '--home': 'string',
  '--offline': 'boolean',
  '--transport': 'string',
  '--json': 'boolean',
  '--help': 'boolean',
};

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | boolean | string[]>;
  string(name: string): string | undefined;
  bool(name: string): boolean;
  all(name: string): string[];
}

const SHORT: Record<string, string> = { '-h': '--help', '-n': '--namespace', '-o': '--output' };

/** Parse argv against the flags a command accepts; an unknown flag or a missing value is a usage error. */
export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const flags = new Map<string, string | boolean | string[]>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i] as string;
    if (raw === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!raw.startsWith('-') || raw === '-') {
      positionals.push(raw);
      continue;
    }
    const eq = raw.indexOf('=');
    let name = eq > 0 ? raw.slice(0, eq) : raw;
    name = SHORT[name] ?? name;
    const kind = spec[name];
    if (!kind) throw new WindeckError('VALIDATION', `Unknown option ${name}. See \`windeck --help\`.`);
    if (kind === 'boolean') {
      if (eq > 0) throw new WindeckError('VALIDATION', `Option ${name} takes no value.`);
      flags.set(name, true);
      continue;
    }
    let value: string | undefined = eq > 0 ? raw.slice(eq + 1) : argv[i + 1];
    if (eq <= 0) i++;
    if (value === undefined || (eq <= 0 && value.startsWith('--'))) throw new WindeckError('VALIDATION', `Option ${name} needs a value.`);
    if (kind === 'multi') {
      const list = (flags.get(name) as string[] | undefined) ?? [];
      list.push(value);
      flags.set(name, list);
    } else {
      flags.set(name, value);
    }
    value = undefined;
  }
  return {
    positionals,
    flags,
    string: (n) => {
      const v = flags.get(n);
      return typeof v === 'string' ? v : undefined;
    },
    bool: (n) => flags.get(n) === true,
    all: (n) => {
      const v = flags.get(n);
      return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
    },
  };
}
