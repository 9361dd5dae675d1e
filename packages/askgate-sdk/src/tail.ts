import type { InteractionEventType, InteractionRecord } from './wire/interactions.js';
import { AskgateSdkError } from './errors.js';
import { parseSse } from './sse.js';
import type { TailEvent } from './types.js';

const EVENT_TYPES: ReadonlySet<string> = new Set<InteractionEventType>([
  'interaction.created',
  'interaction.answered',
  'interaction.expired',
  'interaction.cancelled',
  'interaction.delivery_failed',
]);

/**
 * The live event stream of `GET /api/interactions/stream`. It connects as soon as it is made (so `await
 * stream.opened` before acting guarantees the events of that action arrive) and is iterated once:
 *
 * ```ts
 * const stream = client.tail(signal);
 * for await (const { type, record } of stream) console.log(type, record.id);
 * ```
 *
 * The stream is tail-only and does not reconnect: iteration ends when the gateway closes it, when `signal`
 * aborts or `close()` is called (both end it quietly), and throws `AskgateNetworkError` when the connection drops.
 * Events of types this SDK does not know, and comment/heartbeat lines, are skipped.
 */
export class TailStream implements AsyncIterable<TailEvent> {
  /** Resolves once the gateway has accepted the stream; rejects with the same error iteration would throw. */
  readonly opened: Promise<void>;
  readonly #controller = new AbortController();
  readonly #response: Promise<Response>;
  readonly #wrapReadError: (error: unknown) => Error;
  #iterated = false;

  /** @internal Made by `AskgateClient.tail()`. */
  constructor(
    open: (signal: AbortSignal) => Promise<Response>,
    wrapReadError: (error: unknown) => Error,
    signal?: AbortSignal,
  ) {
    if (signal?.aborted === true) this.#controller.abort(signal.reason);
    else signal?.addEventListener('abort', () => this.close(), { once: true });
    this.#wrapReadError = wrapReadError;
    this.#response = open(this.#controller.signal);
    this.opened = this.#response.then(() => undefined);
    // The failure surfaces through `opened` and the iterator; an unobserved one must not crash the process.
    this.opened.catch(() => undefined);
  }

  /** Ends the stream and releases the connection; iteration then ends quietly. Safe to call more than once. */
  close(): void {
    this.#controller.abort();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TailEvent, void, undefined> {
    if (this.#iterated)
      throw new AskgateSdkError('a tail stream can be iterated once; call client.tail() again for a new one.');
    this.#iterated = true;
    try {
      let response: Response;
      try {
        response = await this.#response;
      } catch (error) {
        if (this.#controller.signal.aborted) return;
        throw error;
      }
      if (response.body === null) return;
      try {
        for await (const message of parseSse(response.body)) {
          if (!EVENT_TYPES.has(message.event)) continue;
          yield { type: message.event as InteractionEventType, record: parseRecord(message.event, message.data) };
        }
      } catch (error) {
        if (this.#controller.signal.aborted) return;
        if (error instanceof AskgateSdkError) throw error;
        throw this.#wrapReadError(error);
      }
    } finally {
      this.close();
    }
  }
}

function parseRecord(event: string, data: string): InteractionRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw new AskgateSdkError(
      `the gateway sent a ${event} event whose data is not JSON; the stream's data must be the interaction record.`,
    );
  }
  if (parsed === null || typeof parsed !== 'object' || typeof (parsed as { id?: unknown }).id !== 'string') {
    throw new AskgateSdkError(`the gateway sent a ${event} event whose data is not an interaction record.`);
  }
  return parsed as InteractionRecord;
}
