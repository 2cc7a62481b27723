import type { Services } from '../../../electron/services/create-services';
import type { ConnectionState, Transport } from '../../../renderer/api/transport';

/**
 * The renderer's Transport over real services in this process: calls go through the real `dispatch` (zod parse,
 * handlers, SQLite), events come from the real event bus. Results are JSON round-tripped as on the wire.
 */
export function inProcessTransport(services: Services): Transport {
  const state: ConnectionState = { status: 'open', attempt: 0, nextRetryAt: null, contractVersion: null, downSince: null, generation: 1 };
  return {
    kind: 'in-process',
    call: async (method, input) => JSON.parse(JSON.stringify(await services.dispatch(method, JSON.parse(JSON.stringify(input ?? {})), { host: 'test' }))),
    subscribe: (listener) => services.events.subscribe((event, payload) => listener(event, JSON.parse(JSON.stringify(payload)))),
    connection: () => state,
    onConnection: () => () => undefined,
    reconnectNow: () => undefined,
    dispose: () => undefined,
  };
}
