import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SentMessage } from '../fakes/whatsapp-graph.js';
import { buttonReply } from '../fakes/whatsapp-webhooks.js';
import { freshPhone, startTwilioWorld, tagIn, type TwilioWorld } from './twilio-harness.js';
import { freshRecipient, startWebWorld, type WebWorld } from './web-harness.js';
import { freshNumber, startWhatsAppWorld, type WhatsAppWorld } from './whatsapp-harness.js';

/**
 * `approvers` on the channels that had no test of them (docs/surfaces.md, "approvers: who may answer"): on WhatsApp
 * (`whatsapp:<wa_id>`), Twilio (`twilio:<E.164>`) and the web chat (`web:<recipient>`), a person not on the list is
 * refused — told so, to them alone, in their own thread (the web chat: a 403) — the refusal is in the audit trail
 * as answer_refused by that verified id, and the question stays pending; an approver's answer is taken. On WhatsApp
 * a tap refused for another reason (the question already answered) is told too: a tap never goes unanswered.
 */

type Rec = Record<string, unknown>;
const NOT_AN_APPROVER = 'Only the approvers named for this question may answer it; your answer was not taken.';

const trail = async (http: { get(path: string): Promise<{ json: Rec }> }, id: string): Promise<Rec[]> =>
  (await http.get(`/api/interactions/${id}/events`)).json['items'] as Rec[];

describe('approvers on WhatsApp', () => {
  let w: WhatsAppWorld;
  beforeAll(async () => {
    w = await startWhatsAppWorld();
  });
  afterAll(async () => w?.close());

  /** The question to two numbers, `approver` the only one named; the message each received. */
  const askBoth = async (): Promise<{
    id: string;
    approver: string;
    other: string;
    sent: (to: string) => SentMessage;
  }> => {
    const [approver, other] = [freshNumber(), freshNumber()];
    const res = await w.http.post('/api/interactions', {
      question: 'Ship it?',
      answer_format: 'confirm',
      deliver: [
        { channel: 'whatsapp', recipient: `+${approver}` },
        { channel: 'whatsapp', recipient: `+${other}` },
      ],
      approvers: [`whatsapp:${approver}`],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const sent = (to: string): SentMessage => {
      const m = w.fake.sentTo(to)[0];
      if (m === undefined) throw new Error(`nothing was sent to ${to}`);
      return m;
    };
    return { id: res.json['id'] as string, approver, other, sent };
  };
  const yesId = (m: SentMessage): string =>
    (
      ((m.payload['interactive'] as Rec)['action'] as Rec)['buttons'] as Array<{ reply: { id: string; title: string } }>
    ).find((b) => b.reply.title === 'Yes')!.reply.id;

  it('a tap by a number not on the list is refused and that number is told, quoting its tap; the approver answers', async () => {
    const q = await askBoth();
    const tap = buttonReply(q.other, q.sent(q.other).id, yesId(q.sent(q.other)), 'Yes');
    expect(await w.send(tap)).toBe(200);
    const told = await w.replyTo(q.other, inboundIdOf(tap));
    expect(told.payload).toMatchObject({ type: 'text', text: { body: NOT_AN_APPROVER } });
    expect((await w.record(q.id))['status']).toBe('pending');
    // Nothing was said to the approver.
    expect(w.fake.sentTo(q.approver)).toHaveLength(1);
    expect((await trail(w.http, q.id)).find((e) => e['type'] === 'answer_refused')).toMatchObject({
      by: `whatsapp:+${q.other}`,
      surface: 'whatsapp',
    });
    expect(await w.send(buttonReply(q.approver, q.sent(q.approver).id, yesId(q.sent(q.approver)), 'Yes'))).toBe(200);
    expect((await w.record(q.id))['result']).toMatchObject({ answer: true, answered_by: `whatsapp:+${q.approver}` });
  });

  it('a tap on a question already answered is told so, quoting the tap', async () => {
    const q = await w.ask({ question: 'Once?', answer_format: 'confirm' });
    expect(await w.send(buttonReply(q.to, q.message.id, yesId(q.message), 'Yes'))).toBe(200);
    expect((await w.record(q.id))['status']).toBe('answered');
    const again = buttonReply(q.to, q.message.id, yesId(q.message), 'Yes');
    expect(await w.send(again)).toBe(200);
    const told = await w.replyTo(q.to, inboundIdOf(again));
    expect(told.payload).toMatchObject({ type: 'text', text: { body: 'This question is already answered.' } });
  });
});

/** The wamid of the inbound message a webhook body carries (what askgate quotes when it answers it). */
function inboundIdOf(body: unknown): string {
  const value = (((body as Rec)['entry'] as Rec[])[0]!['changes'] as Rec[])[0]!['value'] as Rec;
  return ((value['messages'] as Rec[])[0] as Rec)['id'] as string;
}

describe('approvers on Twilio', () => {
  let w: TwilioWorld;
  beforeAll(async () => {
    w = await startTwilioWorld({ statusCallbacks: false });
  });
  afterAll(async () => w?.close());

  it("a number not on the list is told so in its TwiML reply; the approver's reply answers", async () => {
    const [approver, other] = [freshPhone(), freshPhone()];
    const res = await w.http.post('/api/interactions', {
      question: 'Ship it?',
      answer_format: 'confirm',
      deliver: [
        { channel: 'twilio', recipient: approver },
        { channel: 'twilio', recipient: other },
      ],
      approvers: [`twilio:${approver}`],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const id = res.json['id'] as string;
    const tag = tagIn(w.fake.sentTo(other)[0]!.body);
    const refused = await w.text(other, `${tag} yes`);
    expect(refused.status).toBe(200);
    expect(refused.body).toContain(NOT_AN_APPROVER);
    expect((await w.record(id))['status']).toBe('pending');
    expect((await trail(w.http, id)).find((e) => e['type'] === 'answer_refused')).toMatchObject({
      by: `twilio:${other}`,
      surface: 'twilio',
    });
    const taken = await w.text(approver, `${tag} yes`);
    expect(taken.body).toContain('Answer recorded');
    expect((await w.record(id))['result']).toMatchObject({ answer: true, answered_by: `twilio:${approver}` });
  });
});

describe('approvers on the web chat', () => {
  let w: WebWorld;
  beforeAll(async () => {
    w = await startWebWorld();
  });
  afterAll(async () => w?.close());

  it('a recipient not on the list gets 403 not_an_approver and changes nothing; the approver answers', async () => {
    const [alice, bob] = [freshRecipient(), freshRecipient()];
    const res = await w.http.post('/api/interactions', {
      question: 'Ship it?',
      answer_format: 'confirm',
      deliver: [
        { channel: 'web', recipient: alice },
        { channel: 'web', recipient: bob },
      ],
      approvers: [`web:${alice}`],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const id = res.json['id'] as string;
    const refused = await w.chatAs(bob).post(`/chat/api/questions/${id}/reply`, { text: 'yes' });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ error: 'not_an_approver', message: NOT_AN_APPROVER });
    expect((await w.http.get(`/api/interactions/${id}`)).json['status']).toBe('pending');
    expect((await trail(w.http, id)).find((e) => e['type'] === 'answer_refused')).toMatchObject({
      by: `web:${bob}`,
      surface: 'web',
    });
    const taken = await w.chatAs(alice).post(`/chat/api/questions/${id}/reply`, { text: 'yes' });
    expect(taken.status).toBe(200);
    expect((await w.http.get(`/api/interactions/${id}`)).json['result']).toMatchObject({
      answer: true,
      answered_by: `web:${alice}`,
    });
  });
});
