import { describe, expect, it } from 'vitest';
import { parseEventMessage } from '../../src/store/redis/event-message.js';

describe('events-channel messages', () => {
  it('reads type, id, schema and an envelope that holds newlines', () => {
    const envelope = 'a\n{"q":"Ship it?"}\n\n"h"';
    expect(parseEventMessage(`interaction.answered\nabc.3\n{"type":"object"}\n${envelope}`)).toEqual({
      type: 'interaction.answered',
      id: 'abc.3',
      schema: '{"type":"object"}',
      envelope,
    });
  });

  it('reads an empty schema field as no schema', () => {
    expect(parseEventMessage('interaction.created\nabc\n\np\n{}')).toEqual({
      type: 'interaction.created',
      id: 'abc',
      schema: null,
      envelope: 'p\n{}',
    });
  });

  it('refuses a message without its four fields', () => {
    expect(() => parseEventMessage('interaction.created\nabc')).toThrow(/four newline-separated fields/);
    expect(() => parseEventMessage('{"e":"interaction.created"}')).toThrow(/four newline-separated fields/);
  });
});
