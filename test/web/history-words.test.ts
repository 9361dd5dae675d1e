import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/core/audit-event.js';
import type { AskResult, InteractionRecord } from '../../src/core/types.js';
import { answeredText, eventText } from '../../web/history.js';

/**
 * A question's history on its inbox card says who answered where; for a review it says what was decided, in the
 * words the channels' outcome edits use ("Approved by …", "Edited by …", "Rejected by …", "Responded by …").
 */

function answered(answer: unknown): Pick<InteractionRecord, 'answer_format' | 'result'> {
  const result: AskResult = {
    answer,
    reply_to: null,
    params: null,
    answered_by: 'ada',
    answered_at: '2026-12-03T10:00:00.000Z',
    surface: 'inbox',
  };
  return { answer_format: 'review', result };
}

const event: AuditEvent = {
  seq: 3,
  at: '2026-12-03T10:00:00.000Z',
  type: 'answered',
  surface: 'inbox',
  by: 'ada',
  hash: 'h',
};

describe('the history words of an answer', () => {
  it('say what a review decided, and who decided it where', () => {
    expect(eventText(event, answered({ decision: 'approve' }))).toBe('Approved by ada on inbox');
    expect(eventText(event, answered({ decision: 'edit', args: { to: 'grace@example.com' } }))).toBe(
      'Edited by ada on inbox',
    );
    expect(eventText(event, answered({ decision: 'reject' }))).toBe('Rejected by ada on inbox');
    expect(eventText(event, answered({ decision: 'reject', message: 'not on a Friday' }))).toBe(
      'Rejected by ada on inbox: “not on a Friday”',
    );
    expect(eventText(event, answered({ decision: 'respond', message: 'use staging' }))).toBe(
      'Responded by ada on inbox: “use staging”',
    );
    expect(answeredText(answered({ decision: 'approve' }), 'ada', 'slack')).toBe('Approved by ada on slack');
  });

  it('stay "Answered by" for other formats, a form answer with a decision member included', () => {
    const form = { ...answered({ decision: 'approve' }), answer_format: 'form' as const };
    expect(eventText(event, form)).toBe('Answered by ada on inbox');
    expect(eventText(event)).toBe('Answered by ada on inbox');
  });
});
