import type { Cluster, Redis } from 'ioredis';

/** How long the channel stays subscribed after its last listener leaves: waiters that come and go keep it open. */
export const EVENTS_LINGER_MS = 30_000;

/**
 * A store's events channel, subscribed only while this process has a listener (an SSE client, a sync waiter; the
 * event hub holds one listener for all of them). A process that only answers, asks or parks then receives no event
 * at all: each event cost its subscriber connection a read and a parse, and redis-server a write, per transition.
 *
 * `hold()` subscribes when nothing is held; `release()` unsubscribes `lingerMs` after the last release, unless held
 * again meanwhile. `ready()` resolves once the channel is subscribed (the SUBSCRIBE confirmed) — a listener that
 * must not miss an event awaits it before it reads the state the event would change. Commands on one connection
 * keep their order, so an UNSUBSCRIBE followed by a SUBSCRIBE ends subscribed. After a reconnect ioredis subscribes
 * again by itself.
 */
export class EventSubscription {
  private holders = 0;
  private subscribed: Promise<void> | null = null;
  private linger: NodeJS.Timeout | null = null;

  constructor(
    private readonly subscriber: Redis | Cluster,
    private readonly channel: string,
    private readonly lingerMs = EVENTS_LINGER_MS,
  ) {}

  hold(): void {
    this.holders++;
    if (this.linger !== null) {
      clearTimeout(this.linger);
      this.linger = null;
    }
    this.subscribed ??= this.subscribe();
  }

  release(): void {
    this.holders = Math.max(0, this.holders - 1);
    if (this.holders > 0 || this.subscribed === null || this.linger !== null) return;
    this.linger = setTimeout(() => {
      this.linger = null;
      if (this.holders > 0) return;
      this.subscribed = null;
      // A failed UNSUBSCRIBE (Redis away) leaves the channel subscribed: extra events, dispatched to nobody.
      this.subscriber.unsubscribe(this.channel).catch(() => undefined);
    }, this.lingerMs);
    this.linger.unref();
  }

  /** Resolves once the channel is subscribed; at once when nothing holds it. Rejects when Redis refused. */
  ready(): Promise<void> {
    return this.subscribed ?? Promise.resolve();
  }

  close(): void {
    if (this.linger !== null) clearTimeout(this.linger);
    this.linger = null;
    this.holders = 0;
    this.subscribed = null;
  }

  private subscribe(): Promise<void> {
    const subscribed = this.subscriber.subscribe(this.channel).then(
      () => undefined,
      (error: unknown) => {
        // Not subscribed: the next hold tries again.
        if (this.subscribed === subscribed) this.subscribed = null;
        throw error;
      },
    );
    // A hold that nobody awaits must not surface as an unhandled rejection; ready() hands the failure to its caller.
    subscribed.catch(() => undefined);
    return subscribed;
  }
}
