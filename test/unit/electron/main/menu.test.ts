import { describe, expect, it } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { buildMenuTemplate } from '../../../../electron/main/menu';

function flatten(items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flatten(i.submenu) : [])]);
}

describe('native menu', () => {
  const calls: string[] = [];
  const actions = { importBundle: () => calls.push('import'), about: () => calls.push('about'), showDataFolder: () => calls.push('data') };

  it('has Import Bundle on CmdOrCtrl+O and the standard roles with their shortcuts', () => {
    const items = flatten(buildMenuTemplate(actions, { platform: 'linux', dev: false }));
    const importItem = items.find((i) => i.label === 'Import Bundle…');
    expect(importItem?.accelerator).toBe('CmdOrCtrl+O');
    (importItem?.click as () => void)();
    expect(calls).toContain('import');
    const roles = items.map((i) => i.role).filter(Boolean);
    for (const role of ['quit', 'copy', 'paste', 'selectAll', 'zoomIn', 'zoomOut', 'resetZoom', 'togglefullscreen']) expect(roles).toContain(role);
  });

  it('offers reload and developer tools only in development builds', () => {
    const packaged = flatten(buildMenuTemplate(actions, { platform: 'win32', dev: false })).map((i) => i.role);
    expect(packaged).not.toContain('toggleDevTools');
    expect(packaged).not.toContain('reload');
    const dev = flatten(buildMenuTemplate(actions, { platform: 'win32', dev: true })).map((i) => i.role);
    expect(dev).toContain('toggleDevTools');
  });

  it('has the app menu on macOS, and Report an Issue only when a URL is configured', () => {
    const mac = buildMenuTemplate(actions, { platform: 'darwin', dev: false });
    expect(mac[0]!.label).toBe('Windeck');
    expect(flatten(mac).some((i) => i.label === 'Report an Issue…')).toBe(false);
    const withIssues = flatten(buildMenuTemplate({ ...actions, reportIssue: () => calls.push('issue') }, { platform: 'linux', dev: false }));
    expect(withIssues.some((i) => i.label === 'Report an Issue…')).toBe(true);
  });
});
