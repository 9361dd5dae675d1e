/**
 * One review every channel's review test asks: an email an agent proposes to send, its schema (inside the channel
 * form subset, five properties at most so Discord's modal takes it), and a body long enough that every platform has
 * to fold it.
 */

export const LONG_BODY = `Hello team,\n${'The quarterly numbers are attached; '.repeat(160)}\nRegards`;

export const ACTION = {
  name: 'send_email',
  args: { to: 'ada@example.com', subject: 'Quarterly report', body: LONG_BODY, priority: 'high' },
  description: 'Sends one email from the team account.',
};

export const SCHEMA = {
  type: 'object',
  required: ['to', 'subject'],
  properties: {
    to: { type: 'string', format: 'email', title: 'To' },
    subject: { type: 'string', minLength: 1, maxLength: 80, title: 'Subject' },
    body: { type: 'string', maxLength: 8000, title: 'Body' },
    priority: { type: 'string', enum: ['low', 'normal', 'high'], title: 'Priority' },
  },
};

export const ALL_DECISIONS = ['approve', 'edit', 'reject', 'respond'];

/** The ask body of the review on `channel` for `recipient` (null: the harness picks one). */
export function reviewAsk(
  channel: string,
  recipient: string | null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    question: 'May I send this email?',
    answer_format: 'review',
    action: ACTION,
    schema: SCHEMA,
    decisions: ALL_DECISIONS,
    channel,
    ...(recipient === null ? {} : { recipient }),
    ...extra,
  };
}

/** The largest review an ask takes, near enough: a 4096-character question and 300 arguments of 300 characters. */
export function hugeReviewAsk(channel: string, recipient: string | null): Record<string, unknown> {
  const args = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`arg_${i}`, `value ${i} `.repeat(30)]));
  return reviewAsk(channel, recipient, {
    question: 'Q'.repeat(4096),
    action: { name: 'n'.repeat(200), args, description: 'd'.repeat(4096) },
    schema: undefined,
    decisions: ['approve', 'reject', 'respond'],
  });
}
