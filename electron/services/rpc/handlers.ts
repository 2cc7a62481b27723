import type { Handlers } from './handler';
import { appHandlers } from './handlers/app';
import { nodeHandlers } from './handlers/nodes';
import { opsHandlers } from './handlers/ops';

/** Every handler, one per contract method (add a domain's handlers with one spread line). */
export const HANDLERS: Handlers = {
  ...appHandlers,
  ...nodeHandlers,
  ...opsHandlers,
};
