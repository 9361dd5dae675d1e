import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPhone, startTwilioWorld, tagIn, type TwilioWorld } from './twilio-harness.js';
import { hugeReviewAsk, reviewAsk } from './review-fixtures.js';

/**
 * A review by SMS, end to end: the twilio package against the loopback fake (which refuses a body over 1600
 * characters and bills segments as Twilio does), replies posted signed to the real door.
 */

let w: TwilioWorld;
beforeAll(async () => {
  w = await startTwilioWorld();
});
afterAll(async () => w.close());

const ask = (extra: Record<string, unknown> = {}) => w.ask(reviewAsk('twilio', freshPhone(), extra));

describe('Twilio: a review by SMS', () => {
  it('is one text of at most three segments: the action readable, the reply words, and the edit link', async () => {
    const { message, callbackUrl } = await ask();
    expect(message.body).toMatch(/^\[#\d{3}\] May I send this email\?\nsend_email\n/);
    expect(message.body).toContain('to: ada@example.com');
    // A value is cut to 60 characters in an SMS, with "..." (GSM-7) where the other channels write "…".
    expect(message.body).toContain('\nbody: Hello team, / The quarterly numbers are attached; The quart...\n');
    expect(message.body).toContain('\npriority: high\n');
    expect(message.body).toContain('Reply APPROVE or REJECT (or REJECT: why), or any other words for the agent.');
    expect(message.body.endsWith(`\nTo edit it: ${callbackUrl}`)).toBe(true);
    // The folding marks are GSM-7 (no "…"), so the text bills as GSM: at most three segments.
    expect(message.numSegments).toBeLessThanOrEqual(3);
    expect(message.body).not.toContain('…');
  });

  it('keeps the largest review within three segments, its question and action cut', async () => {
    const { message } = await w.ask(hugeReviewAsk('twilio', freshPhone()));
    expect(message.numSegments).toBeLessThanOrEqual(3);
    expect(message.body).toMatch(/^\[#\d{3}\] Q+\.\.\.\n/);
    expect(message.body).toMatch(/Reply APPROVE or REJECT \(or REJECT: why\), or any other words for the agent\.$/);
  });

  it('keeps a review whose question is UCS-2 (an emoji) within three segments, its edit link kept', async () => {
    const { message, callbackUrl } = await ask({ question: 'May I send this email? 📧' });
    expect(message.numSegments).toBeLessThanOrEqual(3);
    expect(message.body).toMatch(/^\[#\d{3}\] May I send/);
    expect(message.body).toContain('Reply APPROVE or REJECT');
    expect(message.body).toContain(callbackUrl);
  });

  it('offers no edit link without edit in decisions', async () => {
    const { message } = await ask({ decisions: ['approve', 'reject'] });
    expect(message.body).not.toContain('To edit it');
    expect(message.body).toMatch(/Reply APPROVE or REJECT \(or REJECT: why\)\.$/);
  });

  it('"approve" approves, "REJECT: why" rejects with the reason, other words respond', async () => {
    const first = await ask();
    expect((await w.text(first.to, `${tagIn(first.message.body)} approve`)).body).toContain('Answer recorded');
    expect((await w.record(first.id))['result']).toMatchObject({
      answer: { decision: 'approve' },
      answered_by: `twilio:${first.to}`,
    });
    const second = await ask();
    await w.text(second.to, 'REJECT: the board has not signed off');
    expect((await w.record(second.id))['result']).toMatchObject({
      answer: { decision: 'reject', message: 'the board has not signed off' },
    });
    const third = await ask();
    await w.text(third.to, 'Send it tomorrow morning instead');
    expect((await w.record(third.id))['result']).toMatchObject({
      answer: { decision: 'respond', message: 'Send it tomorrow morning instead' },
    });
  });

  it('words a review without respond cannot take are told what to reply, and change nothing', async () => {
    const { id, to } = await ask({ decisions: ['approve', 'reject'] });
    const res = await w.text(to, 'perhaps');
    expect(res.body).toContain('Reply APPROVE or REJECT (or REJECT: why).');
    expect((await w.record(id))['status']).toBe('pending');
  });

  it('an edit made on the page is told by SMS, naming who edited', async () => {
    const { id, to } = await ask();
    const res = await w.http.post(`/api/interactions/${id}/answer`, {
      answer: { decision: 'edit', args: { to: 'board@example.com', subject: 'Q3' } },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const deadline = Date.now() + 15_000;
    while (w.fake.sentTo(to).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(w.fake.sentTo(to)[1]?.body).toMatch(/^\[#\d{3}\] ✏️ Edited by /);
  });
});
