import type { ServiceCore } from '../create-services';
import { defaultRestartPorts } from './default-ports';
import type { RestartPorts } from './ports';
import { RestartService } from './service';
import type { RestartTunables } from './tunables';

const KEY = 'restarts';

/** The restart service of these services (created on first use with the default ports). */
export function restartsOf(core: ServiceCore): RestartService {
  return core.lazy(KEY, (c) => new RestartService(c, defaultRestartPorts(c)));
}

/**
 * Install the restart service with explicit ports before first use (the demo, tests against the simulators).
 * Returns the installed one; if one was created already, that one is returned unchanged.
 */
export function installRestartService(core: ServiceCore, ports: RestartPorts, tunables: Partial<RestartTunables> = {}): RestartService {
  return core.lazy(KEY, (c) => new RestartService(c, ports, tunables));
}
