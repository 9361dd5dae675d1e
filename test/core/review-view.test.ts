import { describe, expect, it } from 'vitest';
import {
  actionText,
  actionView,
  argLines,
  editPrefill,
  reviewButtons,
  reviewOutcomeLine,
} from '../../src/core/review-view.js';
import { outcomeLine } from '../../channels/outcome.js';
import type { InteractionRecord } from '../../src/core/types.js';

/**
 * The one way every surface shows a review (src/core/review-view.ts): the action as lines fitted to a character
 * budget, the buttons' codes, the edit form's starting values and the outcome words — each written out.
 */

const ACTION = {
  name: 'send_email',
  description: 'Sends one email from the team account.',
  args: {
    to: 'ada@example.com',
    subject: 'Quarterly report',
    cc: ['grace@example.com', 'lin@example.com'],
    options: { priority: 'high', track: true },
    body: 'Hello team,\nthe report is attached.',
  },
};

describe('the action as text', () => {
  it('shows the name, the description and one key: value line per argument when the budget holds them', () => {
    expect(actionText(ACTION, { budget: 1000 })).toBe(
      [
        'send_email',
        'Sends one email from the team account.',
        'to: ada@example.com',
        'subject: Quarterly report',
        'cc: grace@example.com, lin@example.com',
        'options.priority: high',
        'options.track: true',
        'body: Hello team, ⏎ the report is attached.',
      ].join('\n'),
    );
  });

  it('cuts a long value to maxValue with an ellipsis', () => {
    expect(argLines({ note: 'abcdefghijklmnopqrstuvwxyz', n: 12345678 }, 10)).toEqual([
      { key: 'note', value: 'abcdefghi…' },
      { key: 'n', value: '12345678' },
    ]);
  });

  it('shows values deeper than two levels, empty objects and lists of objects as JSON', () => {
    expect(argLines({ a: { b: { c: { d: 1 } } }, e: {}, f: [{ g: 1 }], h: null })).toEqual([
      { key: 'a.b.c', value: '{"d":1}' },
      { key: 'e', value: '{}' },
      { key: 'f', value: '[{"g":1}]' },
      { key: 'h', value: 'null' },
    ]);
  });

  it('fits a small budget: the description gets at most half, then as many arguments as fit and "… and N more"', () => {
    const text = actionText(ACTION, { budget: 100 });
    expect(text).toBe(
      ['send_email', 'Sends one email from the team account.', 'to: ada@example.com', '… and 5 more'].join('\n'),
    );
    expect([...text].length).toBeLessThanOrEqual(100);
    expect(actionView(ACTION, { budget: 100 }).omitted).toBe(5);
    // Too little room for a useful description: it is left out, not shown as a stub.
    expect(actionText(ACTION, { budget: 30 })).toBe('send_email\n… and 6 more');
  });

  it('never exceeds the budget, whatever it is', () => {
    for (let budget = 1; budget <= 300; budget++)
      expect([...actionText(ACTION, { budget })].length, `budget ${budget}`).toBeLessThanOrEqual(budget);
  });

  it('cuts a name longer than the budget', () => {
    expect(actionText({ name: 'a_very_long_tool_name', args: {} }, { budget: 8 })).toBe('a_very_…');
  });
});

describe('the decision buttons', () => {
  it('carry the action code of each decision, in the order offered', () => {
    expect(reviewButtons('Qk3v9x_A-bc', ['approve', 'edit', 'reject', 'respond'])).toEqual([
      { decision: 'approve', label: 'Approve', code: 'Qk3v9x_A-bc:a' },
      { decision: 'edit', label: 'Edit', code: 'Qk3v9x_A-bc:e' },
      { decision: 'reject', label: 'Reject', code: 'Qk3v9x_A-bc:r' },
      { decision: 'respond', label: 'Respond', code: 'Qk3v9x_A-bc:m' },
    ]);
  });
});

describe('the edit form values', () => {
  it('keeps the proposed args to the fields the schema names, nested groups to their own', () => {
    const schema = {
      type: 'object',
      properties: {
        to: { type: 'string' },
        options: { type: 'object', properties: { priority: { type: 'string' } } },
        missing: { type: 'string' },
      },
    };
    expect(editPrefill(schema, ACTION.args)).toEqual({ to: 'ada@example.com', options: { priority: 'high' } });
    expect(editPrefill(null, { a: 1 })).toEqual({ a: 1 });
  });
});

describe('the outcome words', () => {
  it('names who decided what, and the message of a reject or a respond', () => {
    const line = (answer: unknown) => reviewOutcomeLine(answer, { who: 'ada', where: 'on Slack' });
    expect(line({ decision: 'approve' })).toBe('✅ Approved by ada on Slack');
    expect(line({ decision: 'edit', args: { to: 'x' } })).toBe('✏️ Edited by ada on Slack');
    expect(line({ decision: 'reject' })).toBe('❌ Rejected by ada on Slack');
    expect(line({ decision: 'reject', message: 'Not on a Friday.' })).toBe(
      '❌ Rejected by ada on Slack: “Not on a Friday.”',
    );
    expect(line({ decision: 'respond', message: 'Use staging.' })).toBe('💬 Responded by ada on Slack: “Use staging.”');
    expect(line(true)).toBeNull();
    expect(reviewOutcomeLine({ decision: 'approve' }, { who: 'ada', plain: true })).toBe('Approved by ada');
  });

  it('is what the channels outcome line says for a decided review', () => {
    const record: Pick<InteractionRecord, 'status' | 'answer_format' | 'result'> = {
      status: 'answered',
      answer_format: 'review',
      result: {
        answer: { decision: 'reject', message: 'Too risky.' },
        reply_to: null,
        params: null,
        answered_by: 'ada',
        answered_at: '2026-01-01T00:00:00.000Z',
        surface: 'inbox',
      },
    };
    expect(outcomeLine(record)).toBe('❌ Rejected by ada in the inbox: “Too risky.”');
  });
});
