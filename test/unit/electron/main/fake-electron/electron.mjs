/* global process */
// A stand-in for the `electron` module at the edge of the process, so dist/electron/main.js (the real glue) can
// run under plain Node in main-wiring.test.ts. It records what main asks of Electron and lets the driver play
// Electron's part (ready, IPC messages, protocol requests, quit). It is not a test of Electron itself.
import { EventEmitter } from 'node:events';

export const record = {
  calls: [],
  windows: [],
  protocolHandlers: new Map(),
  ipcHandlers: new Map(),
  ipcListeners: new Map(),
  readyFired: false,
  menu: null,
  errors: [],
};
const log = (name, ...args) => record.calls.push({ name, args, afterReady: record.readyFired });

class FakeSession extends EventEmitter {
  constructor() {
    super();
    this.handlers = {};
  }
  setPermissionRequestHandler(h) {
    this.handlers.permissionRequest = h;
  }
  setPermissionCheckHandler(h) {
    this.handlers.permissionCheck = h;
  }
  setDevicePermissionHandler(h) {
    this.handlers.devicePermission = h;
  }
  setDisplayMediaRequestHandler(h) {
    this.handlers.displayMedia = h;
  }
}
const defaultSession = new FakeSession();
export const session = { defaultSession };

let nextId = 1;
class FakeWebContents extends EventEmitter {
  constructor() {
    super();
    this.id = nextId++;
    this.session = defaultSession;
    this.url = '';
    this.sent = [];
    this.destroyed = false;
  }
  setWindowOpenHandler(h) {
    this.windowOpenHandler = h;
  }
  send(channel, ...args) {
    this.sent.push({ channel, args });
  }
  isDestroyed() {
    return this.destroyed;
  }
  getURL() {
    return this.url;
  }
}

class App extends EventEmitter {
  constructor() {
    super();
    this.paths = { appData: process.env.FAKE_ELECTRON_APPDATA ?? '/nonexistent-appdata' };
    this.name = 'electron';
    this.quitRequested = 0;
    this.exitCode = null;
    this.isPackaged = false;
    let resolveReady;
    this.readyPromise = new Promise((r) => (resolveReady = r));
    this.fireReady = () => {
      record.readyFired = true;
      this.emit('ready');
      resolveReady();
    };
  }
  setName(name) {
    log('app.setName', name);
    this.name = name;
  }
  getPath(name) {
    if (!(name in this.paths)) throw new Error(`fake electron: no path ${name}`);
    return this.paths[name];
  }
  setPath(name, value) {
    log('app.setPath', name, value);
    if (record.readyFired) record.errors.push(`app.setPath(${name}) after ready`);
    this.paths[name] = value;
  }
  setAppUserModelId(id) {
    log('app.setAppUserModelId', id);
  }
  /** Chromium switches main.ts appends before ready (js-flags for the renderer). */
  commandLine = {
    switches: new Map(),
    appendSwitch(name, value = '') {
      log('app.commandLine.appendSwitch', name, value);
      if (record.readyFired) record.errors.push(`app.commandLine.appendSwitch(${name}) after ready`);
      this.switches.set(name, value);
    },
    hasSwitch(name) {
      return this.switches.has(name);
    },
    getSwitchValue(name) {
      return this.switches.get(name) ?? '';
    },
  };
  enableSandbox() {
    log('app.enableSandbox');
    if (record.readyFired) record.errors.push('app.enableSandbox after ready');
  }
  requestSingleInstanceLock() {
    log('app.requestSingleInstanceLock');
    return process.env.FAKE_ELECTRON_SECOND_INSTANCE !== '1';
  }
  whenReady() {
    return this.readyPromise;
  }
  getVersion() {
    return '0.0.0-fake';
  }
  getAppPath() {
    return process.cwd();
  }
  quit() {
    log('app.quit');
    this.quitRequested += 1;
    let prevented = false;
    this.emit('before-quit', { preventDefault: () => (prevented = true) });
    if (!prevented) this.emit('quit-done');
  }
  exit(code) {
    log('app.exit', code);
    this.exitCode = code;
    this.emit('quit-done');
  }
}
export const app = new App();

export class BrowserWindow extends EventEmitter {
  static getAllWindows() {
    return record.windows.filter((w) => !w.destroyed);
  }
  constructor(options) {
    super();
    if (!record.readyFired) record.errors.push('BrowserWindow before ready');
    this.options = options;
    this.webContents = new FakeWebContents();
    this.destroyed = false;
    this.focused = true;
    record.windows.push(this);
    app.emit('web-contents-created', {}, this.webContents);
  }
  loadURL(url) {
    this.webContents.url = url;
    log('win.loadURL', url);
    return Promise.resolve();
  }
  getNormalBounds() {
    return { x: 0, y: 0, width: this.options.width ?? 800, height: this.options.height ?? 600 };
  }
  isMaximized() {
    return false;
  }
  isFullScreen() {
    return false;
  }
  isMinimized() {
    return false;
  }
  isDestroyed() {
    return this.destroyed;
  }
  isFocused() {
    return this.focused;
  }
  show() {}
  focus() {}
  restore() {}
  maximize() {}
  setFullScreen() {}
  close() {
    this.emit('close');
    this.destroyed = true;
    this.webContents.destroyed = true;
    this.webContents.emit('destroyed');
    this.emit('closed');
    if (BrowserWindow.getAllWindows().length === 0) app.emit('window-all-closed');
  }
}

export const ipcMain = {
  handle(channel, fn) {
    log('ipcMain.handle', channel);
    record.ipcHandlers.set(channel, fn);
  },
  removeHandler(channel) {
    record.ipcHandlers.delete(channel);
  },
  on(channel, fn) {
    if (!record.ipcListeners.has(channel)) record.ipcListeners.set(channel, new Set());
    record.ipcListeners.get(channel).add(fn);
  },
  removeListener(channel, fn) {
    record.ipcListeners.get(channel)?.delete(fn);
  },
};

export const protocol = {
  registerSchemesAsPrivileged(schemes) {
    log('protocol.registerSchemesAsPrivileged', schemes);
    if (record.readyFired) record.errors.push('registerSchemesAsPrivileged after ready');
  },
  handle(scheme, fn) {
    log('protocol.handle', scheme);
    if (!record.readyFired) record.errors.push('protocol.handle before ready');
    record.protocolHandlers.set(scheme, fn);
  },
};

export const safeStorage = {
  isEncryptionAvailable: () => false,
  encryptString: () => {
    throw new Error('not available');
  },
  decryptString: () => {
    throw new Error('not available');
  },
  getSelectedStorageBackend: () => 'basic_text',
  setUsePlainTextEncryption: () => undefined,
};

export const screen = { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] };
export const Menu = {
  buildFromTemplate: (template) => ({ template }),
  setApplicationMenu: (menu) => {
    record.menu = menu;
  },
};
export class Notification extends EventEmitter {
  static isSupported() {
    return false;
  }
}
export const dialog = {
  showErrorBox: (title, message) => record.errors.push(`showErrorBox: ${title}: ${message}`),
  showMessageBox: async () => ({ response: 0 }),
  showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
};
export const shell = {
  openExternal: async (url) => log('shell.openExternal', url),
  openPath: async (p) => log('shell.openPath', p),
};

// Electron fires ready after the ESM entry (and its static imports) has been evaluated; the driver calls
// app.fireReady() at that point.
export default { app, BrowserWindow, ipcMain, protocol, safeStorage, screen, Menu, Notification, dialog, shell, session };
