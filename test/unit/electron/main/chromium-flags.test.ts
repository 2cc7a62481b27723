import { describe, expect, it } from 'vitest';
import { applyRendererFlags, RENDERER_JS_FLAGS, type SwitchLine } from '../../../../electron/main/chromium-flags';
import { DESKTOP_RENDERER_MAX_SEMI_SPACE_MB } from '../../../../shared/domain/limits';

/** A command line like Electron's: appendSwitch of an existing switch replaces its value. */
function commandLine(initial: Record<string, string> = {}): SwitchLine & { switches: Map<string, string>; appended: string[] } {
  const switches = new Map(Object.entries(initial));
  const appended: string[] = [];
  return {
    switches,
    appended,
    appendSwitch(name, value = '') {
      appended.push(name);
      switches.set(name, value);
    },
    hasSwitch: (name) => switches.has(name),
    getSwitchValue: (name) => switches.get(name) ?? '',
  };
}

describe('renderer Chromium flags of the desktop window', () => {
  it('caps the renderer V8 semi-space through --js-flags', () => {
    const line = commandLine();
    expect(applyRendererFlags(line)).toBe(`--max-semi-space-size=${DESKTOP_RENDERER_MAX_SEMI_SPACE_MB}`);
    expect(line.switches.get('js-flags')).toBe(`--max-semi-space-size=${DESKTOP_RENDERER_MAX_SEMI_SPACE_MB}`);
    expect(RENDERER_JS_FLAGS).toEqual([`--max-semi-space-size=${DESKTOP_RENDERER_MAX_SEMI_SPACE_MB}`]);
  });

  it('keeps js-flags given on the command line and lets a semi-space size the user chose win', () => {
    const other = commandLine({ 'js-flags': '--expose-gc' });
    expect(applyRendererFlags(other)).toBe(`--expose-gc --max-semi-space-size=${DESKTOP_RENDERER_MAX_SEMI_SPACE_MB}`);
    const own = commandLine({ 'js-flags': '--max_semi_space_size=8 --expose-gc' });
    expect(applyRendererFlags(own)).toBe('--max_semi_space_size=8 --expose-gc');
    expect(own.appended).toEqual([]);
    expect(own.switches.get('js-flags')).toBe('--max_semi_space_size=8 --expose-gc');
  });

  it('is what the browser benchmarks launch Chromium with', async () => {
    // @ts-expect-error -- a plain .mjs bench helper without type declarations
    const bench = (await import('../../../../bench/lib/chromium.mjs')) as { productRendererArgs: () => string[] };
    const { productRendererArgs } = bench;
    expect(productRendererArgs()).toEqual([`--js-flags=${RENDERER_JS_FLAGS.join(' ')}`]);
  });
});
