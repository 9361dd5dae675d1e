import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buttonId,
  controlsOf,
  freshChannel,
  modalOf,
  startDiscordWorld,
  type DiscordWorld,
} from './discord-harness.js';
import { ADA, type FakeUser } from '../fakes/discord-server.js';

/** Every format answered on Discord, end to end: the real gateway and @discordjs/rest, against the fake Discord. */
describe('discord channel', () => {
  let w: DiscordWorld;
  beforeAll(async () => {
    w = await startDiscordWorld();
  });
  afterAll(async () => w.close());

  const result = async (id: string): Promise<Record<string, unknown>> => (await w.record(id))['result'] as never;
  const GRACE: FakeUser = { id: '1300000000000000043', username: 'grace', global_name: null };

  it('PING is answered with type 1; an unsigned PING is 401 (Discord checks both when the URL is saved)', async () => {
    const pong = await w.fake.ping();
    expect(pong.status).toBe(200);
    expect(pong.response).toEqual({ type: 1 });
    expect((await w.fake.ping({ signature: 'missing' })).status).toBe(401);
    expect((await w.fake.ping({ signature: 'wrong' })).status).toBe(401);
  });

  it('confirm: a click on Yes answers true with reply_to the question and the documented params; the outcome edit removes the buttons', async () => {
    const { id, message } = await w.ask({ question: 'Deploy now?', answer_format: 'confirm' });
    expect(controlsOf(message)).toMatchObject([
      { type: 2, label: 'Yes', style: 3 },
      { type: 2, label: 'No', style: 4 },
    ]);
    const click = await w.fake.click(message, buttonId(message, 'Yes'));
    expect(click.status).toBe(200);
    expect(click.response).toEqual({ type: 6 });
    const r = await result(id);
    expect(r).toMatchObject({ answer: true, surface: 'discord', answered_by: `discord:${ADA.id}` });
    expect(r['reply_to']).toEqual({ message_id: message.id, status: 'pending', text: 'Deploy now?' });
    expect(r['params']).toEqual({
      interaction_id: expect.stringMatching(/^\d+$/),
      user_id: ADA.id,
      user_name: 'ada',
      display_name: 'Ada Lovelace',
      channel_id: message.channelId,
      guild_id: '1300000000000000007',
      message_id: message.id,
    });
    await w.edited(message);
    expect(message.components).toEqual([]);
    expect(message.content).toBe(`Deploy now?\n\n✅ Approved by <@${ADA.id}> on Discord`);
  });

  it('a question in two channels is answered by a click in the second, and both messages show the outcome', async () => {
    const [first, second] = [freshChannel(), freshChannel()];
    const asked = await w.http.post('/api/interactions', {
      question: 'Roll back?',
      answer_format: 'confirm',
      timeout: 600,
      deliver: [
        { channel: 'discord', recipient: first },
        { channel: 'discord', recipient: second },
      ],
    });
    expect(asked.status, JSON.stringify(asked.json)).toBe(201);
    const [inFirst] = w.fake.messagesIn(first);
    const [inSecond] = w.fake.messagesIn(second);
    expect(inFirst).toBeDefined();
    expect(inSecond).toBeDefined();
    const click = await w.fake.click(inSecond!, buttonId(inSecond!, 'Yes'));
    expect(click.status).toBe(200);
    expect(click.response).toEqual({ type: 6 });
    expect(await result(asked.json['id'] as string)).toMatchObject({ answer: true, answered_by: `discord:${ADA.id}` });
    await w.edited(inFirst!);
    await w.edited(inSecond!);
    expect(inFirst!.components).toEqual([]);
    expect(inSecond!.components).toEqual([]);
  });

  it('a click after the answer is told it is answered, ephemerally, and the answer stays', async () => {
    const { id, message } = await w.ask({ question: 'Twice?', answer_format: 'confirm' });
    const no = buttonId(message, 'No');
    const yes = buttonId(message, 'Yes');
    await w.fake.click(message, no);
    const second = await w.fake.click(message, yes, { user: GRACE });
    expect(second.ephemeral).toBe('This question is already answered.');
    expect(second.response).toMatchObject({ type: 4, data: { flags: 64 } });
    expect((await result(id))['answer']).toBe(false);
  });

  it('a redelivered interaction (the same id) is acknowledged and acted on once', async () => {
    const { id, message } = await w.ask({ question: 'Once?', answer_format: 'confirm' });
    const first = await w.fake.click(message, buttonId(message, 'Yes'));
    expect(first.response).toEqual({ type: 6 });
    await w.edited(message);
    const answeredAt = (await result(id))['answered_at'];
    const again = await w.fake.redeliver();
    expect(again.status).toBe(200);
    // Acted on again, it would be told "already answered"; seen before, it is only acknowledged.
    expect(again.response).toEqual({ type: 6 });
    expect(again.ephemeral).toBeNull();
    expect((await result(id))['answered_at']).toBe(answeredAt);
    expect(message.history).toHaveLength(2);
  });

  it('select: up to five short choices are buttons; a click answers that choice', async () => {
    const { id, message } = await w.ask({
      question: 'Which region?',
      answer_format: 'select',
      choices: ['eu-west', 'us-east', 'ap-south'],
    });
    expect(controlsOf(message).map((c) => c['label'])).toEqual(['eu-west', 'us-east', 'ap-south']);
    await w.fake.click(message, buttonId(message, 'us-east'));
    expect((await result(id))['answer']).toBe('us-east');
  });

  it('select: 100 long choices become four string selects of 25; a pick in the third answers that choice whole', async () => {
    const choices = Array.from({ length: 100 }, (_, i) => `${i}-${'c'.repeat(190)}`);
    const { id, message } = await w.ask({ question: 'Pick one', answer_format: 'select', choices });
    const menus = controlsOf(message);
    expect(menus).toHaveLength(4);
    expect(menus.every((m) => m['type'] === 3 && (m['options'] as unknown[]).length === 25)).toBe(true);
    const third = menus[2] as Record<string, unknown>;
    expect(third['placeholder']).toBe('Choose (51–75)…');
    const option = (third['options'] as Array<Record<string, string>>)[7] as Record<string, string>;
    expect([...(option['label'] as string)].length).toBe(100);
    const pick = await w.fake.click(message, third['custom_id'] as string, { values: [option['value'] as string] });
    expect(pick.response).toEqual({ type: 6 });
    expect((await result(id))['answer']).toBe(choices[57]);
  });

  it('text: "Answer" opens a modal with one paragraph input; submitting it answers with the typed text', async () => {
    const { id, message } = await w.ask({ question: 'What went wrong?', answer_format: 'text' });
    expect(message.content).toContain('Press “Answer” to reply.');
    const modal = modalOf(await w.fake.click(message, buttonId(message, 'Answer')));
    expect(modal.title).toBe('What went wrong?');
    expect(modal.inputs).toMatchObject([{ type: 4, style: 2, required: true, max_length: 4000 }]);
    const submitted = await w.fake.submit(modal, { answer: 'the disk filled up' });
    expect(submitted.response).toEqual({ type: 6 });
    const r = await result(id);
    expect(r['answer']).toBe('the disk filled up');
    expect(r['reply_to']).toEqual({ message_id: message.id, status: 'pending', text: 'What went wrong?' });
  });

  const FORM = {
    type: 'object',
    title: 'Incident report',
    required: ['name', 'age'],
    properties: {
      name: { type: 'string', title: 'Your name', maxLength: 80 },
      age: { type: 'integer', title: 'Age', minimum: 18, maximum: 130 },
      email: { type: 'string', format: 'email' },
      color: { type: 'string', enum: ['red', 'green', 'blue'] },
      subscribe: { type: 'boolean', title: 'Subscribe?' },
    },
  };

  it('form: "Open form" opens a modal of five text inputs; a bad value is refused ephemerally naming the field, a good one answers typed', async () => {
    const { id, message } = await w.ask({ question: 'Report it', answer_format: 'form', schema: FORM });
    const modal = modalOf(await w.fake.click(message, buttonId(message, 'Open form')));
    expect(modal.title).toBe('Incident report');
    expect(modal.inputs.map((i) => [i['label'], i['required'], i['placeholder'] ?? null])).toEqual([
      ['Your name', true, null],
      ['Age', true, 'A whole number from 18 to 130'],
      ['email', false, 'name@example.com'],
      ['color', false, 'One of: red, green, blue'],
      ['Subscribe?', false, 'yes or no'],
    ]);
    const bad = await w.fake.submit(modal, { f0: 'Ada', f1: '12', f2: '', f3: 'Red', f4: 'yes' });
    expect(bad.ephemeral).toBe('Age: Enter a number of at least 18. Press “Open form” to try again.');
    expect((await w.record(id))['status']).toBe('pending');
    const again = modalOf(await w.fake.click(message, buttonId(message, 'Open form')));
    const good = await w.fake.submit(again, { f0: 'Ada', f1: '36', f2: 'ada@example.com', f3: 'Red', f4: 'yes' });
    expect(good.response).toEqual({ type: 6 });
    expect((await result(id))['answer']).toEqual({
      name: 'Ada',
      age: 36,
      email: 'ada@example.com',
      color: 'red',
      subscribe: true,
    });
  });

  it('form: a schema larger than a modal is refused at ask time naming the property; nothing is posted', async () => {
    const properties = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`q${i + 1}`, { type: 'string' }]));
    const channel = '1300000000000000999';
    const res = await w.http.post('/api/interactions', {
      question: 'Too big',
      answer_format: 'form',
      schema: { type: 'object', properties },
      channel: 'discord',
      recipient: channel,
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: 'invalid_request', field: 'schema.properties.q6' });
    expect(res.json['message']).toContain('schema property "q6" cannot be delivered on channel "discord"');
    expect(res.json['message']).toContain('at most 5 inputs');
    expect(w.fake.messagesIn(channel)).toEqual([]);
    const multi = await w.http.post('/api/interactions', {
      question: 'Many',
      answer_format: 'form',
      schema: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } } },
      channel: 'discord',
      recipient: channel,
    });
    expect(multi.status).toBe(400);
    expect(multi.json).toMatchObject({ field: 'schema.properties.tags' });
    expect(w.fake.messagesIn(channel)).toEqual([]);
    // Refused before anything was stored: neither question is pending.
    const pending = (await w.http.get('/api/interactions?status=pending&limit=200')).json['items'] as Array<{
      question: string;
    }>;
    expect(pending.filter((p) => p.question === 'Too big' || p.question === 'Many')).toEqual([]);
  });

  it('recipient user:<id> opens the bot’s DM with that person and posts there; anything else is refused by name', async () => {
    const { message } = await w.ask({ question: 'Privately?', answer_format: 'confirm', recipient: `user:${ADA.id}` });
    expect(message.channelId).toBe(w.fake.dmWith(ADA.id));
    const bad = await w.http.post('/api/interactions', {
      question: 'Where?',
      answer_format: 'confirm',
      channel: 'discord',
      recipient: '#general',
    });
    expect(bad.status).toBe(502);
    expect(bad.json['message']).toContain('recipient must be a Discord channel id');
  });

  it('a wrong, missing or stale signature is 401 and changes nothing', async () => {
    const { id, message } = await w.ask({ question: 'Signed?', answer_format: 'confirm' });
    const yes = buttonId(message, 'Yes');
    for (const options of [{ signature: 'wrong' }, { signature: 'missing' }, { ageSeconds: 600 }] as const) {
      const res = await w.fake.click(message, yes, options);
      expect(res.status).toBe(401);
      expect(res.response).toBeNull();
    }
    expect((await w.record(id))['status']).toBe('pending');
  });

  it('outcome edit: an answer from the inbox shows on the question, which loses its controls', async () => {
    const { id, message } = await w.ask({ question: 'From elsewhere?', answer_format: 'select', choices: ['a', 'b'] });
    expect(controlsOf(message)).toHaveLength(2);
    await w.http.post(`/api/interactions/${id}/answer`, { answer: 'b' });
    await w.edited(message);
    expect(controlsOf(message)).toHaveLength(0);
    expect(message.content).toMatch(/^From elsewhere\?\n\n✅ Answered by \S+ through the API: “b”$/);
    const patch = w.fake.calls.find((c) => c.method === 'PATCH' && c.path.endsWith(`/messages/${message.id}`));
    expect(patch?.body).toMatchObject({ components: [] });
  });

  it('rate limits: a short 429 is waited out by the client; a long one fails the ask with a 502 naming the wait', async () => {
    w.fake.tooManyRequests(0.2);
    const { message } = await w.ask({ question: 'After a short wait?', answer_format: 'confirm' });
    expect(message.content).toContain('After a short wait?');
    expect(w.fake.calls.filter((c) => c.status === 429)).toHaveLength(1);
    w.fake.tooManyRequests(60);
    const res = await w.http.post('/api/interactions', {
      question: 'After a long wait?',
      answer_format: 'confirm',
      channel: 'discord',
      recipient: '1300000000000000998',
    });
    expect(res.status).toBe(502);
    expect(res.json['message']).toMatch(/rate limited, retry after 60\.\ds/);
  });
});
