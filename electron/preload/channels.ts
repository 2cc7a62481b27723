/**
 * The IPC channels between the preload and the main process. Kept in one tiny module with no imports so the
 * sandboxed preload bundle stays small; the main process imports the same names.
 */
export const IPC_CHANNELS = {
  /** invoke(method: string, input: unknown) -> Result. The only way the renderer reaches the backend. */
  call: 'windeck:call',
  /** send(): the renderer listens to events now; main starts forwarding them to this window. */
  ready: 'windeck:ready',
  /** main -> renderer: (event: EventName, payload). */
  event: 'windeck:event',
  /** send(paths: string[]): files dropped onto the window (bundles to import). */
  drop: 'windeck:drop',
} as const;
