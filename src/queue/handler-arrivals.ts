/**
 * Word, inside one process, that a handler job is being added: the producer (queues.ts) says so, and the claims
 * (handler-claims.ts) let the tap of that queue, when a claimer waits on it, take the job at once instead of when its
 * blocking read wakes. The take must reach Redis after the add, on the same connection: the producer sends the add
 * at once (the BullMQ connection's writes are otherwise coalesced per turn, write-coalescing.ts) and speaks as it
 * leaves, and the take follows it at once. Redis runs the take right after the add, and the continuation reaches
 * its claimer one round trip sooner. Only a hint: a take that finds nothing (on a Redis Cluster the add may have
 * left alone, and the blocked read woken first) leaves the job to the blocked read, as before; a job added by
 * another process wakes that read alone.
 */
export class HandlerArrivals {
  private listener: ((shard: number, queueName: string) => void) | null = null;

  /** Whom to tell; one listener per process (the handler claims). */
  listen(listener: (shard: number, queueName: string) => void): void {
    this.listener = listener;
  }

  /** The add of a handler job to `queueName` of `shard` is on its way to Redis; the listener hears of it now. */
  added(shard: number, queueName: string): void {
    this.listener?.(shard, queueName);
  }
}
