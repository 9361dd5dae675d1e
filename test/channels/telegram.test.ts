import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AskgateClient } from 'askgate-sdk';
import { PERSON, replyUpdate, tapUpdate } from '../fakes/telegram-updates.js';
import { freshChat, startTelegramWorld, type TelegramWorld } from './telegram-harness.js';

/** Telegram end to end: the real grammY client against the loopback fake, updates posted to the real webhook. */

let w: TelegramWorld;
beforeAll(async () => {
  w = await startTelegramWorld();
});
afterAll(async () => w.close());

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('Telegram: delivery', () => {
  it('renders a confirm as Yes/No inline buttons with compact callback_data', async () => {
    const { id, message } = await w.ask({
      question: 'Run the nightly export now?',
      answer_format: 'confirm',
      recipient: freshChat(),
    });
    const rows = message.reply_markup?.['inline_keyboard'] as Array<Array<{ text: string; callback_data: string }>>;
    expect(rows.flat().map((b) => b.text)).toEqual(['Yes', 'No']);
    for (const b of rows.flat()) expect(Buffer.byteLength(b.callback_data)).toBeLessThanOrEqual(24);
    expect(message.text).toContain('Run the nightly export now?');
    expect((await w.gw.gateway.store.get(id))?.delivery).toMatchObject({
      chat_id: message.chat_id,
      message_id: String(message.message_id),
    });
  });

  it('renders text as a ForceReply prompt, and a form as web_app in private chats and a URL button in groups', async () => {
    const text = await w.ask({ question: 'Why?', answer_format: 'text', recipient: freshChat() });
    expect(text.message.reply_markup).toMatchObject({ force_reply: true });
    const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
    const priv = await w.ask({ question: 'Details?', answer_format: 'form', schema, recipient: freshChat() });
    expect(priv.message.reply_markup).toEqual({
      inline_keyboard: [[{ text: 'Open the form', web_app: { url: priv.callbackUrl } }]],
    });
    const group = await w.ask({ question: 'Details?', answer_format: 'form', schema, recipient: '-100200300' });
    expect(group.message.reply_markup).toEqual({
      inline_keyboard: [[{ text: 'Open the form', url: group.callbackUrl }]],
    });
  });

  it('pages a select of many choices, turning pages in place on a tap', async () => {
    const choices = Array.from({ length: 30 }, (_, i) => `option number ${i + 1}`);
    const { id, message } = await w.ask({
      question: 'Which one?',
      answer_format: 'select',
      choices,
      recipient: freshChat(),
    });
    const labels = (): string[] =>
      (message.reply_markup?.['inline_keyboard'] as Array<Array<{ text: string }>>).flat().map((b) => b.text);
    expect(labels()).toContain('option number 1');
    expect(labels()).not.toContain('option number 9');
    expect(await w.send(tapUpdate(message, { label: 'More ›' }))).toBe(200);
    expect(labels()).toContain('option number 9');
    expect(await w.send(tapUpdate(message, { label: 'option number 12' }))).toBe(200);
    expect(await w.record(id)).toMatchObject({
      status: 'answered',
      result: { answer: 'option number 12', surface: 'telegram' },
    });
  });

  it('reports a delivery failure to the asker as a 502 naming the channel and the platform error, and cancels the question', async () => {
    const chat = freshChat();
    w.fake.forgetChat(chat);
    const res = await w.http.post('/api/interactions', {
      question: 'Anyone?',
      answer_format: 'confirm',
      channel: 'telegram',
      recipient: chat,
    });
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ error: 'channel_delivery_failed', channel: 'telegram' });
    expect(res.json['message']).toMatch(/telegram.*chat not found/);
    expect((await w.record(res.json['interaction_id'] as string))['status']).toBe('cancelled');
  });

  it('turns a Telegram 5xx into a 502 too', async () => {
    w.fake.failNext('sendMessage', { status: 502, error_code: 502, description: 'Bad Gateway' });
    const res = await w.http.post('/api/interactions', {
      question: 'Anyone?',
      answer_format: 'confirm',
      channel: 'telegram',
      recipient: freshChat(),
    });
    expect(res.status).toBe(502);
    expect(res.json['message']).toMatch(/502 Bad Gateway/);
  });

  it('waits out a 429 for its retry_after, then delivers', async () => {
    w.fake.tooManyRequests('sendMessage', 1);
    const started = Date.now();
    const { message } = await w.ask({ question: 'Slowly?', answer_format: 'confirm', recipient: freshChat() });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(message.text).toContain('Slowly?');
  });

  it('paces one chat to about one message a second: five asks at once reach Telegram in turn, none refused', async () => {
    const chat = freshChat();
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        w.ask({ question: `Paced ${i}?`, answer_format: 'confirm', recipient: chat }),
      ),
    );
    const sends = w.fake.callsTo('sendMessage').filter((c) => c.payload['chat_id'] === chat);
    // Counts, not a stopwatch: the fake holds a chat to one message in 900 ms (Telegram's "about one a second"), so
    // five accepted sends and no 429 mean they were spread; an unpaced burst draws four 429s. Load cannot squeeze the
    // gaps: the in-process pacer sends a chat's next message a second after the previous one was answered, which is
    // after the fake recorded it, so a slow host only widens them.
    expect(sends.map((c) => c.status)).toEqual([200, 200, 200, 200, 200]);
    expect(w.fake.messagesIn(chat)).toHaveLength(5);
  });

  it('refuses a form schema outside the channel subset at ask time, naming the property', async () => {
    const res = await w.http.post('/api/interactions', {
      question: 'q',
      answer_format: 'form',
      channel: 'telegram',
      recipient: freshChat(),
      schema: { type: 'object', properties: { rows: { type: 'array', items: { type: 'object' } } } },
    });
    expect(res.status).toBe(400);
    expect(res.json['field']).toBe('schema.properties.rows');
  });
});

describe('Telegram: answers', () => {
  it('answers a sync ask with a photo captioned "yes" replying to the question: answer, reply_to and media params', async () => {
    const client = new AskgateClient({ url: w.gw.url, token: w.gw.token });
    const chat = freshChat();
    const pending = client.ask({
      question: 'Run the nightly export now?',
      answer_format: 'confirm',
      channel: 'telegram',
      recipient: chat,
      timeout: 20,
    });
    let question = w.fake.messagesIn(chat)[0];
    while (question === undefined) {
      await sleep(20);
      question = w.fake.messagesIn(chat)[0];
    }
    expect(await w.send(replyUpdate(question, { photo: { caption: 'yes', fileId: 'AgACPHOTO' } }))).toBe(200);
    const result = await pending;
    expect(result.answer).toBe(true);
    expect(result.reply_to).toEqual({
      message_id: String(question.message_id),
      status: 'pending',
      text: question.history[0],
    });
    expect(result.params).toMatchObject({
      media_kind: 'photo',
      media_file_id: 'AgACPHOTO',
      media_file_unique_id: 'AQADphoto',
      media_file_size: '48213',
      media_width: '1280',
      media_height: '853',
      media_caption: 'yes',
      chat_id: chat,
      from_username: 'ada',
    });
    const edited = await w.edited(question);
    expect(edited.text).toContain(`✅ Approved by @ada (telegram:${PERSON.id}) on Telegram`);
  });

  it('answers a confirm by tap, acknowledges the tap, edits the outcome in and drops the buttons', async () => {
    const { id, message } = await w.ask({ question: 'Ship it?', answer_format: 'confirm', recipient: freshChat() });
    const before = w.fake.callsTo('answerCallbackQuery').length;
    expect(await w.send(tapUpdate(message, { label: 'No' }))).toBe(200);
    expect(await w.record(id)).toMatchObject({
      status: 'answered',
      result: { answer: false, surface: 'telegram', answered_by: `telegram:${PERSON.id}`, reply_to: null },
    });
    expect(w.fake.callsTo('answerCallbackQuery').slice(before)[0]?.payload).toMatchObject({
      text: 'Answer recorded: No',
    });
    await w.edited(message);
    expect(message.text).toContain(`❌ Rejected by @ada (telegram:${PERSON.id}) on Telegram`);
    expect(message.reply_markup).toBeNull();
  });

  it('tells a late tap that the question is already answered, and changes nothing', async () => {
    const { id, message } = await w.ask({ question: 'Late?', answer_format: 'confirm', recipient: freshChat() });
    const tapYes = tapUpdate(message, { label: 'Yes' });
    const tapNo = tapUpdate(message, { label: 'No' });
    await w.send(tapYes);
    await w.send(tapNo);
    expect(w.fake.callsTo('answerCallbackQuery').at(-1)?.payload).toMatchObject({
      text: 'This question is already answered.',
    });
    expect((await w.record(id))['result']).toMatchObject({ answer: true });
  });

  it('ignores a duplicate update_id', async () => {
    const { id, message } = await w.ask({ question: 'Twice?', answer_format: 'confirm', recipient: freshChat() });
    const tap = tapUpdate(message, { label: 'Yes' });
    await w.send(tap);
    const acks = w.fake.callsTo('answerCallbackQuery').length;
    expect(await w.send(tap)).toBe(200);
    expect(w.fake.callsTo('answerCallbackQuery').length).toBe(acks);
    expect((await w.record(id))['status']).toBe('answered');
  });

  it('answers a select by replying with a choice number, and a text by replying', async () => {
    const sel = await w.ask({
      question: 'Colour?',
      answer_format: 'select',
      choices: ['red', 'green'],
      recipient: freshChat(),
    });
    await w.send(replyUpdate(sel.message, { text: '2' }));
    expect((await w.record(sel.id))['result']).toMatchObject({
      answer: 'green',
      reply_to: { message_id: String(sel.message.message_id) },
    });
    const text = await w.ask({ question: 'Why?', answer_format: 'text', recipient: freshChat() });
    await w.send(replyUpdate(text.message, { text: 'because it is Tuesday' }));
    expect((await w.record(text.id))['result']).toMatchObject({ answer: 'because it is Tuesday', surface: 'telegram' });
    await w.edited(text.message);
    expect(text.message.text).toContain('“because it is Tuesday”');
  });

  it("answers a form by a reply carrying JSON, and hands back a document reply's media entries", async () => {
    const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
    const form = await w.ask({ question: 'Who?', answer_format: 'form', schema, recipient: freshChat() });
    await w.send(
      replyUpdate(form.message, {
        document: { caption: '{"name":"Ada"}', fileName: 'cv.pdf', mimeType: 'application/pdf' },
      }),
    );
    expect((await w.record(form.id))['result']).toMatchObject({
      answer: { name: 'Ada' },
      params: {
        media_kind: 'document',
        media_file_name: 'cv.pdf',
        media_mime_type: 'application/pdf',
        media_file_size: '20480',
      },
    });
  });

  it('tells a person whose reply does not fit, and keeps the question pending', async () => {
    const { id, message } = await w.ask({ question: 'Proceed?', answer_format: 'confirm', recipient: freshChat() });
    const sends = w.fake.callsTo('sendMessage').length;
    await w.send(replyUpdate(message, { text: 'perhaps' }));
    expect((await w.record(id))['status']).toBe('pending');
    expect(w.fake.callsTo('sendMessage').slice(sends)[0]?.payload).toMatchObject({
      chat_id: message.chat_id,
      text: 'Please answer yes or no.',
    });
  });

  it('refuses a wrong or missing secret with 401 and changes nothing', async () => {
    const { id, message } = await w.ask({ question: 'Secret?', answer_format: 'confirm', recipient: freshChat() });
    const calls = w.fake.calls.length;
    expect(await w.send(tapUpdate(message, { label: 'Yes' }), 'not-the-secret')).toBe(401);
    expect(await w.send(tapUpdate(message, { label: 'Yes' }), null)).toBe(401);
    expect(await w.send('not even json', 'wrong')).toBe(401);
    expect((await w.record(id))['status']).toBe('pending');
    expect(w.fake.calls.length).toBe(calls);
  });

  it('lets exactly one of a Telegram tap and an inbox answer win at the same moment, and tells the other surface', async () => {
    for (let round = 0; round < 6; round++) {
      const { id, message } = await w.ask({
        question: `Race ${round}?`,
        answer_format: 'confirm',
        recipient: freshChat(),
      });
      const acks = w.fake.callsTo('answerCallbackQuery').length;
      const [inbox] = await Promise.all([
        w.http.post(`/api/interactions/${id}/answer`, { answer: false }),
        w.send(tapUpdate(message, { label: 'Yes' })),
      ]);
      const record = await w.record(id);
      const tapText = w.fake.callsTo('answerCallbackQuery').slice(acks)[0]?.payload['text'];
      const result = record['result'] as Record<string, unknown>;
      if (result['surface'] === 'api') {
        expect(inbox.json).toEqual({ status: 'answered' });
        expect(tapText).toBe('This question is already answered.');
      } else {
        expect(inbox.json).toEqual({ status: 'already_answered' });
        expect(tapText).toBe('Answer recorded: Yes');
      }
    }
  });

  it('edits the message when a question expires or is cancelled', async () => {
    const expiring = await w.ask({ question: 'Quick?', answer_format: 'confirm', recipient: freshChat(), timeout: 1 });
    await w.edited(expiring.message);
    expect(expiring.message.text).toContain('⌛ Expired');
    expect(expiring.message.reply_markup).toBeNull();
    const cancelled = await w.ask({ question: 'Never mind?', answer_format: 'text', recipient: freshChat() });
    await w.http.delete(`/api/interactions/${cancelled.id}`);
    await w.edited(cancelled.message);
    expect(cancelled.message.text).toContain('✖ Cancelled');
  });
});
