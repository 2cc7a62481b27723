import { describe, expect, it } from 'vitest';
import { createBridge, droppedPaths, type IpcRendererPort } from '../../../../electron/preload/bridge';
import { IPC_CHANNELS } from '../../../../electron/preload/channels';

function fakeIpc(invoke: IpcRendererPort['invoke'] = async () => ({ ok: true, value: 1 })) {
  const sent: Array<{ channel: string; args: unknown[] }> = [];
  const listeners = new Map<string, Array<(event: unknown, ...args: unknown[]) => void>>();
  const port: IpcRendererPort = {
    invoke,
    send: (channel, ...args) => void sent.push({ channel, args }),
    on: (channel, listener) => listeners.set(channel, [...(listeners.get(channel) ?? []), listener]),
  };
  const push = (...args: unknown[]) => {
    for (const l of listeners.get(IPC_CHANNELS.event) ?? []) l({ senderId: 0 }, ...args);
  };
  return { port, sent, listeners, push };
}

describe('preload bridge', () => {
  it('exposes exactly call, subscribe and contractVersion', () => {
    const api = createBridge(fakeIpc().port, 3);
    expect(Object.keys(api).sort()).toEqual(['call', 'contractVersion', 'subscribe']);
    expect(api.contractVersion).toBe(3);
  });

  it('invokes only the call channel, with the method and input', async () => {
    const calls: unknown[][] = [];
    const api = createBridge(fakeIpc(async (...args) => (calls.push(args), { ok: true, value: 'v' })).port, 1);
    expect(await api.call('nodes:list', { cluster: 'c' })).toEqual({ ok: true, value: 'v' });
    expect(await api.call('app:info', undefined)).toEqual({ ok: true, value: 'v' });
    expect(calls).toEqual([
      [IPC_CHANNELS.call, 'nodes:list', { cluster: 'c' }],
      [IPC_CHANNELS.call, 'app:info', {}],
    ]);
  });

  it.each(['', 'nodes', 'NODES:LIST', 'nodes:list; rm', '__proto__', 'a'.repeat(100) + ':b'])('refuses the method name %j without IPC', async (name) => {
    let invoked = false;
    const api = createBridge(fakeIpc(async () => ((invoked = true), { ok: true, value: 1 })).port, 1);
    expect(await api.call(name, {})).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    expect(invoked).toBe(false);
  });

  it('answers a Result even when IPC fails or main answers garbage', async () => {
    const failing = createBridge(fakeIpc(async () => Promise.reject(new Error('An object could not be cloned.'))).port, 1);
    expect(await failing.call('app:info', {})).toMatchObject({
      ok: false,
      error: { code: 'INTERNAL', message: expect.stringContaining('could not be cloned') },
    });
    const garbage = createBridge(fakeIpc(async () => 'hello').port, 1);
    expect(await garbage.call('app:info', {})).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
  });

  it('says ready once, on the first subscribe, and hands listeners (event, payload) only', () => {
    const ipc = fakeIpc();
    const api = createBridge(ipc.port, 1);
    expect(ipc.sent).toEqual([]);
    const a: unknown[][] = [];
    const b: unknown[][] = [];
    const stopA = api.subscribe((...args: unknown[]) => {
      a.push(args);
      throw new Error('page listener bug');
    });
    api.subscribe((...args: unknown[]) => b.push(args));
    expect(ipc.sent).toEqual([{ channel: IPC_CHANNELS.ready, args: [] }]);
    expect(ipc.listeners.get(IPC_CHANNELS.event)).toHaveLength(1);
    ipc.push('ops:progress', { operationId: 'op-1' });
    expect(a).toEqual([['ops:progress', { operationId: 'op-1' }]]);
    expect(b).toEqual([['ops:progress', { operationId: 'op-1' }]]);
    stopA();
    ipc.push(42, 'not an event name');
    ipc.push('store:changed', {});
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(2);
    expect(() => api.subscribe('nope' as never)).toThrow(TypeError);
  });
});

describe('droppedPaths', () => {
  it('keeps files with a path and skips the rest', () => {
    const files = [{ name: 'a.zip' }, { name: 'blob' }, { name: 'b.zip' }, { name: 'throws' }];
    const paths = droppedPaths(files, (f) => {
      const name = (f as { name: string }).name;
      if (name === 'throws') throw new Error('not a File');
      return name === 'blob' ? '' : `/tmp/${name}`;
    });
    expect(paths).toEqual(['/tmp/a.zip', '/tmp/b.zip']);
    expect(droppedPaths(null, () => 'x')).toEqual([]);
  });
});

describe('results without a value', () => {
  it('passes { ok: true } through (a JSON frame drops an undefined value)', async () => {
    const api = createBridge(fakeIpc(async () => ({ ok: true })).port, 1);
    expect(await api.call('ops:cancel', { operationId: 'op-123456' })).toEqual({ ok: true });
  });
});
