import type { BrowserWindow, BrowserWindowConstructorOptions, Session, WebContents } from 'electron';
import { APP_ENTRY_URL, isAllowedExternalUrl, isAllowedNavigation } from './policies';
import { MIN_WINDOW_SIZE, type WindowState } from './window-state';

/**
 * The window factory: every Windeck window is made here, hardened the same way (Electron security checklist):
 * sandboxed, context-isolated renderer without Node, web security on, a preload that exposes only
 * `window.windeck`, navigation and new windows denied, `<webview>` refused, every permission denied. URLs may leave
 * the app only through `isAllowedExternalUrl` (GitHub issue pages) and `shell.openExternal`.
 *
 * Only electron *types* are imported: main.ts passes the real BrowserWindow class, tests a fake.
 */

export type BrowserWindowClass = new (options: BrowserWindowConstructorOptions) => BrowserWindow;

export interface WindowLog {
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface CreateWindowOptions {
  BrowserWindow: BrowserWindowClass;
  /** Absolute path of dist/electron/preload.cjs. */
  preloadPath: string;
  /** Restored, display-fitted state (window-state.ts). */
  state: WindowState;
  /** `shell.openExternal`, called only with URLs that passed isAllowedExternalUrl. */
  openExternal(url: string): void;
  log: WindowLog;
  /** Developer tools only in unpackaged builds. */
  devTools: boolean;
  /** Window/taskbar icon (Linux, Windows dev runs); packaged builds take theirs from the executable. */
  icon?: string;
  /** Page to load; defaults to windeck://app/index.html. */
  url?: string;
}

/** The webPreferences of every Windeck window. Exported so tests and the static scan see one source of truth. */
export function secureWebPreferences(preloadPath: string, devTools: boolean): NonNullable<BrowserWindowConstructorOptions['webPreferences']> {
  return {
    preload: preloadPath,
    sandbox: true,
    contextIsolation: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: false,
    devTools,
  };
}

const hardenedSessions = new WeakSet<object>();

/** Permissions every session refuses: all of them (the console needs no camera, notifications from pages, ...). */
export function hardenSession(session: Session): void {
  // main.ts hardens the default session and the factory hardens its window's (the same one): install once.
  if (hardenedSessions.has(session)) return;
  hardenedSessions.add(session);
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
  session.setDisplayMediaRequestHandler((_request, callback) => callback({}));
  session.on('will-download', (event) => event.preventDefault());
  session.on('select-hid-device', (event, _details, callback) => {
    event.preventDefault();
    callback();
  });
  session.on('select-serial-port', (event, _ports, _contents, callback) => {
    event.preventDefault();
    callback('');
  });
  session.on('select-usb-device', (event, _details, callback) => {
    event.preventDefault();
    callback();
  });
}

/**
 * Navigation and window-opening rules for any webContents (app.on('web-contents-created') applies them to all,
 * including ones we did not make). Allowed GitHub issue links go to the system browser; all else is dropped.
 */
const hardened = new WeakSet<object>();

export function hardenContents(contents: WebContents, openExternal: (url: string) => void, log: WindowLog): void {
  // web-contents-created and the window factory both call this for our window; the rules go on once.
  if (hardened.has(contents)) return;
  hardened.add(contents);
  const leave = (url: string, via: string): void => {
    if (isAllowedExternalUrl(url)) openExternal(url);
    else log.warn('blocked a URL leaving the app', { via, url: url.slice(0, 200) });
  };
  contents.setWindowOpenHandler(({ url }) => {
    leave(url, 'window.open');
    return { action: 'deny' };
  });
  const guard = (event: { preventDefault(): void }, url: string, via: string): void => {
    if (isAllowedNavigation(url)) return;
    event.preventDefault();
    leave(url, via);
  };
  contents.on('will-navigate', (event) => guard(event, event.url, 'navigation'));
  contents.on('will-frame-navigate', (event) => {
    // Subframes may not navigate at all (the app has none); the main frame is handled by will-navigate.
    if (!event.isMainFrame) {
      event.preventDefault();
      log.warn('blocked a subframe navigation', { url: event.url.slice(0, 200) });
    }
  });
  contents.on('will-redirect', (event) => guard(event, event.url, 'redirect'));
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    log.warn('blocked a <webview>');
  });
}

/** Make the main window: hardened, restored to its last state, shown when its first paint is ready. */
export function createMainWindow(options: CreateWindowOptions): BrowserWindow {
  const { bounds, maximized, fullScreen } = options.state;
  const win = new options.BrowserWindow({
    title: 'Windeck',
    ...bounds,
    minWidth: MIN_WINDOW_SIZE.width,
    minHeight: MIN_WINDOW_SIZE.height,
    show: false,
    backgroundColor: '#1b1d23',
    autoHideMenuBar: false,
    ...(options.icon ? { icon: options.icon } : {}),
    webPreferences: secureWebPreferences(options.preloadPath, options.devTools),
  });
  hardenSession(win.webContents.session);
  hardenContents(win.webContents, options.openExternal, options.log);
  win.once('ready-to-show', () => {
    if (maximized) win.maximize();
    if (fullScreen) win.setFullScreen(true);
    win.show();
  });
  win.loadURL(options.url ?? APP_ENTRY_URL).catch((error: unknown) => options.log.warn('the window could not load the app', { error: String(error) }));
  return win;
}
