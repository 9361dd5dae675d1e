import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonReply, inboundId, nfmReply, textReply } from '../fakes/whatsapp-webhooks.js';
import { bodyOf, startWhatsAppWorld, type WhatsAppWorld } from './whatsapp-harness.js';
import { hugeReviewAsk, reviewAsk } from './review-fixtures.js';

/**
 * A review on WhatsApp, end to end: the Graph client against the loopback fake (which refuses an interactive body
 * over 1024 characters, more than 3 buttons or a title over 20, a Flow JSON it would not publish), webhooks signed
 * and posted to the real door.
 */

type Rec = Record<string, unknown>;
let w: WhatsAppWorld;
beforeAll(async () => {
  w = await startWhatsAppWorld({ WHATSAPP_TEMPLATE_NAME: 'askgate_question' });
});
afterAll(async () => w.close());

const ask = (extra: Record<string, unknown> = {}) => w.ask(reviewAsk('whatsapp', null, extra));
const buttonsOf = (payload: Rec): Array<{ id: string; title: string }> =>
  (
    ((payload['interactive'] as Rec)['action'] as Rec)['buttons'] as Array<{ reply: { id: string; title: string } }>
  ).map((b) => b.reply);

describe('WhatsApp: a review', () => {
  it('is one button message: the action readable within 1024 characters, Approve, Edit and Reject', async () => {
    const { id, message } = await ask();
    const body = bodyOf(message);
    expect(body.startsWith('May I send this email?\n\nsend_email\n')).toBe(true);
    expect(body).toContain('to: ada@example.com');
    expect(body).toMatch(/body: Hello team, ⏎ The quarterly numbers are attached; .*…\n/);
    expect([...body].length).toBeLessThanOrEqual(1024);
    expect(body.endsWith('Tap Approve, Edit or Reject. Reply to this message with words for the agent.')).toBe(true);
    expect(buttonsOf(message.payload)).toEqual([
      { id: `${id}:a`, title: 'Approve' },
      { id: `${id}:e`, title: 'Edit' },
      { id: `${id}:r`, title: 'Reject' },
    ]);
  });

  it('fits the largest review into the 1024-character body, the rest of the arguments counted', async () => {
    const { message } = await w.ask(hugeReviewAsk('whatsapp', null));
    const body = bodyOf(message);
    expect([...body].length).toBeLessThanOrEqual(1024);
    expect(body).toMatch(/… and \d+ more\n\nTap Approve or Reject\. Reply to this message with words for the agent\.$/);
  });

  it('outside the 24-hour window the template carries the question and the action on one line; a reply answers', async () => {
    const to = '15557779001';
    w.fake.outsideWindow(to);
    const { id, message } = await w.ask(reviewAsk('whatsapp', `+${to}`));
    expect(message.payload['type']).toBe('template');
    const template = message.payload['template'] as { components: Array<{ parameters: Array<{ text: string }> }> };
    const text = template.components[0]?.parameters[0]?.text ?? '';
    expect(text).toMatch(
      /^May I send this email\? send_email; Sends one email from the team account\.; to: ada@example\.com; /,
    );
    expect(text).not.toMatch(/[\n\t]/);
    await w.send(textReply(to, 'approve', message.id));
    expect((await w.record(id))['result']).toMatchObject({ answer: { decision: 'approve' } });
  });

  it('approves on one tap; the outcome is a reply naming who approved', async () => {
    const { id, message, to } = await ask({ decisions: ['approve', 'reject'] });
    expect(buttonsOf(message.payload).map((b) => b.title)).toEqual(['Approve', 'Reject']);
    expect(await w.send(buttonReply(to, message.id, `${id}:a`, 'Approve'))).toBe(200);
    expect((await w.record(id))['result']).toMatchObject({
      answer: { decision: 'approve' },
      answered_by: `whatsapp:+${to}`,
    });
    expect(bodyOf(await w.replyTo(to, message.id))).toContain('✅ Approved by');
  });

  it('a reply rejects with its reason, or responds with other words', async () => {
    const first = await ask();
    await w.send(textReply(first.to, 'reject - wrong recipient', first.message.id));
    expect((await w.record(first.id))['result']).toMatchObject({
      answer: { decision: 'reject', message: 'wrong recipient' },
    });
    expect(bodyOf(await w.replyTo(first.to, first.message.id))).toContain('❌ Rejected by');
    const second = await ask();
    await w.send(textReply(second.to, 'Ask Grace first', second.message.id));
    expect((await w.record(second.id))['result']).toMatchObject({
      answer: { decision: 'respond', message: 'Ask Grace first' },
    });
  });

  it('Edit answers with a Flow pre-filled with the proposed arguments; its submission answers edit', async () => {
    const { id, message, to } = await ask();
    const tap = buttonReply(to, message.id, `${id}:e`, 'Edit');
    expect(await w.send(tap)).toBe(200);
    const flowMessage = await w.replyTo(to, inboundId(tap));
    const params = ((flowMessage.payload['interactive'] as Rec)['action'] as Rec)['parameters'] as Rec;
    expect(params['flow_token']).toBe(`askgate:${id}`);
    const data = (params['flow_action_payload'] as Rec)['data'] as Rec;
    expect(data).toMatchObject({ v0: 'ada@example.com', v1: 'Quarterly report', v3: 'o2' });
    expect(String(data['v2']).startsWith('Hello team,')).toBe(true);
    // The published Flow starts every input from that data.
    const flow = w.fake.flows.get(params['flow_id'] as string);
    const children = ((flow?.json?.['screens'] as Rec[])[0]?.['layout'] as Rec)['children'] as Rec[];
    expect(children.slice(0, 4).map((c) => c['init-value'])).toEqual([
      '${data.v0}',
      '${data.v1}',
      '${data.v2}',
      '${data.v3}',
    ]);
    expect((await w.record(id))['status']).toBe('pending');

    const submitted = {
      flow_token: `askgate:${id}`,
      f0: 'board@example.com',
      f1: 'Q3 (final)',
      f2: 'Short.',
      f3: 'o1',
    };
    await w.send(nfmReply(to, flowMessage.id, submitted));
    expect((await w.record(id))['result']).toMatchObject({
      answer: {
        decision: 'edit',
        args: { to: 'board@example.com', subject: 'Q3 (final)', body: 'Short.', priority: 'normal' },
      },
    });
    expect(bodyOf(await w.replyTo(to, message.id))).toContain('✏️ Edited by');
  });
});
