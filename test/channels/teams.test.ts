import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshConversation, startTeamsWorld, type TeamsWorld } from './teams-harness.js';
import { ADA, BOB, cardOf, controlsOf, wordsOf, type FakeTeamsMessage } from '../fakes/teams-server.js';

type Json = Record<string, unknown>;

/** Every format answered on Teams, end to end: the real gateway against the fake Bot Framework. */
describe('teams channel', () => {
  let w: TeamsWorld;
  beforeAll(async () => {
    w = await startTeamsWorld();
  });
  afterAll(async () => w.close());

  const result = async (id: string): Promise<Json> => (await w.record(id))['result'] as Json;
  const CARD = 'application/vnd.microsoft.card.adaptive';
  const TOAST = 'application/vnd.microsoft.activity.message';
  const blocks = (card: unknown): string[] =>
    (((card as Json)['body'] as Json[]) ?? []).filter((e) => e['type'] === 'TextBlock').map((e) => String(e['text']));

  it('confirm: Yes is an Action.Execute; the invoke is answered with the outcome card, and the message is replaced by it', async () => {
    const { id, message, conversation } = await w.ask({ question: 'Deploy now?', answer_format: 'confirm' });
    expect(cardOf(message)?.['actions']).toEqual([
      { type: 'Action.Execute', title: 'Yes', verb: 'askgate.answer', data: { askgate: `${id}:y` }, style: 'positive' },
      {
        type: 'Action.Execute',
        title: 'No',
        verb: 'askgate.answer',
        data: { askgate: `${id}:n` },
        style: 'destructive',
      },
    ]);
    const tap = await w.fake.press(message, 'Yes');
    expect(tap.status).toBe(200);
    expect(tap.body).toMatchObject({ statusCode: 200, type: CARD });
    const line = `✅ Approved by Ada Lovelace (teams:${ADA.aadObjectId}) on Teams`;
    expect(blocks(tap.body?.['value'])).toEqual(['Deploy now?', line]);
    expect((tap.body?.['value'] as Json)['actions']).toBeUndefined();
    const r = await result(id);
    expect(r).toMatchObject({
      answer: true,
      surface: 'teams',
      answered_by: `teams:${ADA.aadObjectId}`,
      reply_to: null,
    });
    expect(r['params']).toEqual({
      user_id: ADA.aadObjectId,
      user_name: 'Ada Lovelace',
      conversation_id: conversation,
      conversation_type: 'personal',
      tenant_id: w.fake.tenantId,
      activity_id: expect.any(String),
    });
    // The invoke's card, then the outcome PUT of the core: the message ends with no controls.
    await w.edited(message, 3);
    expect(wordsOf(message)).toBe(`Deploy now?\n${line}`);
    expect(controlsOf(message)).toEqual([]);
  });

  it('a repeated invoke (the same activity id) gets the same card and changes nothing', async () => {
    const { id, message } = await w.ask({ question: 'Restart?', answer_format: 'confirm' });
    // The card as the person saw it when they pressed (the fake replaces `message` with what askgate answers).
    const seen = (): FakeTeamsMessage => ({ ...message, activity: message.history[0] as Json, history: [] });
    const first = await w.fake.press(seen(), 'No', { id: 'invoke-1' });
    expect(first.body).toMatchObject({ type: CARD });
    const answeredAt = (await result(id))['answered_at'];
    await w.edited(message);
    const versions = message.history.length;
    // Teams' retry of the same invoke; even were it another button, the first answer stands.
    expect(await w.fake.press(seen(), 'No', { id: 'invoke-1' })).toEqual(first);
    expect(await w.fake.press(seen(), 'Yes', { id: 'invoke-1' })).toEqual(first);
    expect(await result(id)).toMatchObject({ answer: false, answered_at: answeredAt });
    expect(message.history.length).toBe(versions);
  });

  it('a repeat of a refused form submission, after a good one answered, still gets its own refusal card', async () => {
    const schema = { type: 'object', required: ['age'], properties: { age: { type: 'integer', minimum: 18 } } };
    const { id, message } = await w.ask({ question: 'Age?', answer_format: 'form', schema });
    const seen = (): FakeTeamsMessage => ({ ...message, activity: message.history[0] as Json, history: [] });
    const refused = await w.fake.press(seen(), 'Submit', { id: 'form-a', inputs: { f0: '9' } });
    expect(blocks(refused.body?.['value'])).toContain('Enter a number of at least 18.');
    await w.fake.press(seen(), 'Submit', { id: 'form-b', inputs: { f0: '40' } });
    expect(await w.fake.press(seen(), 'Submit', { id: 'form-a', inputs: { f0: '9' } })).toEqual(refused);
    expect(await result(id)).toMatchObject({ answer: { age: 40 } });
  });

  it('a conversation askgate never heard from is a 400 naming recipient, and nothing is stored or sent', async () => {
    const silent = freshConversation();
    w.fake.addSilentConversation(silent);
    const before = w.fake.counts.connector;
    const group = `silent-${Date.now()}`;
    const res = await w.http.post('/api/interactions', {
      group_id: group,
      question: 'Anyone?',
      answer_format: 'confirm',
      channel: 'teams',
      recipient: silent,
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: 'invalid_request', field: 'recipient' });
    expect(res.json['message']).toContain('no Teams conversation askgate has heard from');
    expect(w.fake.counts.connector).toBe(before);
    expect((await w.http.get(`/api/interactions?group_id=${group}`)).json['items']).toEqual([]);
  });

  it('select: up to five choices are buttons; more are a choice set answered by its index', async () => {
    const few = await w.ask({ question: 'Region?', answer_format: 'select', choices: ['eu-west', 'us-east'] });
    expect(((cardOf(few.message)?.['actions'] as Json[]) ?? []).map((a) => a['title'])).toEqual(['eu-west', 'us-east']);
    await w.fake.press(few.message, 'us-east');
    expect(await result(few.id)).toMatchObject({ answer: 'us-east' });

    const choices = ['a1', 'b2', 'c3', 'd4', 'e5', 'f6', 'g7'];
    const many = await w.ask({ question: 'Which?', answer_format: 'select', choices });
    const set = controlsOf(many.message).find((c) => c['type'] === 'Input.ChoiceSet');
    expect(set).toMatchObject({ id: 'askgate_choice', isRequired: true, style: 'compact' });
    expect((set?.['choices'] as Json[])[6]).toEqual({ title: 'g7', value: '6' });
    const tap = await w.fake.press(many.message, 'Answer', { inputs: { askgate_choice: '6' } });
    expect(tap.body).toMatchObject({ type: CARD });
    expect(await result(many.id)).toMatchObject({ answer: 'g7' });
  });

  const SCHEMA = {
    type: 'object',
    required: ['name', 'age', 'start'],
    properties: {
      name: { type: 'string', title: 'Name', minLength: 2, errorMessages: { invalid: 'Your full name, please.' } },
      age: { type: 'integer', title: 'Age', minimum: 18, maximum: 130 },
      start: { type: 'string', format: 'date', title: 'Start', formatMinimum: '2026-01-01' },
      remote: { type: 'boolean', title: 'Remote' },
      team: { type: 'string', enum: ['red', 'green'] },
      tags: { type: 'array', items: { type: 'string', enum: ['x', 'y', 'z'] } },
    },
  };

  it('form: the subset as card inputs; a refused field comes back in the form with its sentence; a good one answers', async () => {
    const { id, message } = await w.ask({ question: 'Onboarding', answer_format: 'form', schema: SCHEMA });
    const inputs = controlsOf(message).filter((c) => String(c['type']).startsWith('Input.'));
    expect(inputs).toMatchObject([
      {
        id: 'f0',
        type: 'Input.Text',
        label: 'Name',
        isRequired: true,
        regex: '^[\\s\\S]{2,}$',
        errorMessage: 'Your full name, please.',
      },
      { id: 'f1', type: 'Input.Number', label: 'Age', isRequired: true, min: 18, max: 130 },
      { id: 'f2', type: 'Input.Date', label: 'Start', isRequired: true, min: '2026-01-01' },
      { id: 'f3', type: 'Input.Toggle', label: 'Remote (optional)', valueOn: 'true', valueOff: 'false' },
      { id: 'f4', type: 'Input.ChoiceSet', style: 'expanded', isMultiSelect: false },
      {
        id: 'f5',
        type: 'Input.ChoiceSet',
        isMultiSelect: true,
        choices: [
          { title: 'x', value: '0' },
          { title: 'y', value: '1' },
          { title: 'z', value: '2' },
        ],
      },
    ]);

    const refused = await w.fake.press(message, 'Submit', {
      inputs: { f0: 'Ada', f1: '12', f2: '2026-03-01', f3: 'false', f4: '1', f5: '0,2' },
    });
    expect(refused.body).toMatchObject({ statusCode: 200, type: CARD });
    const again = refused.body?.['value'] as Json;
    const body = again['body'] as Json[];
    const age = body.findIndex((e) => e['id'] === 'f1');
    expect(body[age]).toMatchObject({ value: '12' });
    expect(body[age + 1]).toEqual({
      type: 'TextBlock',
      text: 'Enter a number of at least 18.',
      wrap: true,
      color: 'Attention',
    });
    expect(body.find((e) => e['id'] === 'f0')).toMatchObject({ value: 'Ada' });
    expect((await w.record(id))['status']).toBe('pending');

    const taken = await w.fake.press(message, 'Submit', {
      inputs: { f0: 'Ada', f1: '36', f2: '2026-03-01', f3: 'true', f4: '1', f5: '0,2' },
    });
    expect(taken.body).toMatchObject({ type: CARD });
    expect(await result(id)).toMatchObject({
      answer: { name: 'Ada', age: 36, start: '2026-03-01', remote: true, team: 'green', tags: ['x', 'z'] },
      answered_by: `teams:${ADA.aadObjectId}`,
    });
  });

  it('text: a plain message answered by a reply to it, which maps reply_to', async () => {
    const { id, message, conversation } = await w.ask({ question: 'Why the rollback?', answer_format: 'text' });
    expect(message.activity).toEqual({
      type: 'message',
      textFormat: 'plain',
      text: 'Why the rollback?\n\nReply to this message to answer.',
    });
    expect((await w.fake.say(conversation, '<p>The canary failed</p>', { replyToId: message.id })).status).toBe(200);
    expect(await result(id)).toMatchObject({
      answer: 'The canary failed',
      reply_to: { message_id: message.id, status: 'pending', text: 'Why the rollback?' },
    });
    await w.edited(message);
    expect(String(message.activity['text'])).toBe(
      `Why the rollback?\n\n✅ Answered by Ada Lovelace (teams:${ADA.aadObjectId}) on Teams: “The canary failed”`,
    );
  });

  it('a reply inside the channel thread a question started answers it (conversation id ;messageid=)', async () => {
    const channel = await w.conversation('channel');
    const { id, message } = await w.ask({ question: 'Ship it?', answer_format: 'confirm', recipient: channel });
    w.fake.addSilentConversation(`${channel};messageid=${message.id}`);
    expect((await w.fake.say(`${channel};messageid=${message.id}`, '<at>askgate</at> yes')).status).toBe(200);
    expect(await result(id)).toMatchObject({ answer: true, reply_to: { message_id: message.id } });
  });

  it('approvers are teams:<aadObjectId>: another person is told so privately and nothing changes', async () => {
    const { id, message } = await w.ask({
      question: 'Pay the invoice?',
      answer_format: 'confirm',
      approvers: [`teams:${BOB.aadObjectId}`],
    });
    const ada = await w.fake.press(message, 'Yes');
    expect(ada.body).toEqual({
      statusCode: 200,
      type: TOAST,
      value: 'Only the approvers named for this question may answer it; your answer was not taken.',
    });
    expect((await w.record(id))['status']).toBe('pending');
    const bob = await w.fake.press(message, 'Yes', { from: BOB });
    expect(bob.body).toMatchObject({ type: CARD });
    expect(await result(id)).toMatchObject({ answered_by: `teams:${BOB.aadObjectId}` });
  });

  it('a late reply is answered in the thread; a tap on an ended question gets its outcome card', async () => {
    const { id, message, conversation } = await w.ask({ question: 'Late?', answer_format: 'confirm' });
    expect((await w.http.post(`/api/interactions/${id}/answer`, { answer: false })).status).toBe(200);
    await w.edited(message);
    expect((await w.fake.say(conversation, 'yes', { replyToId: message.id })).status).toBe(200);
    const replies = w.fake.messagesIn(conversation).filter((m) => m.replyToId === message.id);
    expect(replies.map((m) => m.activity['text'])).toEqual(['This question is already answered.']);
    const stale: FakeTeamsMessage = { ...message, history: [...message.history], activity: message.history[0] as Json };
    const tap = await w.fake.press(stale, 'Yes');
    expect(blocks(tap.body?.['value'])).toEqual([
      'Late?',
      expect.stringMatching(/^❌ Rejected by .+ through the API$/),
    ]);
    expect(await result(id)).toMatchObject({ answer: false, surface: 'api' });
  });
});
