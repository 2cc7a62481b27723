import type { Handlers } from './handler';
import { appHandlers } from './handlers/app';
import { bundleHandlers } from './handlers/bundles';
import { diagnoseHandlers } from './handlers/diagnose';
import { nodeHandlers } from './handlers/nodes';
import { opsHandlers } from './handlers/ops';
import { probeHandlers } from './handlers/probes';
import { restartHandlers } from './handlers/restarts';

/** Every handler, one per contract method (add a domain's handlers with one spread line). */
export const HANDLERS: Handlers = {
  ...appHandlers,
  ...bundleHandlers,
  ...diagnoseHandlers,
  ...nodeHandlers,
  ...opsHandlers,
  ...probeHandlers,
  ...restartHandlers,
};
