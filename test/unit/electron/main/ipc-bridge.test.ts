import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createIpcBridge,
  refusalReason,
  type IpcBridge,
  type IpcMainPort,
  type IpcSenderEvent,
  type SenderContents,
} from '../../../../electron/main/ipc-bridge';
import { IPC_CHANNELS } from '../../../../electron/preload/channels';
import { createBridge } from '../../../../electron/preload/bridge';
import type { WindeckBridge } from '../../../../renderer/api/transport';
import { CONTRACT_VERSION } from '../../../../shared/contract/version';
import type { Result } from '../../../../shared/contract/result';
import { testServices } from '../../../helpers/services';

/** ipcMain as far as the bridge uses it: handlers and listeners we can invoke like Electron would. */
class FakeIpcMain implements IpcMainPort {
  readonly handlers = new Map<string, (event: IpcSenderEvent, ...args: unknown[]) => unknown>();
  readonly listeners = new Map<string, Set<(event: IpcSenderEvent, ...args: unknown[]) => void>>();
  handle(channel: string, listener: (event: IpcSenderEvent, ...args: unknown[]) => unknown): void {
    if (this.handlers.has(channel)) throw new Error(`second handler for ${channel}`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  on(channel: string, listener: (event: IpcSenderEvent, ...args: unknown[]) => void): this {
    if (!this.listeners.has(channel)) this.listeners.set(channel, new Set());
    this.listeners.get(channel)!.add(listener);
    return this;
  }
  removeListener(channel: string, listener: (event: IpcSenderEvent, ...args: unknown[]) => void): this {
    this.listeners.get(channel)?.delete(listener);
    return this;
  }
  async invoke(event: IpcSenderEvent, channel: string, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    // Electron structured-clones arguments and answers.
    return structuredClone(await handler(event, ...structuredClone(args)));
  }
  emit(event: IpcSenderEvent, channel: string, ...args: unknown[]): void {
    for (const l of this.listeners.get(channel) ?? []) l(event, ...structuredClone(args));
  }
}

class FakeContents implements SenderContents {
  readonly sent: Array<{ channel: string; args: unknown[] }> = [];
  destroyed = false;
  private onDestroyed: Array<() => void> = [];
  constructor(
    readonly id: number,
    public url = 'windeck://app/index.html',
  ) {}
  send(channel: string, ...args: unknown[]): void {
    if (this.destroyed) throw new Error('Object has been destroyed');
    this.sent.push({ channel, args: structuredClone(args) });
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  getURL(): string {
    return this.url;
  }
  once(_event: 'destroyed', listener: () => void): this {
    this.onDestroyed.push(listener);
    return this;
  }
  destroy(): void {
    this.destroyed = true;
    for (const l of this.onDestroyed.splice(0)) l();
  }
}

const frameEvent = (contents: FakeContents, url = contents.url, parent: unknown = null): IpcSenderEvent => ({ senderFrame: { url, parent }, sender: contents });

describe('IPC bridge', () => {
  let env: ReturnType<typeof testServices>;
  let ipc: FakeIpcMain;
  let bridge: IpcBridge;
  let ours: FakeContents;
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const drops: unknown[] = [];

  beforeEach(() => {
    env = testServices({ host: 'electron' });
    ipc = new FakeIpcMain();
    ours = new FakeContents(1);
    warnings.length = 0;
    drops.length = 0;
    bridge = createIpcBridge({
      ipcMain: ipc,
      services: env.services,
      isOwnContents: (c) => c.id === ours.id,
      onDrop: (paths) => drops.push(paths),
      log: { warn: (message, fields) => warnings.push({ message, ...(fields ? { fields } : {}) }) },
    });
  });
  afterEach(async () => {
    bridge.dispose();
    await env.cleanup();
  });

  it('dispatches a call from our window to the real services', async () => {
    const result = (await ipc.invoke(frameEvent(ours), IPC_CHANNELS.call, 'app:info', {})) as Result<{ name: string; host: string; home: string }>;
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.name).toBe('Windeck');
    expect(result.value.host).toBe('electron');
    expect(result.value.home).toBe(env.home);
  });

  it('lets the contract validate the arguments', async () => {
    const unknown = (await ipc.invoke(frameEvent(ours), IPC_CHANNELS.call, 'fs:readFile', { path: '/etc/passwd' })) as Result<unknown>;
    expect(unknown).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    const bad = (await ipc.invoke(frameEvent(ours), IPC_CHANNELS.call, 'app:info', { extra: true })) as Result<unknown>;
    expect(bad).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    const noName = (await ipc.invoke(frameEvent(ours), IPC_CHANNELS.call, 42, {})) as Result<unknown>;
    expect(noName).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
  });

  it.each([
    ['a file: page', 'file:///tmp/evil.html', null],
    ['an https page', 'https://github.com/kubernetes/kubernetes/issues/new', null],
    ['the web host', 'http://127.0.0.1:4000/', null],
    ['about:blank', 'about:blank', null],
    ['a lookalike scheme host', 'windeck://app.evil/index.html', null],
    ['a subframe of our own page', 'windeck://app/index.html', { url: 'windeck://app/index.html' }],
  ])('refuses a call from %s', async (_name, url, parent) => {
    const result = (await ipc.invoke(frameEvent(ours, url, parent), IPC_CHANNELS.call, 'app:info', {})) as Result<unknown>;
    expect(result).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(warnings.at(-1)?.message).toBe('refused IPC message');
  });

  it('refuses a call from a destroyed frame and from a webContents that is not ours', async () => {
    const gone = (await ipc.invoke({ senderFrame: null, sender: ours }, IPC_CHANNELS.call, 'app:info', {})) as Result<unknown>;
    expect(gone).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    const stranger = new FakeContents(7);
    const foreign = (await ipc.invoke(frameEvent(stranger), IPC_CHANNELS.call, 'app:info', {})) as Result<unknown>;
    expect(foreign).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(refusalReason(frameEvent(stranger), (c) => c.id === 1)).toMatch(/not a Windeck window/);
  });

  it('forwards events only after the window says it is ready, and stops when it is destroyed', async () => {
    env.services.core.changed(['nodes']);
    expect(ours.sent).toHaveLength(0);
    ipc.emit(frameEvent(ours), IPC_CHANNELS.ready);
    ipc.emit(frameEvent(ours), IPC_CHANNELS.ready); // a reload says ready again: still one subscription
    env.services.core.changed(['nodes'], 'demo', 'win-1');
    expect(ours.sent).toHaveLength(1);
    expect(ours.sent[0]).toMatchObject({ channel: IPC_CHANNELS.event, args: ['store:changed', { scopes: ['nodes'], cluster: 'demo', node: 'win-1' }] });
    expect(bridge.forwarding.has(1)).toBe(true);
    ours.destroy();
    env.services.core.changed(['nodes']);
    expect(ours.sent).toHaveLength(1);
    expect(bridge.forwarding.size).toBe(0);
  });

  it('does not forward events to a foreign frame that says ready, nor to a window whose page is no longer ours', () => {
    const stranger = new FakeContents(9);
    ipc.emit(frameEvent(stranger), IPC_CHANNELS.ready);
    ipc.emit(frameEvent(ours, 'https://evil.example/'), IPC_CHANNELS.ready);
    env.services.core.changed(['nodes']);
    expect(stranger.sent).toHaveLength(0);
    expect(ours.sent).toHaveLength(0);
    ipc.emit(frameEvent(ours), IPC_CHANNELS.ready);
    ours.url = 'file:///tmp/evil.html';
    env.services.core.changed(['nodes']);
    expect(ours.sent).toHaveLength(0);
  });

  it('passes drops from our window on, and ignores drops from others', () => {
    ipc.emit(frameEvent(ours), IPC_CHANNELS.drop, ['/tmp/a.zip']);
    ipc.emit(frameEvent(new FakeContents(5)), IPC_CHANNELS.drop, ['/tmp/b.zip']);
    ipc.emit(frameEvent(ours, 'file:///x'), IPC_CHANNELS.drop, ['/tmp/c.zip']);
    expect(drops).toEqual([['/tmp/a.zip']]);
  });

  it('removes its handlers on dispose', () => {
    bridge.dispose();
    expect(ipc.handlers.size).toBe(0);
    expect([...ipc.listeners.values()].every((s) => s.size === 0)).toBe(true);
  });

  it('serves the preload bridge end to end: call, subscribe, no IPC event object', async () => {
    // The preload side over a fake ipcRenderer wired to the fake ipcMain, as Electron would.
    const rendererListeners = new Map<string, Array<(event: unknown, ...args: unknown[]) => void>>();
    const contents = ours;
    const ipcEvent = { sender: 'the IPC event object', ports: [] };
    const originalSend = contents.send.bind(contents);
    contents.send = (channel, ...args) => {
      originalSend(channel, ...args);
      for (const l of rendererListeners.get(channel) ?? []) l(ipcEvent, ...structuredClone(args));
    };
    const api: WindeckBridge = createBridge(
      {
        invoke: (channel, ...args) => ipc.invoke(frameEvent(contents), channel, ...args),
        send: (channel, ...args) => ipc.emit(frameEvent(contents), channel, ...args),
        on: (channel, listener) => rendererListeners.set(channel, [...(rendererListeners.get(channel) ?? []), listener]),
      },
      CONTRACT_VERSION,
    );
    expect(api.contractVersion).toBe(CONTRACT_VERSION);
    const info = await api.call('app:info', {});
    expect(info).toMatchObject({ ok: true, value: { name: 'Windeck', host: 'electron' } });
    const seen: unknown[][] = [];
    const stop = api.subscribe((...args: unknown[]) => seen.push(args));
    env.services.core.changed(['findings'], 'c1', null);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toHaveLength(2);
    expect(seen[0]![0]).toBe('store:changed');
    expect(JSON.stringify(seen)).not.toContain('the IPC event object');
    stop();
    env.services.core.changed(['findings']);
    expect(seen).toHaveLength(1);
  });
});
