import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { BrowserWindowConstructorOptions } from 'electron';
import { createMainWindow, hardenContents, hardenSession, type BrowserWindowClass } from '../../../../electron/main/window';
import { DEFAULT_WINDOW_STATE } from '../../../../electron/main/window-state';

/** A session that records the handlers the factory installs. */
class FakeSession extends EventEmitter {
  permissionRequest?: (contents: unknown, permission: string, callback: (granted: boolean) => void, details: unknown) => void;
  permissionCheck?: (...args: unknown[]) => boolean;
  devicePermission?: (...args: unknown[]) => boolean;
  displayMedia?: (request: unknown, callback: (streams: unknown) => void) => void;
  setPermissionRequestHandler(h: FakeSession['permissionRequest']) {
    this.permissionRequest = h;
  }
  setPermissionCheckHandler(h: FakeSession['permissionCheck']) {
    this.permissionCheck = h;
  }
  setDevicePermissionHandler(h: FakeSession['devicePermission']) {
    this.devicePermission = h;
  }
  setDisplayMediaRequestHandler(h: FakeSession['displayMedia']) {
    this.displayMedia = h;
  }
}

class FakeWebContents extends EventEmitter {
  readonly session = new FakeSession();
  windowOpenHandler?: (details: { url: string }) => { action: string };
  setWindowOpenHandler(h: FakeWebContents['windowOpenHandler']) {
    this.windowOpenHandler = h;
  }
}

class FakeBrowserWindow extends EventEmitter {
  static made: FakeBrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  loaded: string | null = null;
  shown = false;
  maximized = false;
  constructor(readonly options: BrowserWindowConstructorOptions) {
    super();
    FakeBrowserWindow.made.push(this);
  }
  loadURL(url: string) {
    this.loaded = url;
    return Promise.resolve();
  }
  show() {
    this.shown = true;
  }
  maximize() {
    this.maximized = true;
  }
  setFullScreen() {}
}

function navigationEvent(url: string, extra: Record<string, unknown> = {}) {
  const event = {
    url,
    defaultPrevented: false,
    isMainFrame: true,
    ...extra,
    preventDefault() {
      event.defaultPrevented = true;
    },
  };
  return event;
}

function make(stateOverride = DEFAULT_WINDOW_STATE) {
  const opened: string[] = [];
  const warnings: string[] = [];
  const win = createMainWindow({
    BrowserWindow: FakeBrowserWindow as unknown as BrowserWindowClass,
    preloadPath: '/app/dist/electron/preload.cjs',
    state: stateOverride,
    openExternal: (url) => opened.push(url),
    log: { warn: (m) => warnings.push(m) },
    devTools: false,
  }) as unknown as FakeBrowserWindow;
  return { win, opened, warnings };
}

describe('window factory', () => {
  it('makes a sandboxed, isolated window without Node, loading our protocol', () => {
    const { win } = make();
    const prefs = win.options.webPreferences!;
    expect(prefs).toMatchObject({
      preload: '/app/dist/electron/preload.cjs',
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
      devTools: false,
    });
    expect(prefs).not.toHaveProperty('enableBlinkFeatures');
    expect(prefs).not.toHaveProperty('additionalArguments');
    expect(win.loaded).toBe('windeck://app/index.html');
    expect(win.options.show).toBe(false);
    win.emit('ready-to-show');
    expect(win.shown).toBe(true);
  });

  it('restores the saved bounds and maximized state', () => {
    const { win } = make({ bounds: { x: 10, y: 20, width: 1000, height: 700 }, maximized: true, fullScreen: false });
    expect(win.options).toMatchObject({ x: 10, y: 20, width: 1000, height: 700 });
    win.emit('ready-to-show');
    expect(win.maximized).toBe(true);
  });

  it('denies every window.open, sending only allowed GitHub issue URLs to the browser', () => {
    const { win, opened, warnings } = make();
    const handler = win.webContents.windowOpenHandler!;
    expect(handler({ url: 'https://github.com/kubernetes/kubernetes/issues/new?title=x' })).toEqual({ action: 'deny' });
    expect(handler({ url: 'file:///C:/Windows/System32/calc.exe' })).toEqual({ action: 'deny' });
    expect(handler({ url: 'https://github.com.evil.io/a/b/issues/new' })).toEqual({ action: 'deny' });
    expect(handler({ url: 'windeck://app/index.html' })).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://github.com/kubernetes/kubernetes/issues/new?title=x']);
    expect(warnings).toHaveLength(3);
  });

  it('blocks navigation away from the app, redirects and webviews', () => {
    const { win, opened } = make();
    for (const [name, url] of [
      ['will-navigate', 'https://evil.example/'],
      ['will-navigate', 'file:///etc/passwd'],
      ['will-redirect', 'http://127.0.0.1:9/'],
      ['will-navigate', 'https://github.com/kubernetes/kubernetes/issues/new'],
    ] as const) {
      const event = navigationEvent(url);
      win.webContents.emit(name, event);
      expect(event.defaultPrevented, `${name} ${url}`).toBe(true);
    }
    // An allowed GitHub link that the page tried to navigate to opens in the browser instead.
    expect(opened).toEqual(['https://github.com/kubernetes/kubernetes/issues/new']);
    const inside = navigationEvent('windeck://app/index.html');
    win.webContents.emit('will-navigate', inside);
    expect(inside.defaultPrevented).toBe(false);
    const subframe = navigationEvent('windeck://app/index.html', { isMainFrame: false });
    win.webContents.emit('will-frame-navigate', subframe);
    expect(subframe.defaultPrevented).toBe(true);
    const webview = navigationEvent('');
    win.webContents.emit('will-attach-webview', webview);
    expect(webview.defaultPrevented).toBe(true);
  });

  it('denies every permission request and check', () => {
    const { win } = make();
    const session = win.webContents.session;
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fullscreen', 'hid', 'serial', 'usb']) {
      let granted: boolean | null = null;
      session.permissionRequest!(win.webContents, permission, (g) => (granted = g), {});
      expect(granted, permission).toBe(false);
      expect(session.permissionCheck!(win.webContents, permission, 'windeck://app', {}), permission).toBe(false);
    }
    expect(session.devicePermission!({ deviceType: 'usb' })).toBe(false);
    let streams: unknown = 'unset';
    session.displayMedia!({}, (s) => (streams = s));
    expect(streams).toEqual({});
    const download = navigationEvent('');
    session.emit('will-download', download);
    expect(download.defaultPrevented).toBe(true);
    let chosen: unknown = 'unset';
    const serial = navigationEvent('');
    session.emit('select-serial-port', serial, [], win.webContents, (id: string) => (chosen = id));
    expect(serial.defaultPrevented).toBe(true);
    expect(chosen).toBe('');
  });

  it('hardens a webContents once, even when asked twice (web-contents-created and the factory)', () => {
    const contents = new FakeWebContents();
    const opened: string[] = [];
    const harden = () => hardenContents(contents as never, (u) => opened.push(u), { warn: () => undefined });
    harden();
    harden();
    expect(contents.listenerCount('will-navigate')).toBe(1);
    contents.emit('will-navigate', navigationEvent('https://github.com/a/b/issues/new'));
    expect(opened).toEqual(['https://github.com/a/b/issues/new']);
  });
});

describe('hardenSession', () => {
  it('installs its handlers once per session', () => {
    const session = new FakeSession();
    hardenSession(session as never);
    hardenSession(session as never);
    expect(session.listenerCount('will-download')).toBe(1);
    expect(session.permissionCheck!()).toBe(false);
  });
});
