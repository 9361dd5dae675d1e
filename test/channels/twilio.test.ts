import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PUBLIC_BASE,
  SMS_FROM,
  WA_FROM,
  freshPhone,
  startTwilioWorld,
  tagIn,
  type TwilioWorld,
} from './twilio-harness.js';
import { segments } from '../../channels/twilio/render.js';
import { verify } from '../../channels/twilio/verify.js';
import { AUTH_TOKEN, signTwilio } from '../fakes/twilio-server.js';

type Rec = Record<string, unknown>;
const result = (r: Rec): Rec => r['result'] as Rec;

describe('twilio channel over the fake Twilio API', () => {
  let w: TwilioWorld;
  beforeAll(async () => {
    w = await startTwilioWorld();
  });
  afterAll(async () => w.close());

  it('SMS confirm: "Reply YES or NO", answered by "yes"; the TwiML reply acknowledges it', async () => {
    const q = await w.ask({ question: 'Restart the primary database?', answer_format: 'confirm' });
    expect(q.message.from).toBe(SMS_FROM);
    expect(q.message.body).toMatch(/^\[#\d{3}\] Restart the primary database\?\nReply YES or NO\.$/);
    expect(q.message.statusCallback).toBe(`${PUBLIC_BASE}/channels/twilio/status`);
    // Tied to the question by its tag, the reply quotes it.
    const res = await w.text(q.to, `${tagIn(q.message.body)} Yes`);
    expect(res.status).toBe(200);
    expect(res.body).toContain('<Response><Message>');
    expect(res.body).toContain('Answer recorded');
    expect(result(await w.record(q.id))).toMatchObject({
      answer: true,
      surface: 'twilio',
      answered_by: `twilio:${q.to}`,
      reply_to: { message_id: q.message.sid, text: 'Restart the primary database?' },
    });
  });

  it('an untagged SMS answers the latest open question and quotes nothing: reply_to is null', async () => {
    const q = await w.ask({ question: 'Rotate the keys?', answer_format: 'confirm' });
    expect((await w.text(q.to, 'yes')).body).toContain('Answer recorded');
    expect(result(await w.record(q.id))).toMatchObject({ answer: true, reply_to: null });
  });

  it('SMS select: numbered choices, answered by the number', async () => {
    const q = await w.ask({
      question: 'Which region?',
      answer_format: 'select',
      choices: ['eu-west-1', 'us-east-1', 'ap-south-1'],
    });
    expect(q.message.body).toContain('\n2. us-east-1');
    await w.text(q.to, '2');
    expect(result(await w.record(q.id))['answer']).toBe('us-east-1');
  });

  it('a reply that does not fit is told the choices, and the question stays open', async () => {
    const q = await w.ask({ question: 'Which?', answer_format: 'select', choices: ['a', 'b'] });
    const res = await w.text(q.to, '7');
    expect(res.body).toContain('Please answer with one of: 1. a, 2. b');
    expect((await w.record(q.id))['status']).toBe('pending');
  });

  it('several questions to one number: a bare reply answers the latest, "#tag" names another', async () => {
    const to = freshPhone();
    const first = await w.ask({ question: 'First?', answer_format: 'confirm', recipient: to });
    const second = await w.ask({ question: 'Second?', answer_format: 'confirm', recipient: to });
    await w.text(to, 'no');
    expect((await w.record(second.id))['status']).toBe('answered');
    expect((await w.record(first.id))['status']).toBe('pending');
    const tag = /^\[#(\d{3})\]/.exec(first.message.body)![1];
    const third = await w.ask({ question: 'Third?', answer_format: 'confirm', recipient: to });
    await w.text(to, `#${tag} yes`);
    expect(result(await w.record(first.id))['answer']).toBe(true);
    expect((await w.record(third.id))['status']).toBe('pending');
  });

  it('a long question stays within the SMS segment limit and links the callback page', async () => {
    const q = await w.ask({ question: `Please review: ${'the deployment plan '.repeat(60)}`, answer_format: 'text' });
    expect(segments(q.message.body)).toBeLessThanOrEqual(3);
    expect(q.message.body).toMatch(/Full question: https:\/\/askgate\.example\.com\/api\/interactions\/callback\//);
  });

  it('a form is refused at ask time: Twilio advertises no form delivery', async () => {
    const res = await w.http.post('/api/interactions', {
      question: 'Form?',
      answer_format: 'form',
      channel: 'twilio',
      recipient: freshPhone(),
      schema: { type: 'object', properties: { a: { type: 'string' } } },
    });
    expect(res.status).toBe(400);
    expect(res.json['message']).toContain('channel "twilio" cannot deliver forms');
    expect(w.fake.sent.filter((m) => m.body.includes('Form?'))).toHaveLength(0);
  });

  it('STOP is never an answer; a question to an opted-out number fails at ask time with the reason', async () => {
    const q = await w.ask({ question: 'Keep going?', answer_format: 'text' });
    const res = await w.text(q.to, 'STOP', { OptOutType: 'STOP' });
    expect(res.status).toBe(200);
    expect(res.body).not.toContain('<Message>');
    expect((await w.record(q.id))['status']).toBe('pending');
    // Nothing more reaches the number: its pending question is undeliverable, its delivery failed with 21610.
    expect(await w.record(q.id)).toMatchObject({
      undeliverable: true,
      deliveries: [{ channel: 'twilio', recipient: q.to, status: 'failed', error: { code: '21610' } }],
    });
    w.fake.optOut(q.to); // what Twilio does on STOP
    const refused = await w.http.post('/api/interactions', {
      question: 'Still there?',
      answer_format: 'confirm',
      channel: 'twilio',
      recipient: q.to,
    });
    expect(refused.status).toBe(502);
    expect(refused.json['message']).toMatch(/21610 Attempt to send to unsubscribed recipient.*START/);
    // START opts back in (Twilio's side) and is not an answer either.
    expect((await w.text(q.to, 'START')).status).toBe(200);
    expect((await w.record(q.id))['status']).toBe('pending');
    w.fake.optIn(q.to); // what Twilio does on START: the number takes questions again
    const again = await w.ask({ question: 'Back again?', answer_format: 'confirm', recipient: q.to });
    expect(await w.record(again.id)).toMatchObject({ deliveries: [{ status: 'sent' }] });
    expect((await w.record(again.id))['undeliverable']).toBeUndefined();
  });

  it("Twilio's own signed status callbacks are accepted and move the question to delivered", async () => {
    const q = await w.ask({ question: 'Receipts?', answer_format: 'text' });
    const deadline = Date.now() + 10_000;
    while (w.fake.callbacks.filter((c) => c.sid === q.message.sid).length < 2) {
      if (Date.now() > deadline) throw new Error('the fake never sent its status callbacks');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(w.fake.callbacks.filter((c) => c.sid === q.message.sid)).toEqual([
      { sid: q.message.sid, status: 'sent', httpStatus: 204 },
      { sid: q.message.sid, status: 'delivered', httpStatus: 204 },
    ]);
    expect((await w.gw.gateway.store.get(q.id))?.delivery?.['status']).toBe('delivered');
  });

  it('status callbacks update the delivery status that reply_to reports', async () => {
    const q = await w.ask({ question: 'Status?', answer_format: 'text' });
    expect(await w.status(q.message.sid, 'sent')).toBe(204);
    expect(await w.status(q.message.sid, 'delivered')).toBe(204);
    expect(await w.status(q.message.sid, 'sent')).toBe(204);
    expect((await w.gw.gateway.store.get(q.id))?.delivery?.['status']).toBe('delivered');
    expect(await w.status(q.message.sid, 'read', 'bad')).toBe(401);
    await w.text(q.to, `${tagIn(q.message.body)} all good`);
    expect(result(await w.record(q.id))['reply_to']).toMatchObject({ status: 'delivered' });
  });

  it('WhatsApp via Twilio: sent from the WhatsApp sender; a reply with OriginalRepliedMessageSid gives reply_to, media gives media_*', async () => {
    const to = `whatsapp:${freshPhone()}`;
    const first = await w.ask({ question: 'Photo of the rack?', answer_format: 'text', recipient: to });
    await w.ask({ question: 'Later question', answer_format: 'text', recipient: to });
    expect(first.message.from).toBe(WA_FROM);
    await w.text(to, 'rack A', {
      OriginalRepliedMessageSid: first.message.sid,
      NumMedia: '1',
      MediaUrl0: 'https://api.twilio.com/2010-04-01/Accounts/AC/Messages/MM1/Media/ME1',
      MediaContentType0: 'image/jpeg',
      ProfileName: 'Ada',
    });
    const r = result(await w.record(first.id));
    expect(r['answer']).toBe('rack A');
    expect(r['reply_to']).toMatchObject({ message_id: first.message.sid, text: 'Photo of the rack?' });
    expect(r['params']).toMatchObject({
      media_kind: 'image',
      media_content_type: 'image/jpeg',
      media_count: '1',
      media_url: expect.stringContaining('/Media/ME1'),
      profile_name: 'Ada',
    });
  });

  it('WhatsApp via Twilio: a quick-reply ButtonPayload answers the question it names', async () => {
    const to = `whatsapp:${freshPhone()}`;
    const q = await w.ask({ question: 'Approve?', answer_format: 'confirm', recipient: to });
    await w.text(to, 'Yes', { ButtonPayload: `${q.id}:y`, ButtonText: 'Yes' });
    expect(result(await w.record(q.id))).toMatchObject({ answer: true, params: { button_text: 'Yes' } });
  });

  it('signature: a wrong or missing X-Twilio-Signature is 401; a signature over another URL is refused too', async () => {
    const q = await w.ask({ question: 'Signed?', answer_format: 'confirm' });
    expect((await w.text(q.to, 'yes', {}, false)).status).toBe(401);
    expect((await w.text(q.to, 'yes', {}, 'bm90LWEtc2lnbmF0dXJl')).status).toBe(401);
    expect((await w.record(q.id))['status']).toBe('pending');
  });
});

describe("twilio signature verification (the package's validateRequest over the public URL)", () => {
  const params = { From: '+15550001', Body: 'yes', MessageSid: 'SM1' };
  const url = 'https://askgate.example.com/channels/twilio/sms';
  const form = (p: Record<string, string>): string => new URLSearchParams(p).toString();
  it('accepts the signature over the public URL and refuses one over the internal address', () => {
    const headers = { 'x-twilio-signature': signTwilio(url, params) };
    expect(verify({ secret: AUTH_TOKEN, url, rawBody: form(params), headers, now: 0 }).ok).toBe(true);
    expect(
      verify({
        secret: AUTH_TOKEN,
        url: 'http://127.0.0.1:8080/channels/twilio/sms',
        rawBody: form(params),
        headers,
        now: 0,
      }).ok,
    ).toBe(false);
    expect(verify({ secret: AUTH_TOKEN, url, rawBody: form({ ...params, Body: 'no' }), headers, now: 0 }).ok).toBe(
      false,
    );
    expect(verify({ secret: AUTH_TOKEN, url, rawBody: form(params), headers: {}, now: 0 }).ok).toBe(false);
  });
});
