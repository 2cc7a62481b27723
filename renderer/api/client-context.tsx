import { createContext, useContext, useEffect, useLayoutEffect, useRef, useSyncExternalStore, type ReactNode } from 'react';
import type { EventName, EventPayload } from '../../shared/contract/events';
import type { WindeckClient } from './client';
import type { ConnectionState } from './transport';

const ClientContext = createContext<WindeckClient | null>(null);

/** Gives every screen the one contract client. */
export function ClientProvider({ client, children }: { client: WindeckClient; children: ReactNode }) {
  return <ClientContext.Provider value={client}>{children}</ClientContext.Provider>;
}

export function useClient(): WindeckClient {
  const client = useContext(ClientContext);
  if (!client) throw new Error('useClient needs a <ClientProvider> above it.');
  return client;
}

/** The live connection state (open, connecting, lost with the next retry time). */
export function useConnection(): ConnectionState {
  const client = useClient();
  return useSyncExternalStore(
    (notify) => client.onConnection(notify),
    () => client.connection(),
  );
}

/** Run `listener` for every `event` while the component is mounted (the latest listener is always used). */
export function useEvent<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): void {
  const client = useClient();
  const ref = useRef(listener);
  useLayoutEffect(() => {
    ref.current = listener;
  });
  useEffect(() => client.on(event, (payload) => ref.current(payload)), [client, event]);
}
