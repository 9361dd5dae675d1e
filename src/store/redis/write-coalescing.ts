import type { Redis } from 'ioredis';

type Send = Redis['sendCommand'];

/** A connection whose writes are coalesced per turn ({@link coalesceWrites}). */
export interface CoalescedWrites {
  /**
   * The next command sent on the connection leaves at once, with whatever this turn queued before it, instead of at
   * the end of the turn: for the one command something downstream waits on (a continuation its worker's claim waits
   * for) while this turn still has other work to finish (the reply to the answer that resumed it). A command queued
   * offline (not connected yet) leaves when the connection is ready, as any. `afterSent` runs once that command is
   * on its way (a command that depends on it can follow at once).
   */
  sendNextAtOnce(afterSent?: () => void): void;
}

/**
 * Coalesces a connection's writes per event-loop turn: the first command written while the connection is ready
 * corks its socket and a `setImmediate` uncorks it, so the commands of every request served in one turn (many doors'
 * claims under load) leave in one write — one syscall here and one read for Redis — and their replies come back in
 * one read.
 *
 * This replaces ioredis' auto-pipelining on a single Redis. That batches the same way, but lets only one batch be in
 * flight at a time, so Redis and this process took turns waiting for each other, and it builds a Pipeline object
 * (copying every registered script onto it) per batch. Here any number of batches may be in flight and a command
 * costs what a plain one does. Order is unchanged (one socket, written in call order); a command sent while the
 * connection is not ready goes to ioredis' offline queue as before, uncorked.
 */
export function coalesceWrites(client: Redis): CoalescedWrites {
  const send: Send = client.sendCommand.bind(client);
  let corked: Redis['stream'] | null = null;
  // One entry per sendNextAtOnce not yet met by a command, in call order (several continuations added in one turn
  // each ask for their own add), with what to run once that command is sent.
  const atOnce: Array<(() => void) | null> = [];
  const uncork = (): void => {
    const stream = corked;
    corked = null;
    // A socket replaced by a reconnect meanwhile was destroyed; uncorking it is harmless.
    stream?.uncork();
  };
  client.sendCommand = ((command, stream) => {
    if (corked === null && stream === undefined && client.status === 'ready') {
      const socket = client.stream;
      if (socket?.writable === true) {
        socket.cork();
        corked = socket;
        setImmediate(uncork);
      }
    }
    const sent = send(command, stream);
    if (atOnce.length > 0) {
      uncork();
      const after = atOnce.shift();
      if (after) queueMicrotask(after);
    }
    return sent;
  }) as Send;
  return {
    sendNextAtOnce: (afterSent) => {
      atOnce.push(afterSent ?? null);
    },
  };
}
