import type { EventName, EventPayload } from '../../../shared/contract/events';

export type EventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

/** Fan-out of backend events to every host connection (IPC window, web sockets, CLI progress). */
export class EventBus {
  private readonly listeners = new Set<(event: EventName, payload: unknown) => void>();

  subscribe(listener: (event: EventName, payload: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event, payload);
      } catch {
        // A failing listener (a closed socket) must not stop the others.
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
