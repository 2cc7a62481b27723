// The Electron main process (HOST 1, DESIGN.md section 1): lifecycle, the one hardened window, the IPC bridge to
// the Electron-free services, and desktop niceties (single instance, window state, menu, notifications, drops).
// This file is the glue that needs the real Electron; each piece it wires is a module tested under Node.
import { app, BrowserWindow, dialog, ipcMain, Menu, Notification, protocol, safeStorage, screen, session, shell } from 'electron';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServices, type Services } from '../services/create-services';
import { startConsoleSource } from '../services/console-source';
import { resolveHome } from '../services/lib/paths';
import { preloadTransportsWhenIdle } from '../services/transports/preload';
import { DESKTOP_WINDOW_STATE_DEBOUNCE_MS } from '../../shared/domain/limits';
import { APP_SCHEME_PRIVILEGES, createAppProtocolHandler } from './app-protocol';
import { describeDrop, importBundles, validateDroppedPaths } from './bundle-drop';
import { applyRendererFlags } from './chromium-flags';
import { createIpcBridge, type IpcBridge } from './ipc-bridge';
import { buildMenuTemplate } from './menu';
import { OperationNotifier } from './notifier';
import { APP_SCHEME, isAllowedExternalUrl } from './policies';
import { ALLOW_PLAINTEXT_ENV, SafeStorageSecretStore } from './secret-store';
import { createMainWindow, hardenContents, hardenSession, type WindowLog } from './window';
import { fitToDisplays, keepWindowState, readWindowState, windowStatePath } from './window-state';

const here = path.dirname(fileURLToPath(import.meta.url)); // dist/electron
const distDir = path.resolve(here, '..');
const rendererDir = path.join(distDir, 'renderer');
const preloadPath = path.join(here, 'preload.cjs');
/** Settings key of the opt-in to the Linux plaintext keyring backend (see secret-store.ts). */
const ALLOW_PLAINTEXT_SETTING = 'secrets.allowPlaintextBackend';

// --- Before ready: name, data directory, sandbox for every renderer, our privileged scheme. ---
app.setName('Windeck');
// One data directory for the store, logs and Chromium's profile: WINDECK_HOME, else <appData>/Windeck, which is
// what resolveHome computes for the CLI and the web host, so all hosts share one store.
const home = process.env.WINDECK_HOME && process.env.WINDECK_HOME.trim() !== '' ? resolveHome(process.env) : path.join(app.getPath('appData'), 'Windeck');
app.setPath('userData', home);
// Windows shows notifications only for an app with a user model id (the installer's shortcut carries the same).
if (process.platform === 'win32') app.setAppUserModelId('io.windeck.console');
app.enableSandbox();
applyRendererFlags(app.commandLine);
protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);

let services: Services | null = null;
let bridge: IpcBridge | null = null;
let mainWindow: BrowserWindow | null = null;
const ownContents = new Set<number>();
let fallbackLog: WindowLog = { warn: (message, fields) => process.stderr.write(`windeck: ${message} ${fields ? JSON.stringify(fields) : ''}\n`) };
const log = (): WindowLog => services?.core.log.child('electron') ?? fallbackLog;

function openExternal(url: string): void {
  // Checked again here: this is the only call of shell.openExternal in the app.
  if (!isAllowedExternalUrl(url)) {
    log().warn('refused to open an external URL', { url: url.slice(0, 200) });
    return;
  }
  shell.openExternal(url).catch((error: unknown) => log().warn('could not open the browser', { error: String(error) }));
}

function focusMainWindow(): void {
  if (!mainWindow || mainWindow.isDestroyed()) return;
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.show();
  mainWindow.focus();
}

async function handleDroppedPaths(paths: unknown): Promise<void> {
  if (!services) return;
  const verdict = validateDroppedPaths(paths);
  const current = services;
  const outcomes = await importBundles(verdict.accepted, (method, input) => current.dispatch(method, input, { host: 'electron' }));
  const problems = describeDrop(verdict, outcomes);
  if (problems && mainWindow && !mainWindow.isDestroyed()) {
    await dialog.showMessageBox(mainWindow, { type: 'warning', title: 'Windeck', message: 'Some files were not imported.', detail: problems, buttons: ['OK'] });
  }
}

async function chooseBundles(): Promise<void> {
  const options = {
    title: 'Import Windeck bundle',
    properties: ['openFile', 'multiSelections'] as Array<'openFile' | 'multiSelections'>,
    filters: [{ name: 'Windeck bundle', extensions: ['zip'] }],
  };
  const answer = mainWindow && !mainWindow.isDestroyed() ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
  if (!answer.canceled && answer.filePaths.length > 0) await handleDroppedPaths(answer.filePaths);
}

function issuesUrl(): string | null {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(app.getAppPath(), 'package.json'), 'utf8')) as { bugs?: { url?: string } | string };
    const base = typeof pkg.bugs === 'string' ? pkg.bugs : pkg.bugs?.url;
    const url = base ? `${base.replace(/\/+$/, '')}/new` : null;
    return url && isAllowedExternalUrl(url) ? url : null;
  } catch {
    return null;
  }
}

function installMenu(): void {
  const reportUrl = issuesUrl();
  const template = buildMenuTemplate(
    {
      importBundle: () => void chooseBundles().catch((error: unknown) => log().warn('import failed', { error: String(error) })),
      ...(reportUrl ? { reportIssue: () => openExternal(reportUrl) } : {}),
      about: () =>
        void dialog.showMessageBox({
          type: 'info',
          title: 'About Windeck',
          message: `Windeck ${app.getVersion()}`,
          detail: `Offline-first console for Kubernetes Windows nodes.\nData folder: ${home}\nElectron ${process.versions.electron}, Chromium ${process.versions.chrome}, Node ${process.versions.node}`,
        }),
      showDataFolder: () => void shell.openPath(home),
    },
    { platform: process.platform, dev: !app.isPackaged },
  );
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

function iconPath(): string | undefined {
  const candidate = path.join(app.getAppPath(), 'assets', 'icons', '512x512.png');
  return fs.existsSync(candidate) ? candidate : undefined;
}

function openMainWindow(): BrowserWindow {
  const stateFile = windowStatePath(home);
  const state = fitToDisplays(
    readWindowState(stateFile),
    screen.getAllDisplays().map((d) => d.workArea),
  );
  const icon = iconPath();
  const win = createMainWindow({ BrowserWindow, preloadPath, state, openExternal, log: log(), devTools: !app.isPackaged, ...(icon ? { icon } : {}) });
  const id = win.webContents.id;
  ownContents.add(id);
  const stopKeeping = keepWindowState(win, {
    file: stateFile,
    debounceMs: DESKTOP_WINDOW_STATE_DEBOUNCE_MS,
    onError: (error) => log().warn('could not save the window state', { error: String(error) }),
  });
  win.webContents.on('render-process-gone', (_event, details) =>
    log().warn('the window renderer stopped', { reason: details.reason, exitCode: details.exitCode }),
  );
  win.on('closed', () => {
    stopKeeping();
    ownContents.delete(id);
    if (mainWindow === win) mainWindow = null;
  });
  mainWindow = win;
  return win;
}

function fail(title: string, error: unknown): void {
  dialog.showErrorBox(title, error instanceof Error ? error.message : String(error));
  app.exit(1);
}

async function start(): Promise<void> {
  const secretStore = new SafeStorageSecretStore(safeStorage, {
    allowPlaintextBackend: () => process.env[ALLOW_PLAINTEXT_ENV] === '1' || services?.core.repos.settings.get<boolean>(ALLOW_PLAINTEXT_SETTING) === true,
  });
  try {
    services = createServices({ home, host: 'electron', version: app.getVersion(), secretStore });
  } catch (error) {
    fail('Windeck could not open its local store', error);
    return;
  }
  const current = services;
  fallbackLog = current.core.log.child('electron');
  const unavailable = secretStore.unavailableReason();
  if (unavailable) fallbackLog.warn('credentials will not be stored', { reason: unavailable });

  hardenSession(session.defaultSession);
  protocol.handle(APP_SCHEME, createAppProtocolHandler({ rootDir: rendererDir }));
  bridge = createIpcBridge({
    ipcMain,
    services: current,
    isOwnContents: (contents) => ownContents.has(contents.id),
    onDrop: (paths) => void handleDroppedPaths(paths).catch((error: unknown) => log().warn('drop failed', { error: String(error) })),
    log: fallbackLog,
  });
  const notifier = new OperationNotifier({
    isWindowFocused: () => !!mainWindow && !mainWindow.isDestroyed() && mainWindow.isFocused(),
    notify: (notice) => {
      if (!Notification.isSupported()) return;
      const note = new Notification({ title: notice.title, body: notice.body });
      note.on('click', focusMainWindow);
      note.show();
    },
  });
  current.core.own({ dispose: current.events.subscribe(notifier.onEvent) });
  installMenu();
  openMainWindow();
  // Live sync of the kubeconfig's context, or the simulated demo when there is no kubeconfig at all.
  startConsoleSource(current)
    .then((source) => current.core.log.info('console source', { kind: source.kind, message: source.message }))
    .catch((error: unknown) => log().warn('console source failed', { error: String(error) }));
  preloadTransportsWhenIdle(current.core);
}

let quitting = false;

async function shutdown(): Promise<void> {
  bridge?.dispose();
  bridge = null;
  const current = services;
  services = null;
  if (current) await current.dispose();
}

if (!app.requestSingleInstanceLock()) {
  // Another Windeck with this data directory is running; it gets focus (second-instance) and we leave.
  app.quit();
} else {
  app.on('second-instance', focusMainWindow);
  // Every webContents, ours or not, gets the navigation and window-opening rules.
  app.on('web-contents-created', (_event, contents) => hardenContents(contents, openExternal, log()));
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (services && BrowserWindow.getAllWindows().length === 0) openMainWindow();
  });
  app.on('before-quit', (event) => {
    if (quitting) return;
    quitting = true;
    event.preventDefault();
    shutdown()
      .catch((error: unknown) => process.stderr.write(`windeck: shutdown: ${String(error)}\n`))
      .finally(() => app.quit());
  });
  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => fail('Windeck could not start', error));
}
