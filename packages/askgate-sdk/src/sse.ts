/**
 * A small Server-Sent Events parser over a fetch body, so the SDK needs no EventSource (which cannot send an
 * Authorization header in browsers and is a dependency in Node). It follows the WHATWG event-stream rules that
 * matter here: lines end in LF, CRLF or CR; `:` starts a comment (heartbeats); `data` lines join with LF; a blank
 * line dispatches; a message with no data is dropped; `retry` is ignored because the tail does not reconnect.
 */

export interface SseMessage {
  /** The `event` field; `"message"` when absent. */
  event: string;
  data: string;
  /** The `id` field; empty when absent. */
  id: string;
}

const LINE_END = /\r\n|\r|\n/g;

export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id = '';
  try {
    for (;;) {
      const { done, value: chunk } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(chunk, { stream: true });
      // A trailing CR may be the first half of a CRLF split across chunks: keep it until the next chunk decides.
      let start = 0;
      for (;;) {
        LINE_END.lastIndex = start;
        const found = LINE_END.exec(buffer);
        if (found === null) break;
        if (found[0] === '\r' && found.index === buffer.length - 1 && !done) break;
        const line = buffer.slice(start, found.index);
        start = found.index + found[0].length;
        if (line === '') {
          if (data.length > 0) yield { event: event === '' ? 'message' : event, data: data.join('\n'), id };
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
        else if (field === 'id' && !value.includes('\0')) id = value;
      }
      buffer = buffer.slice(start);
      // An unterminated last message is dropped, as the spec says: the stream ended mid-event.
      if (done) return;
    }
  } finally {
    // Reached on normal end, on error, and when the consumer stops early: release the connection either way.
    await reader.cancel().catch(() => undefined);
  }
}
