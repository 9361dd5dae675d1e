import { describe, expect, it } from 'vitest';
import { interactionTable } from '../../src/cli/format.js';
import type { InteractionRecord } from 'askgate-sdk';

const NOW = Date.parse('2026-12-01T12:00:00Z');

function record(fields: Partial<InteractionRecord>): InteractionRecord {
  return {
    id: 'q1',
    status: 'pending',
    answer_format: 'confirm',
    question: 'Ship it?',
    created_at: '2026-12-01T11:59:18Z',
    channel: null,
    recipient: null,
    ...fields,
  } as InteractionRecord;
}

describe('interactions list table', () => {
  it('says where each question was asked: the inbox, its channel, or every channel it went to', () => {
    const text = interactionTable(
      [
        record({ id: 'inbox-q' }),
        record({ id: 'slack-q', channel: 'slack', recipient: 'C01' }),
        record({
          id: 'fan-q',
          channel: 'slack',
          recipient: 'C01',
          deliver: [
            { channel: 'slack', recipient: 'C01' },
            { channel: 'telegram', recipient: '42' },
            { channel: 'slack', recipient: 'C02' },
          ],
        }),
      ],
      100,
      NOW,
    );
    expect(text.split('\n')).toEqual([
      'ID       STATUS   FORMAT   CHANNEL         AGE  QUESTION',
      'inbox-q  pending  confirm  inbox           42s  Ship it?',
      'slack-q  pending  confirm  slack           42s  Ship it?',
      'fan-q    pending  confirm  slack,telegram  42s  Ship it?',
    ]);
  });
});
