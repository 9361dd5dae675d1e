import type { InteractionEvent } from '../core/types.js';

export type EventListener = (event: InteractionEvent) => void;

/**
 * The process-local fan-out of store events to `subscribe()` listeners, shared by both stores.
 *
 * Delivery is always asynchronous (a microtask per listener), so a listener never runs inside the store call that
 * caused the event, and a listener removed before its turn is not called. A throwing listener cannot break the
 * others or the store: its error becomes a process warning.
 */
export class ListenerSet {
  private readonly listeners = new Set<EventListener>();

  add(listener: EventListener): () => void {
    // Wrap so the same function subscribed twice gets two independent subscriptions.
    const entry: EventListener = (event) => listener(event);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  emit(event: InteractionEvent): void {
    for (const listener of this.listeners) {
      queueMicrotask(() => {
        if (!this.listeners.has(listener)) return;
        try {
          listener(event);
        } catch (error) {
          process.emitWarning(error instanceof Error ? error : new Error(String(error)), 'AskgateListenerWarning');
        }
      });
    }
  }

  clear(): void {
    this.listeners.clear();
  }

  get size(): number {
    return this.listeners.size;
  }
}
