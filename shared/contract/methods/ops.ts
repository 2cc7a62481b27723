import { z } from 'zod';
import { method } from '../method';
import { OperationRecord } from '../../domain/operation';

const OperationId = z.string().regex(/^op-[a-z0-9-]{6,64}$/, 'an operation id looks like op-...');

export const opsMethods = {
  /** Recent operations, newest first. */
  'ops:list': method({
    input: z.object({ limit: z.number().int().min(1).max(500).optional() }).strict(),
    output: z.array(OperationRecord),
    description: 'Recent operations (activity list), newest first.',
  }),
  /** One operation with its outcome. NOT_FOUND when unknown. */
  'ops:get': method({ input: z.object({ operationId: OperationId }).strict(), output: OperationRecord, description: 'One operation and its outcome.' }),
  /** Ask a running operation to stop; `cancelled: false` when it had already ended. */
  'ops:cancel': method({
    input: z.object({ operationId: OperationId }).strict(),
    output: z.object({ cancelled: z.boolean() }),
    description: 'Cancel a running operation.',
  }),
};
