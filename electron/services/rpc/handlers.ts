import type { Handlers } from './handler';
import { accessHandlers } from './handlers/access';
import { appHandlers } from './handlers/app';
import { bundleHandlers } from './handlers/bundles';
import { clusterHandlers } from './handlers/clusters';
import { diagnoseHandlers } from './handlers/diagnose';
import { nodeHandlers } from './handlers/nodes';
import { opsHandlers } from './handlers/ops';
import { podHandlers } from './handlers/pods';
import { probeHandlers } from './handlers/probes';
import { restartHandlers } from './handlers/restarts';

/** Every handler, one per contract method (add a domain's handlers with one spread line). */
export const HANDLERS: Handlers = {
  ...accessHandlers,
  ...appHandlers,
  ...bundleHandlers,
  ...clusterHandlers,
  ...diagnoseHandlers,
  ...nodeHandlers,
  ...opsHandlers,
  ...podHandlers,
  ...probeHandlers,
  ...restartHandlers,
};
