import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamsWorld, type TeamsWorld } from './teams-harness.js';
import { ADA, cardOf, controlsOf, type FakeTeamsMessage } from '../fakes/teams-server.js';

type Json = Record<string, unknown>;

/** Reviews on Teams: the action readable on the card, approve/reject as taps, edit as the form pre-filled. */
describe('teams: reviews', () => {
  let w: TeamsWorld;
  beforeAll(async () => {
    w = await startTeamsWorld();
  });
  afterAll(async () => w.close());

  const CARD = 'application/vnd.microsoft.card.adaptive';
  const result = async (id: string): Promise<Json> => (await w.record(id))['result'] as Json;
  const body = (card: unknown): Json[] => ((card as Json)['body'] as Json[]) ?? [];
  const review = {
    question: 'Send the refund?',
    answer_format: 'review',
    action: { name: 'refund', args: { order: 'A-17', amount: 40 }, description: 'Refund an order in full' },
    schema: {
      type: 'object',
      required: ['order', 'amount'],
      properties: { order: { type: 'string', minLength: 2 }, amount: { type: 'number', minimum: 1, maximum: 100 } },
    },
    decisions: ['approve', 'edit', 'reject', 'respond'],
  };
  /** The card as the person saw it when they pressed (the fake replaces `message` with what askgate answers). */
  const seen = (message: FakeTeamsMessage): FakeTeamsMessage => ({
    ...message,
    activity: message.history[0] as Json,
    history: [],
  });

  it('shows the action and its args, with one Action.Execute per decision; Approve is one tap', async () => {
    const { id, message } = await w.ask(review);
    const card = cardOf(message) as Json;
    expect(body(card)).toContainEqual({
      type: 'FactSet',
      facts: [
        { title: 'order', value: 'A-17' },
        { title: 'amount', value: '40' },
      ],
    });
    expect(body(card).map((e) => e['text'])).toContain('refund');
    expect(((card['actions'] as Json[]) ?? []).map((a) => [a['title'], (a['data'] as Json)['askgate']])).toEqual([
      ['Approve', `${id}:a`],
      ['Edit', `${id}:e`],
      ['Reject', `${id}:r`],
      ['Respond', `${id}:m`],
    ]);
    const tap = await w.fake.press(message, 'Approve');
    expect(tap.body).toMatchObject({ type: CARD });
    expect(await result(id)).toMatchObject({
      answer: { decision: 'approve' },
      answered_by: `teams:${ADA.aadObjectId}`,
    });
    await w.edited(message, 3);
    expect(controlsOf(message)).toEqual([]);
  });

  it('Edit answers with the form pre-filled with the proposed args; a refused value comes back, a good one answers', async () => {
    const { id, message } = await w.ask(review);
    const opened = await w.fake.press(seen(message), 'Edit');
    expect(opened.body).toMatchObject({ statusCode: 200, type: CARD });
    const form = opened.body?.['value'] as Json;
    expect(body(form).filter((e) => String(e['type']).startsWith('Input.'))).toMatchObject([
      { id: 'f0', type: 'Input.Text', value: 'A-17', isRequired: true },
      { id: 'f1', type: 'Input.Number', value: '40', min: 1, max: 100 },
    ]);
    expect((await w.record(id))['status']).toBe('pending');
    const formMessage: FakeTeamsMessage = {
      ...message,
      activity: { type: 'message', attachments: [{ contentType: CARD, content: form }] },
      history: [],
    };
    const refused = await w.fake.press(formMessage, 'Approve with these', { inputs: { f0: 'A-17', f1: '400' } });
    expect(body(refused.body?.['value']).map((e) => e['text'])).toContain('Enter a number of at most 100.');
    expect((await w.record(id))['status']).toBe('pending');
    await w.fake.press(formMessage, 'Approve with these', { inputs: { f0: 'A-18', f1: '25' } });
    expect(await result(id)).toMatchObject({ answer: { decision: 'edit', args: { order: 'A-18', amount: 25 } } });
    await w.edited(message);
    expect(String(body(cardOf(message))[1]?.['text'])).toMatch(/^✏️ Edited by Ada Lovelace \(teams:.+\) on Teams$/);
  });

  it('Reject is one tap; Respond opens a card whose words go back to the agent', async () => {
    const rejected = await w.ask(review);
    await w.fake.press(rejected.message, 'Reject');
    expect(await result(rejected.id)).toMatchObject({ answer: { decision: 'reject' } });

    const { id, message } = await w.ask(review);
    const opened = await w.fake.press(seen(message), 'Respond');
    const card = opened.body?.['value'] as Json;
    expect(body(card)).toContainEqual(
      expect.objectContaining({ type: 'Input.Text', id: 'askgate_message', isRequired: true }),
    );
    const respondMessage: FakeTeamsMessage = {
      ...message,
      activity: { type: 'message', attachments: [{ contentType: CARD, content: card }] },
      history: [],
    };
    await w.fake.press(respondMessage, 'Send', {
      inputs: { askgate_message: 'Refund half, the rest is store credit' },
    });
    expect(await result(id)).toMatchObject({
      answer: { decision: 'respond', message: 'Refund half, the rest is store credit' },
    });
  });

  it('a reply to the review in its thread answers it: "approve" approves', async () => {
    const { id, message, conversation } = await w.ask(review);
    expect((await w.fake.say(conversation, 'approve', { replyToId: message.id })).status).toBe(200);
    expect(await result(id)).toMatchObject({ answer: { decision: 'approve' }, reply_to: { message_id: message.id } });
  });
});
