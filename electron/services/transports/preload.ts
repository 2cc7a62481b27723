import { SSH_PRELOAD_AFTER_START_MS } from '../../../shared/domain/limits';
import type { Disposable, ServiceCore } from '../create-services';
import { loadSsh2 } from './ssh/connect';

/**
 * Console hosts (the Electron window, `windeck serve`, `windeck demo --serve`) load the SSH library a few seconds
 * after start-up instead of on the first probe. Loading ssh2 is synchronous work (~70 ms on an idle 2-core machine,
 * longer under load) that would otherwise block the event loop in the middle of the user's first fan-out (issue 10,
 * fan-out event-loop p99). Start-up itself stays free of it: answering from the store never needs ssh2. One-shot
 * CLI commands do not preload: they load ssh2 when they dial, or never.
 * Returns the timer as a Disposable (registered with the core, so shutdown clears it) and a promise that settles
 * once the load ran (true) or was cancelled / failed (false); a failure is logged and the first dial reports it.
 */
export function preloadTransportsWhenIdle(
  core: Pick<ServiceCore, 'log' | 'own'>,
  delayMs = SSH_PRELOAD_AFTER_START_MS,
): { loaded: Promise<boolean> } & Disposable {
  let settle: (value: boolean) => void = () => {};
  const loaded = new Promise<boolean>((resolve) => (settle = resolve));
  const timer = setTimeout(() => {
    loadSsh2().then(
      () => settle(true),
      (error: unknown) => {
        core.log.warn('ssh2 could not be preloaded; the first SSH connection will report it', { error: String(error) });
        settle(false);
      },
    );
  }, delayMs);
  timer.unref();
  const handle = {
    loaded,
    dispose() {
      clearTimeout(timer);
      settle(false);
    },
  };
  core.own(handle);
  return handle;
}
