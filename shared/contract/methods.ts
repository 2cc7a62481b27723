import type { z } from 'zod';
import { accessMethods } from './methods/access';
import { appMethods } from './methods/app';
import { bundleMethods } from './methods/bundles';
import { clusterMethods } from './methods/clusters';
import { diagnoseMethods } from './methods/diagnose';
import { nodeMethods } from './methods/nodes';
import { opsMethods } from './methods/ops';
import { podMethods } from './methods/pods';
import { probeMethods } from './methods/probes';
import { restartMethods } from './methods/restarts';

/**
 * Every contract method, declared once. Adding a call = one declaration in `methods/<domain>.ts`
 * (spread here) + one handler in `electron/services/rpc/handlers/<domain>.ts`.
 */
export const METHODS = {
  ...accessMethods,
  ...appMethods,
  ...bundleMethods,
  ...clusterMethods,
  ...diagnoseMethods,
  ...nodeMethods,
  ...opsMethods,
  ...podMethods,
  ...probeMethods,
  ...restartMethods,
} as const;

export type Methods = typeof METHODS;
export type MethodName = keyof Methods;
export type MethodInput<M extends MethodName> = z.input<Methods[M]['input']>;
export type MethodOutput<M extends MethodName> = z.infer<Methods[M]['output']>;

export function isMethodName(value: unknown): value is MethodName {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(METHODS, value);
}
