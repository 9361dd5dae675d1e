import type { Store } from './ports.js';
import { toPublicRecord } from './record.js';
import type { InteractionEvent, InteractionEventType, InteractionRecord } from './types.js';

/** An event as the doors send it: serialized once, however many subscribers read it. */
export interface PublishedEvent {
  type: InteractionEventType;
  record: InteractionRecord;
  json: string;
}

/**
 * One subscription to the store per process, fanned out to every local listener (SSE clients, sync waiters),
 * held only while there is one. Waiters are indexed by interaction id so a resolution wakes only its own waiters.
 * A listener or waiter that must not miss an event awaits `ready()` before it reads what the event would change.
 */
export class EventHub {
  private readonly listeners = new Set<(event: PublishedEvent) => void>();
  private readonly waiters = new Map<string, Set<(event: PublishedEvent) => void>>();
  /** The hub's one store subscription, held while it has a listener or a waiter (a store may listen only then). */
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly store: Store) {}

  /** Resolves once every event from now on reaches this hub's listeners and waiters (Store.eventsReady). */
  ready(): Promise<void> {
    return this.store.eventsReady();
  }

  private hold(): void {
    this.unsubscribe ??= this.store.subscribe((event) => this.dispatch(event));
  }

  private releaseWhenIdle(): void {
    if (this.listeners.size > 0 || this.waiters.size > 0 || this.unsubscribe === null) return;
    this.unsubscribe();
    this.unsubscribe = null;
  }

  private dispatch(event: InteractionEvent): void {
    // Nobody streams and nobody waits: the record is never read, so a Redis event is never decoded (the store
    // decodes on first read) — the common case of a process serving answers.
    if (this.listeners.size === 0 && this.waiters.size === 0) return;
    const record = toPublicRecord(event.record);
    // Serialized on first read, once: most events (an answer nobody streams) are never written anywhere.
    let json: string | null = null;
    const published: PublishedEvent = {
      type: event.type,
      record,
      get json(): string {
        json ??= JSON.stringify(record);
        return json;
      },
    };
    for (const listener of this.listeners) listener(published);
    const forId = this.waiters.get(record.id);
    if (forId) for (const waiter of forId) waiter(published);
  }

  /** Every event; returns the unsubscribe function. */
  listen(listener: (event: PublishedEvent) => void): () => void {
    this.listeners.add(listener);
    this.hold();
    return () => {
      this.listeners.delete(listener);
      this.releaseWhenIdle();
    };
  }

  /** Events of one interaction; returns the unsubscribe function. */
  watch(id: string, waiter: (event: PublishedEvent) => void): () => void {
    let set = this.waiters.get(id);
    if (!set) {
      set = new Set();
      this.waiters.set(id, set);
    }
    set.add(waiter);
    this.hold();
    return () => {
      const current = this.waiters.get(id);
      if (!current) return;
      current.delete(waiter);
      if (current.size === 0) this.waiters.delete(id);
      this.releaseWhenIdle();
    };
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.listeners.clear();
    this.waiters.clear();
  }
}
