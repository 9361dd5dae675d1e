import type { Redis } from 'ioredis';

type Send = Redis['sendCommand'];

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
export function coalesceWrites(client: Redis): void {
  const send: Send = client.sendCommand.bind(client);
  let corked: Redis['stream'] | null = null;
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
    return send(command, stream);
  }) as Send;
}
