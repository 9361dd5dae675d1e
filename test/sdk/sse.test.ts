import { describe, expect, it } from 'vitest';
import { parseSse, type SseMessage } from '../../packages/askgate-sdk/src/sse.js';

/** The SSE parser on awkward chunkings: the network splits wherever it likes. */

function streamOf(chunks: readonly string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
}

async function collect(chunks: readonly string[]): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const m of parseSse(streamOf(chunks))) out.push(m);
  return out;
}

describe('parseSse', () => {
  it('reads events, skips comments and heartbeats, joins multi-line data', async () => {
    const messages = await collect([
      ': connected\n\n',
      'event: interaction.created\nid: a\ndata: {"id":"a"}\n\n',
      ': ping\n\n',
      'data: one\ndata: two\n\n',
    ]);
    expect(messages).toEqual([
      { event: 'interaction.created', data: '{"id":"a"}', id: 'a' },
      { event: 'message', data: 'one\ntwo', id: 'a' },
    ]);
  });

  it('handles CRLF split across chunks, CR endings, and a field with no space', async () => {
    const messages = await collect(['event:x\r', '\ndata:1\r', '\n\r\n', 'data: 2\r\r']);
    expect(messages).toEqual([
      { event: 'x', data: '1', id: '' },
      { event: 'message', data: '2', id: '' },
    ]);
  });

  it('decodes a multi-byte character split between chunks, and drops an unterminated last event', async () => {
    const bytes = new TextEncoder().encode('data: é\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 7));
        controller.enqueue(bytes.slice(7));
        controller.enqueue(new TextEncoder().encode('data: cut'));
        controller.close();
      },
    });
    const out: SseMessage[] = [];
    for await (const m of parseSse(stream)) out.push(m);
    expect(out).toEqual([{ event: 'message', data: 'é', id: '' }]);
  });
});
