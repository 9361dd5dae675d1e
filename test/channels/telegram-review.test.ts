import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyUpdate, tapUpdate } from '../fakes/telegram-updates.js';
import { ACTION, hugeReviewAsk, reviewAsk } from './review-fixtures.js';
import { freshChat, startTelegramWorld, type TelegramWorld } from './telegram-harness.js';

/**
 * A review on Telegram, end to end: grammY against the loopback fake (which refuses a text over 4096 characters and
 * callback_data over 64 bytes), updates posted to the real webhook.
 */

let w: TelegramWorld;
beforeAll(async () => {
  w = await startTelegramWorld();
});
afterAll(async () => w.close());

type Button = { text: string; callback_data?: string; web_app?: { url: string }; url?: string };
const buttons = (markup: Record<string, unknown> | null): Button[] =>
  ((markup?.['inline_keyboard'] ?? []) as Button[][]).flat();

describe('Telegram: a review', () => {
  it('shows the action readably, the long body folded, with Approve, Reject and an Edit webview', async () => {
    const { id, message, callbackUrl } = await w.ask(reviewAsk('telegram', freshChat()));
    expect(message.text).toContain('May I send this email?');
    expect(message.text).toContain('send_email');
    expect(message.text).toContain('to: ada@example.com');
    expect(message.text).toContain('subject: Quarterly report');
    // The 6000-character body is folded, not sent whole.
    expect(message.text).toMatch(/body: Hello team, ⏎ The quarterly numbers are attached; .*…/);
    expect(message.text).not.toContain('Regards');
    expect(message.text).toContain('Reply to this message with words for the agent.');
    expect(buttons(message.reply_markup)).toEqual([
      { text: 'Approve', callback_data: `${id}:a` },
      { text: 'Edit', web_app: { url: callbackUrl } },
      { text: 'Reject', callback_data: `${id}:r` },
    ]);
  });

  it('fits the largest review into the 4096-character message, the rest of the arguments counted', async () => {
    const { message } = await w.ask(hugeReviewAsk('telegram', freshChat()));
    expect([...message.text].length).toBeLessThanOrEqual(4096);
    expect(message.text).toMatch(/\narg_0: value 0 .*…\n/);
    expect(message.text).toMatch(/… and \d+ more\n\nTap Approve or Reject\. Reply to this message/);
  });

  it("Edit's page (the callback page the webview opens) starts from the proposed arguments", async () => {
    const { callbackUrl } = await w.ask(reviewAsk('telegram', freshChat()));
    const res = await fetch(`${w.gw.url}${new URL(callbackUrl).pathname}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<input[^>]*name="args\.to"[^>]*value="ada@example\.com"/);
    expect(html).toMatch(/<input[^>]*name="args\.subject"[^>]*value="Quarterly report"/);
    expect(html).toMatch(/<input[^>]*name="args\.priority"[^>]*value="high"[^>]*checked/);
  });

  it('offers no Edit without edit in decisions, and a group gets Edit as a URL button', async () => {
    const plain = await w.ask(reviewAsk('telegram', freshChat(), { decisions: ['approve', 'reject'] }));
    expect(buttons(plain.message.reply_markup).map((b) => b.text)).toEqual(['Approve', 'Reject']);
    expect(plain.message.text).not.toContain('words for the agent');
    const group = await w.ask(reviewAsk('telegram', '-100200300'));
    expect(buttons(group.message.reply_markup).find((b) => b.text === 'Edit')).toEqual({
      text: 'Edit',
      url: group.callbackUrl,
    });
  });

  it('approves on one tap; the message then says who approved and loses its buttons', async () => {
    const { id, message } = await w.ask(reviewAsk('telegram', freshChat()));
    expect(await w.send(tapUpdate(message, { label: 'Approve' }))).toBe(200);
    expect(await w.record(id)).toMatchObject({
      status: 'answered',
      result: { answer: { decision: 'approve' }, surface: 'telegram', answered_by: 'telegram:424242' },
    });
    await w.edited(message);
    expect(message.text).toContain('✅ Approved by @ada (telegram:424242) on Telegram');
    expect(message.text).toContain('send_email');
    expect(message.reply_markup).toBeNull();
  });

  it('rejects on one tap', async () => {
    const { id, message } = await w.ask(reviewAsk('telegram', freshChat()));
    expect(await w.send(tapUpdate(message, { label: 'Reject' }))).toBe(200);
    expect((await w.record(id))['result']).toMatchObject({ answer: { decision: 'reject' } });
    await w.edited(message);
    expect(message.text).toContain('❌ Rejected by @ada (telegram:424242) on Telegram');
  });

  it('reads a reply: "reject: why" rejects with its reason, other words respond', async () => {
    const first = await w.ask(reviewAsk('telegram', freshChat()));
    expect(await w.send(replyUpdate(first.message, { text: 'Reject: not on a Friday' }))).toBe(200);
    expect((await w.record(first.id))['result']).toMatchObject({
      answer: { decision: 'reject', message: 'not on a Friday' },
    });
    await w.edited(first.message);
    expect(first.message.text).toContain('❌ Rejected by @ada (telegram:424242) on Telegram: “not on a Friday”');

    const second = await w.ask(reviewAsk('telegram', freshChat()));
    expect(await w.send(replyUpdate(second.message, { text: 'Send it to the whole team instead' }))).toBe(200);
    expect((await w.record(second.id))['result']).toMatchObject({
      answer: { decision: 'respond', message: 'Send it to the whole team instead' },
    });
  });

  it('tells a person whose words a review without respond cannot take what to reply, and changes nothing', async () => {
    const { id, message } = await w.ask(reviewAsk('telegram', freshChat(), { decisions: ['approve', 'reject'] }));
    const before = w.fake.messagesIn(message.chat_id).length;
    expect(await w.send(replyUpdate(message, { text: 'maybe later' }))).toBe(200);
    expect((await w.record(id))['status']).toBe('pending');
    const told = w.fake.messagesIn(message.chat_id).slice(before);
    expect(told.map((m) => m.text).join('\n')).toContain('Reply APPROVE or REJECT (or REJECT: why).');
  });

  it('shows an edit made on the form with the arguments it chose, naming who edited', async () => {
    const { id, message } = await w.ask(reviewAsk('telegram', freshChat()));
    const args = { ...ACTION.args, subject: 'Q3 report (final)', body: 'Short now.' };
    const res = await w.http.post(`/api/interactions/${id}/answer`, { answer: { decision: 'edit', args } });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    await w.edited(message);
    expect(message.text).toContain('✏️ Edited by');
    expect(message.text).toContain('subject: Q3 report (final)');
    expect(message.text).toContain('body: Short now.');
    expect(message.reply_markup).toBeNull();
  });
});
