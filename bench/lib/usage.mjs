// `--help` / `-h` for a benchmark module: prints the module's header comment (its usage) and exits, so asking for
// help never starts a run that can take an hour.
import fs from 'node:fs';

/** Print the `//` comment block at the top of the file at `moduleUrl` (import.meta.url) and exit 0 when asked. */
export function helpAndExit(moduleUrl, args = process.argv.slice(2)) {
  if (!args.includes('--help') && !args.includes('-h')) return;
  const lines = fs.readFileSync(new URL(moduleUrl), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.startsWith('//'));
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('//'));
  console.log(
    lines
      .slice(start, end < 0 ? lines.length : end)
      .map((l) => l.replace(/^\/\/ ?/, ''))
      .join('\n'),
  );
  process.exit(0);
}
