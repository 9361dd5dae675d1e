import { describe, expect, it } from 'vitest';
import { SseParser } from '../../web/sse.js';

describe('SseParser', () => {
  it('dispatches events split anywhere across chunks, skipping comments', () => {
    const got: Array<[string, string]> = [];
    const parser = new SseParser((type, data) => got.push([type, data]));
    const wire =
      ': connected\n\nevent: interaction.created\nid: a1\ndata: {"id":"a1"}\n\n: ping\n\r\nevent: ' +
      'interaction.answered\r\ndata: line1\r\ndata:line2\r\n\r\ndata: plain\n\n';
    for (const ch of wire) parser.feed(ch);
    expect(got).toEqual([
      ['interaction.created', '{"id":"a1"}'],
      ['interaction.answered', 'line1\nline2'],
      ['message', 'plain'],
    ]);
  });

  it('holds an unfinished event until its blank line', () => {
    const got: string[] = [];
    const parser = new SseParser((_t, data) => got.push(data));
    parser.feed('event: x\ndata: {"a"');
    parser.feed(':1}\n');
    expect(got).toEqual([]);
    parser.feed('\n');
    expect(got).toEqual(['{"a":1}']);
  });
});
