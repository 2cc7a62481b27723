import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { CONTRACT_VERSION } from '../../shared/contract/version';
import { IPC_CHANNELS } from './channels';
import { createBridge, droppedPaths } from './bridge';

/**
 * The preload of the main window (sandboxed, context-isolated; bundled to dist/electron/preload.cjs). It exposes
 * exactly `window.windeck = { call, subscribe, contractVersion }` and turns file drops into one IPC message; the
 * main process checks the sender and imports the bundles through the contract.
 */
contextBridge.exposeInMainWorld('windeck', createBridge(ipcRenderer, CONTRACT_VERSION));

function hasFiles(event: DragEvent): boolean {
  return !!event.dataTransfer && Array.from(event.dataTransfer.types).includes('Files');
}

// Without this, dropping a file would ask Chromium to navigate to it (refused by will-navigate anyway).
window.addEventListener('dragover', (event) => {
  if (!hasFiles(event)) return;
  event.preventDefault();
  if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
});

window.addEventListener('drop', (event) => {
  if (!hasFiles(event)) return;
  event.preventDefault();
  const paths = droppedPaths(event.dataTransfer?.files, (file) => webUtils.getPathForFile(file as File));
  if (paths.length > 0) ipcRenderer.send(IPC_CHANNELS.drop, paths);
});
