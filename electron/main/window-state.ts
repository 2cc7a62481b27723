import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * Window position and size, remembered across launches in `<home>/window-state.json`. Pure fitting logic (a saved
 * position on a monitor that is gone must not open the window off-screen) plus a small atomic file store.
 */

export const Rect = z.object({ x: z.number().int(), y: z.number().int(), width: z.number().int().positive(), height: z.number().int().positive() });
export type Rect = z.infer<typeof Rect>;

export const WindowState = z.object({
  bounds: Rect.partial({ x: true, y: true }),
  maximized: z.boolean(),
  fullScreen: z.boolean(),
});
export type WindowState = z.infer<typeof WindowState>;

export const DEFAULT_WINDOW_SIZE = { width: 1280, height: 820 } as const;
export const MIN_WINDOW_SIZE = { width: 880, height: 560 } as const;
/** A saved position counts as visible when at least this much of the window lies on one display's work area. */
const MIN_VISIBLE_PX = 120;

export const DEFAULT_WINDOW_STATE: WindowState = { bounds: { ...DEFAULT_WINDOW_SIZE }, maximized: false, fullScreen: false };

function overlap(a: Rect, b: Rect): { w: number; h: number } {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return { w: Math.max(0, w), h: Math.max(0, h) };
}

/**
 * Make a saved state safe for the displays we have now: size clamped to the largest work area and to the minimum
 * size; the position kept only when enough of the window (its top edge included, so it can be dragged) is on some
 * display, else dropped so the window opens centred.
 */
export function fitToDisplays(state: WindowState, workAreas: readonly Rect[]): WindowState {
  const maxW = Math.max(MIN_WINDOW_SIZE.width, ...workAreas.map((a) => a.width));
  const maxH = Math.max(MIN_WINDOW_SIZE.height, ...workAreas.map((a) => a.height));
  const width = Math.min(Math.max(state.bounds.width, MIN_WINDOW_SIZE.width), maxW);
  const height = Math.min(Math.max(state.bounds.height, MIN_WINDOW_SIZE.height), maxH);
  const { x, y } = state.bounds;
  let bounds: WindowState['bounds'] = { width, height };
  if (x !== undefined && y !== undefined) {
    const rect = { x, y, width, height };
    const titleBar = { x, y, width, height: Math.min(40, height) };
    const visible = workAreas.some((area) => {
      const body = overlap(rect, area);
      const top = overlap(titleBar, area);
      return body.w >= MIN_VISIBLE_PX && body.h >= Math.min(MIN_VISIBLE_PX, height) && top.w >= MIN_VISIBLE_PX && top.h > 0;
    });
    if (visible) bounds = { x, y, width, height };
  }
  return { bounds, maximized: state.maximized, fullScreen: state.fullScreen };
}

export function windowStatePath(home: string): string {
  return path.join(home, 'window-state.json');
}

/** The saved state, or the default when there is none or it does not parse (never throws). */
export function readWindowState(file: string): WindowState {
  try {
    const parsed = WindowState.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : DEFAULT_WINDOW_STATE;
  } catch {
    return DEFAULT_WINDOW_STATE;
  }
}

/** Write atomically (temp file + rename), so a crash mid-write leaves the previous state. */
export function writeWindowState(file: string, state: WindowState): void {
  const valid = WindowState.parse(state);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, JSON.stringify(valid, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(temp, file);
}

/** The part of a BrowserWindow the keeper reads. */
export interface TrackedWindow {
  getNormalBounds(): Rect;
  isMaximized(): boolean;
  isFullScreen(): boolean;
  isDestroyed(): boolean;
  on(event: 'resize' | 'move' | 'maximize' | 'unmaximize' | 'enter-full-screen' | 'leave-full-screen' | 'close', listener: () => void): unknown;
}

export interface WindowStateKeeperOptions {
  file: string;
  /** Quiet time after the last move/resize before writing. */
  debounceMs?: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  onError?: (error: unknown) => void;
}

/** Save the window's state after moves and resizes (debounced) and at close. Returns a disposer. */
export function keepWindowState(win: TrackedWindow, options: WindowStateKeeperOptions): () => void {
  const setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  let timer: unknown = null;
  let disposed = false;
  const save = (): void => {
    if (timer !== null) clearTimer(timer);
    timer = null;
    if (disposed || win.isDestroyed()) return;
    try {
      const b = win.getNormalBounds();
      writeWindowState(options.file, {
        bounds: { x: Math.round(b.x), y: Math.round(b.y), width: Math.round(b.width), height: Math.round(b.height) },
        maximized: win.isMaximized(),
        fullScreen: win.isFullScreen(),
      });
    } catch (error) {
      options.onError?.(error);
    }
  };
  const later = (): void => {
    if (timer !== null) clearTimer(timer);
    timer = setTimer(save, options.debounceMs ?? 500);
  };
  for (const event of ['resize', 'move'] as const) win.on(event, later);
  for (const event of ['maximize', 'unmaximize', 'enter-full-screen', 'leave-full-screen', 'close'] as const) win.on(event, save);
  return () => {
    if (timer !== null) clearTimer(timer);
    timer = null;
    disposed = true;
  };
}
