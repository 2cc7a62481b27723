import type { MethodInput, MethodName, MethodOutput, Methods } from '../../../shared/contract/methods';
import type { z } from 'zod';
import type { ServiceCore } from '../create-services';
import type { HostKind } from '../../../shared/contract/methods/app';

/** Who is calling: the host kind and, for cancellation of in-flight calls, a signal. */
export interface CallContext {
  host?: HostKind;
  signal?: AbortSignal;
}

export interface HandlerContext extends CallContext {
  core: ServiceCore;
}

export type Handler<M extends MethodName> = (input: z.infer<Methods[M]['input']>, ctx: HandlerContext) => Promise<MethodOutput<M>> | MethodOutput<M>;

/** One handler per contract method; the compiler checks none is missing. */
export type Handlers = { [M in MethodName]: Handler<M> };

export type { MethodInput };
