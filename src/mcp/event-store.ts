import { randomUUID } from 'node:crypto';
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The messages of one MCP session's streams, kept so a client that lost its connection can resume with
 * `Last-Event-ID` and miss nothing. Bounded: the oldest events go first, so a session that is never resumed cannot
 * grow without end. In memory: a resumed stream must reach the process that holds its session.
 */
export class BoundedEventStore implements EventStore {
  readonly #events = new Map<string, { streamId: string; message: JSONRPCMessage }>();
  readonly #max: number;

  constructor(maxEvents = 1000) {
    this.#max = maxEvents;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    // The stream id is carried in the event id so a resume names its stream even after older events were dropped.
    const eventId = `${streamId}_${randomUUID()}`;
    this.#events.set(eventId, { streamId, message });
    if (this.#events.size > this.#max) {
      const oldest = this.#events.keys().next().value;
      if (oldest !== undefined) this.#events.delete(oldest);
    }
    return eventId;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#events.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.#events.get(lastEventId);
    if (last === undefined) return '';
    let after = false;
    for (const [id, event] of this.#events) {
      if (id === lastEventId) after = true;
      else if (after && event.streamId === last.streamId) await send(id, event.message);
    }
    return last.streamId;
  }
}
