import { DESKTOP_RENDERER_MAX_SEMI_SPACE_MB } from '../../shared/domain/limits';

/** The part of Electron's `app.commandLine` used here (tests pass a recording stand-in). */
export interface SwitchLine {
  appendSwitch(name: string, value?: string): void;
  hasSwitch(name: string): boolean;
  getSwitchValue(name: string): string;
}

/**
 * V8 flags for the window's renderer. `--max-semi-space-size` caps V8's young generation: under a steady stream of
 * node deltas the renderer allocates short-lived 5,000-row arrays several times a second and V8 grows each semi-space
 * towards 16 MB, which shows up as resident memory, not as live data (memory bench, 5,000 nodes / 50,000 pods,
 * 50 + 100 events/s: renderer anonymous RSS median 73 -> 51 MiB with a 2 MB cap, heap after GC unchanged).
 * bench/lib/chromium.mjs launches Chromium with the same flag (it reads the limit from shared/domain/limits.ts).
 */
export const RENDERER_JS_FLAGS: readonly string[] = [`--max-semi-space-size=${DESKTOP_RENDERER_MAX_SEMI_SPACE_MB}`];

function flagName(flag: string): string {
  return flag.split('=')[0]!.replace(/_/g, '-');
}

/**
 * Add RENDERER_JS_FLAGS to `--js-flags` (Chromium hands that switch to every renderer it starts); call before the
 * app is ready. Flags already given on the command line are kept, and one the user set themselves wins over ours.
 * Returns the resulting `--js-flags` value.
 */
export function applyRendererFlags(commandLine: SwitchLine): string {
  const given = commandLine.hasSwitch('js-flags') ? commandLine.getSwitchValue('js-flags').split(/\s+/).filter(Boolean) : [];
  const ours = RENDERER_JS_FLAGS.filter((flag) => !given.some((g) => flagName(g) === flagName(flag)));
  const value = [...given, ...ours].join(' ');
  if (ours.length > 0) commandLine.appendSwitch('js-flags', value);
  return value;
}
