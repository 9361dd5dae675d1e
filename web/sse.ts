/**
 * Server-Sent Events over `fetch`, because `EventSource` cannot send an Authorization header and the token must
 * not ride in a URL (it would land in logs). Reconnects with capped, jittered backoff; the stream is tail-only, so
 * the caller re-reads the list after every reconnect (`onOpen(reconnected = true)`).
 */

export interface StreamHandlers {
  onOpen(reconnected: boolean): void;
  onEvent(type: string, data: string): void;
  /** The connection dropped; the next attempt is in `retryInMs`. */
  onDown(retryInMs: number): void;
  /** 401/403: retrying with the same token cannot help. */
  onRefused(status: number): void;
}

export interface StreamHandle {
  close(): void;
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/** Parses the SSE wire format incrementally: feed it decoded text, it calls `dispatch` per complete event. */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private type = '';
  /** A chunk ended in `\r`: a `\n` opening the next one belongs to the same line break. */
  private pendingCr = false;

  constructor(private readonly dispatch: (type: string, data: string) => void) {}

  feed(chunk: string): void {
    if (this.pendingCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.pendingCr = chunk.endsWith('\r');
    this.buffer += chunk;
    const lines = this.buffer.split(/\r\n|\r|\n/);
    // The last piece is an unfinished line (or '' after a newline): keep it for the next chunk.
    this.buffer = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) this.dispatch(this.type || 'message', this.data.join('\n'));
      this.data = [];
      this.type = '';
      return;
    }
    if (line.startsWith(':')) return; // A comment: heartbeats.
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.type = value;
    else if (field === 'data') this.data.push(value);
  }
}

export function openStream(url: string, authorization: string, handlers: StreamHandlers): StreamHandle {
  let closed = false;
  let controller: AbortController | null = null;
  let opened = false;

  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  const run = async (): Promise<void> => {
    let retry = FIRST_RETRY_MS;
    while (!closed) {
      controller = new AbortController();
      try {
        const response = await fetch(url, {
          headers: { Authorization: authorization, Accept: 'text/event-stream' },
          cache: 'no-store',
          credentials: 'omit',
          signal: controller.signal,
        });
        if (response.status === 401 || response.status === 403) {
          handlers.onRefused(response.status);
          return;
        }
        if (!response.ok || response.body === null) throw new Error(`stream answered HTTP ${response.status}`);
        handlers.onOpen(opened);
        opened = true;
        retry = FIRST_RETRY_MS;
        const parser = new SseParser((type, data) => handlers.onEvent(type, data));
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
      } catch {
        // A drop or a refused connection: fall through to the backoff below.
      }
      if (closed) return;
      const wait = Math.round(retry * (0.75 + Math.random() * 0.5));
      handlers.onDown(wait);
      await sleep(wait);
      retry = Math.min(retry * 2, MAX_RETRY_MS);
    }
  };
  void run();

  return {
    close() {
      closed = true;
      controller?.abort();
    },
  };
}
