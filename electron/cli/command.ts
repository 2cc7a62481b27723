import type { FlagSpec } from './args';
import type { CliIo } from './io';

/**
 * One `windeck` command. `run` returns the exit code (EXIT in exit-codes.ts); it throws WindeckError for failures,
 * which main.ts prints (or `{"error": ...}` with --json) and maps to an exit code.
 */
export interface CommandDef {
  name: string;
  summary: string;
  usage: string;
  /** Command-specific flags; the global ones (args.ts GLOBAL_FLAGS) are always accepted. */
  flags: FlagSpec;
  /** Absent while the command is not built yet: the CLI then says so plainly and exits 1. */
  run?: (io: CliIo) => Promise<number>;
  /** Why `run` is absent, said to the user. */
  notYet?: string;
}
