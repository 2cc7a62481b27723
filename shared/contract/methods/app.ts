import { z } from 'zod';
import { method } from '../method';

export const HostKind = z.enum(['electron', 'web', 'cli', 'test']);
export type HostKind = z.infer<typeof HostKind>;

export const AppInfo = z.object({
  name: z.literal('Windeck'),
  version: z.string(),
  contractVersion: z.number().int(),
  host: HostKind,
  home: z.string(),
  storePath: z.string(),
  /** A one-sentence notice about the store (e.g. a corrupt file was moved aside), null when all is well. */
  storeNotice: z.string().nullable(),
  /** Set while a demo (simulated cluster) runs in this process or was registered in this home. */
  demo: z.object({ kubeconfig: z.string(), running: z.boolean() }).nullable(),
});
export type AppInfo = z.infer<typeof AppInfo>;

export const appMethods = {
  /** Facts about this Windeck process and its data directory. */
  'app:info': method({ input: z.object({}).strict(), output: AppInfo, description: 'Version, host kind, data directory and store state.' }),
};
