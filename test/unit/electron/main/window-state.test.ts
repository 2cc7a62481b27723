import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_WINDOW_STATE, fitToDisplays, keepWindowState, readWindowState, writeWindowState, type Rect } from '../../../../electron/main/window-state';
import { tempDir } from '../../../helpers/temp-dir';

const laptop: Rect = { x: 0, y: 0, width: 1920, height: 1040 };
const rightMonitor: Rect = { x: 1920, y: 0, width: 2560, height: 1400 };

describe('fitToDisplays', () => {
  it('keeps a position that is on a display', () => {
    const state = { bounds: { x: 2000, y: 100, width: 1400, height: 900 }, maximized: false, fullScreen: false };
    expect(fitToDisplays(state, [laptop, rightMonitor])).toEqual(state);
  });

  it('drops the position when the monitor it was on is gone, so the window opens centred', () => {
    const state = { bounds: { x: 2000, y: 100, width: 1400, height: 900 }, maximized: true, fullScreen: false };
    expect(fitToDisplays(state, [laptop])).toEqual({ bounds: { width: 1400, height: 900 }, maximized: true, fullScreen: false });
  });

  it('drops a position whose title bar is above the screen (cannot be dragged back)', () => {
    const state = { bounds: { x: 100, y: -600, width: 1200, height: 900 }, maximized: false, fullScreen: false };
    expect(fitToDisplays(state, [laptop]).bounds).toEqual({ width: 1200, height: 900 });
  });

  it('clamps the size to the largest display and to the minimum', () => {
    expect(fitToDisplays({ bounds: { width: 5000, height: 4000 }, maximized: false, fullScreen: false }, [laptop]).bounds).toEqual({
      width: 1920,
      height: 1040,
    });
    expect(fitToDisplays({ bounds: { width: 100, height: 100 }, maximized: false, fullScreen: false }, [laptop]).bounds).toEqual({ width: 880, height: 560 });
  });
});

describe('window state file', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.cleanup());

  it('round-trips, and falls back to the default on a missing or broken file', () => {
    const file = path.join(tmp.dir, 'sub', 'window-state.json');
    expect(readWindowState(file)).toEqual(DEFAULT_WINDOW_STATE);
    const state = { bounds: { x: 5, y: 6, width: 1000, height: 700 }, maximized: false, fullScreen: true };
    writeWindowState(file, state);
    expect(readWindowState(file)).toEqual(state);
    fs.writeFileSync(file, '{"bounds": {"width": "wide"}');
    expect(readWindowState(file)).toEqual(DEFAULT_WINDOW_STATE);
    fs.writeFileSync(file, JSON.stringify({ bounds: { width: -5, height: 10 }, maximized: false, fullScreen: false }));
    expect(readWindowState(file)).toEqual(DEFAULT_WINDOW_STATE);
  });

  it('saves after moves (debounced) and at close, with the unmaximized bounds', () => {
    const file = path.join(tmp.dir, 'window-state.json');
    const timers: Array<() => void> = [];
    const win = Object.assign(new EventEmitter(), {
      bounds: { x: 1, y: 2, width: 1100, height: 800 },
      maximized: false,
      getNormalBounds() {
        return this.bounds;
      },
      isMaximized() {
        return this.maximized;
      },
      isFullScreen: () => false,
      isDestroyed: () => false,
    });
    const stop = keepWindowState(win, { file, setTimer: (fn) => timers.push(fn), clearTimer: () => undefined });
    win.emit('move');
    win.emit('resize');
    expect(fs.existsSync(file)).toBe(false);
    timers.at(-1)!();
    expect(readWindowState(file).bounds).toEqual({ x: 1, y: 2, width: 1100, height: 800 });
    win.maximized = true;
    win.bounds = { x: 30, y: 40, width: 1200, height: 900 };
    win.emit('close');
    expect(readWindowState(file)).toEqual({ bounds: { x: 30, y: 40, width: 1200, height: 900 }, maximized: true, fullScreen: false });
    stop();
    win.bounds = { x: 99, y: 99, width: 1000, height: 1000 };
    win.emit('close');
    expect(readWindowState(file).bounds.x).toBe(30);
  });
});
