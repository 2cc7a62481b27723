import crypto from 'node:crypto';
import { METHODS, isMethodName, type MethodName } from '../../../shared/contract/methods';
import { isWindeckError, type WindeckError } from '../../../shared/contract/errors';
import { err, ok, type Result } from '../../../shared/contract/result';
import type { ServiceCore } from '../create-services';
import type { CallContext, Handlers } from './handler';

export type { CallContext };
export type Dispatch = (method: string, input: unknown, ctx?: CallContext) => Promise<Result<unknown>>;

function describeIssues(error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> }): string {
  return error.issues
    .slice(0, 3)
    .map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/**
 * The one request path: method name -> zod parse -> handler -> Result. Throws never leave here: a WindeckError
 * becomes its envelope, anything else INTERNAL with a log reference (the stack stays in the local log).
 */
export function createDispatch(handlers: Handlers, core: ServiceCore): Dispatch {
  return async (method, input, ctx = {}) => {
    if (!isMethodName(method)) {
      return err({ code: 'VALIDATION', message: `Unknown method "${String(method).slice(0, 80)}".`, retryable: false });
    }
    const def = METHODS[method];
    const parsed = def.input.safeParse(input ?? {});
    if (!parsed.success) {
      return err({ code: 'VALIDATION', message: `Invalid input for ${method}: ${describeIssues(parsed.error)}.`, retryable: false });
    }
    try {
      const handler = handlers[method as MethodName] as (i: unknown, c: unknown) => unknown;
      const value = await handler(parsed.data, { ...ctx, core });
      return ok(value);
    } catch (error) {
      if (isWindeckError(error)) return err((error as WindeckError).toWire());
      const logRef = crypto.randomBytes(4).toString('hex');
      core.log.error('handler failed', { method, logRef, error: String((error as Error)?.stack ?? error) });
      return err({ code: 'INTERNAL', message: `Windeck hit an internal error in ${method} (log reference ${logRef}).`, retryable: false, context: { logRef } });
    }
  };
}
