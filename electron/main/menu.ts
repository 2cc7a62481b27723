import type { MenuItemConstructorOptions } from 'electron';

/**
 * The native menu, as a template (pure; main.ts turns it into a Menu). Standard roles give the platform's own
 * shortcuts (copy/paste, zoom, full screen, quit); our items add Import bundle (CmdOrCtrl+O) and Report an issue.
 */
export interface MenuActions {
  importBundle(): void;
  /** Absent when no project issue URL is configured (package.json `bugs.url`); the item is then left out. */
  reportIssue?: () => void;
  about(): void;
  showDataFolder(): void;
}

export interface MenuOptions {
  platform: NodeJS.Platform;
  /** Reload and developer tools only in unpackaged builds. */
  dev: boolean;
}

export function buildMenuTemplate(actions: MenuActions, options: MenuOptions): MenuItemConstructorOptions[] {
  const mac = options.platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [];
  if (mac) {
    template.push({
      label: 'Windeck',
      submenu: [
        { label: 'About Windeck', click: () => actions.about() },
        { type: 'separator' },
        { role: 'hide' },
        { role: 'hideOthers' },
        { role: 'unhide' },
        { type: 'separator' },
        { role: 'quit' },
      ],
    });
  }
  template.push({
    label: mac ? 'File' : '&File',
    submenu: [
      { label: 'Import Bundle…', accelerator: 'CmdOrCtrl+O', click: () => actions.importBundle() },
      { label: 'Show Data Folder', click: () => actions.showDataFolder() },
      { type: 'separator' },
      mac ? { role: 'close' } : { role: 'quit', accelerator: 'Ctrl+Q' },
    ],
  });
  template.push({
    label: mac ? 'Edit' : '&Edit',
    submenu: [{ role: 'undo' }, { role: 'redo' }, { type: 'separator' }, { role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { role: 'selectAll' }],
  });
  const view: MenuItemConstructorOptions[] = [];
  if (options.dev) view.push({ role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }, { type: 'separator' });
  view.push({ role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }, { type: 'separator' }, { role: 'togglefullscreen' });
  template.push({ label: mac ? 'View' : '&View', submenu: view });
  template.push({
    label: mac ? 'Window' : '&Window',
    submenu: mac ? [{ role: 'minimize' }, { role: 'zoom' }, { type: 'separator' }, { role: 'front' }] : [{ role: 'minimize' }, { role: 'close' }],
  });
  template.push({
    label: mac ? 'Help' : '&Help',
    role: 'help',
    submenu: [
      ...(actions.reportIssue ? [{ label: 'Report an Issue…', click: actions.reportIssue }] : []),
      ...(mac ? [] : [{ label: 'About Windeck', click: () => actions.about() }]),
    ],
  });
  return template;
}
