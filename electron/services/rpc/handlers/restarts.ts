import type { Handlers } from '../handler';
import { restartsOf } from '../../restart/restarts';

/**
 * Thin: the restart service does the work (electron/services/restart/). Operations are not tied to the call, so a
 * closed tab or a reload does not cancel a restart; `ops:cancel` does.
 */
export const restartHandlers: Pick<Handlers, 'restarts:plan' | 'restarts:execute' | 'restarts:result' | 'restarts:history'> = {
  'restarts:plan': (input, { core }) => ({ operationId: restartsOf(core).startPlan(input).operationId }),
  'restarts:execute': (input, { core }) => ({ operationId: restartsOf(core).startExecute(input).operationId }),
  'restarts:result': (input, { core }) => restartsOf(core).resultOf(input.operationId),
  'restarts:history': (input, { core }) => restartsOf(core).history(input),
};
