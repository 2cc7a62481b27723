import { WindeckError } from '../../../../shared/contract/errors';
import type { Handlers } from '../handler';

export const opsHandlers: Pick<Handlers, 'ops:list' | 'ops:get' | 'ops:cancel'> = {
  'ops:list': (input, { core }) => core.ops.list(input.limit ?? 50),
  'ops:get': (input, { core }) => {
    const record = core.ops.get(input.operationId);
    if (!record) throw new WindeckError('NOT_FOUND', `No operation ${input.operationId}.`, { operationId: input.operationId });
    return record;
  },
  'ops:cancel': (input, { core }) => ({ cancelled: core.ops.cancel(input.operationId) }),
};
