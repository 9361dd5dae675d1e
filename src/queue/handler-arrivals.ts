/**
 * Word, inside one process, that a handler job is being added: the producer (queues.ts) says so as it hands BullMQ
 * the add, and the claims (handler-claims.ts) let the tap of that queue, when a claimer waits on it, take the job at
 * once instead of when its blocking read wakes. The listener runs once this turn's callbacks are done, when the add
 * has been queued on the BullMQ connection but not yet written (that connection's writes leave once per event-loop
 * turn, write-coalescing.ts): the take joins the same write, Redis runs it right after the add and answers both
 * together, and the continuation reaches its claimer one round trip sooner. Only a hint: a take that finds nothing
 * (on a Redis Cluster the add may have left alone, and the blocked read woken first) leaves the job to the blocked
 * read, as before; a job added by another process wakes that read alone.
 */
export class HandlerArrivals {
  private listener: ((shard: number, queueName: string) => void) | null = null;

  /** Whom to tell; one listener per process (the handler claims). */
  listen(listener: (shard: number, queueName: string) => void): void {
    this.listener = listener;
  }

  /** A handler job was added to `queueName` of `shard`; the listener hears of it after this turn's I/O is written. */
  added(shard: number, queueName: string): void {
    const listener = this.listener;
    if (listener !== null) setImmediate(() => listener(shard, queueName));
  }
}
