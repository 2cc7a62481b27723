import { describe, expect, it } from 'vitest';
import { preloadTransportsWhenIdle } from '../../../../../electron/services/transports/preload';
import { ssh2Loaded } from '../../../../../electron/services/transports/ssh/connect';
import type { Disposable } from '../../../../../electron/services/create-services';

function fakeCore() {
  const owned: Disposable[] = [];
  const warnings: string[] = [];
  const log = { warn: (message: string) => warnings.push(message) } as unknown as Parameters<typeof preloadTransportsWhenIdle>[0]['log'];
  return { core: { log, own: (d: Disposable) => owned.push(d) }, owned, warnings };
}

// One file, one process: the order matters (ssh2 stays loaded once loaded).
describe('preloadTransportsWhenIdle', () => {
  it('does not load ssh2 when disposed before its delay (shutdown right after start)', async () => {
    const { core, owned } = fakeCore();
    const handle = preloadTransportsWhenIdle(core, 50);
    expect(owned).toEqual([handle]);
    await owned[0]!.dispose();
    expect(await handle.loaded).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ssh2Loaded()).toBe(false);
  });

  it('loads ssh2 after the delay, not before', async () => {
    const { core, warnings } = fakeCore();
    expect(ssh2Loaded()).toBe(false);
    const handle = preloadTransportsWhenIdle(core, 20);
    expect(ssh2Loaded()).toBe(false);
    expect(await handle.loaded).toBe(true);
    expect(ssh2Loaded()).toBe(true);
    expect(warnings).toEqual([]);
  });
});
