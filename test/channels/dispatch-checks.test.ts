import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM_CALLBACK_ID, encodeMetadata } from '../../channels/slack/modal.js';
import { ADA } from '../fakes/discord-server.js';
import { PERSON as SLACK_PERSON, blockActions, state, viewSubmission } from '../fakes/slack-payloads.js';
import type { FakeSlackMessage } from '../fakes/slack-server.js';
import { tapUpdate } from '../fakes/telegram-updates.js';
import { buttonReply, inboundId } from '../fakes/whatsapp-webhooks.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { buttonId, startDiscordWorld, type DiscordWorld } from './discord-harness.js';
import { startSlackWorld, type SlackWorld } from './slack-harness.js';
import { freshChat, startTelegramWorld, type TelegramWorld } from './telegram-harness.js';
import { freshPhone, startTwilioWorld, tagIn, type TwilioWorld } from './twilio-harness.js';
import { freshRecipient, startWebWorld, type WebWorld } from './web-harness.js';
import { bodyOf, freshNumber, startWhatsAppWorld, type WhatsAppWorld } from './whatsapp-harness.js';

/**
 * The inbound dispatcher's checks (src/core/dispatcher.ts), on every channel through its real SDK, its fake and a
 * real Redis: a tap from a surface the question is not on is refused and changes nothing (then the right tap
 * answers, so the refusal was the check and not a broken tap); a tap on a question someone answered, or one whose
 * deadline passed, is told so and changes nothing; and a Slack interaction delivered twice is acted on once.
 */

type Rec = Record<string, unknown>;

/** `[#123]`, as the question's SMS starts. */
const tagOf = (body: string): string => `[${tagIn(body)}]`;

let redis: RedisServerHandle;
beforeAll(async () => {
  redis = await startRedisServer();
}, 60_000);
afterAll(async () => redis?.stop());

const onRedis = (name: string): Record<string, string> => ({
  REDIS_URL: redis.url,
  ASKGATE_REDIS_PREFIX: `{dispatch-${name}-${process.pid}}:`,
});
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const until = async <T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> => {
  for (let i = 0; i < 500; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await sleep(20);
  }
  throw new Error(`never: ${what}`);
};

/** The answer door's answer, so a later tap meets a question someone else answered. */
async function answerThroughApi(http: { post(path: string, body: unknown): Promise<{ status: number }> }, id: string) {
  expect((await http.post(`/api/interactions/${id}/answer`, { answer: false })).status).toBe(200);
}

/** Waits past a question's deadline (the ask's `timeout`), so its next answer finds it expired. */
async function pastDeadline(record: (id: string) => Promise<Rec>, id: string): Promise<void> {
  const deadline = Date.parse((await record(id))['deadline_at'] as string);
  await sleep(Math.max(0, deadline - Date.now()) + 50);
}

/** What the record must still be after a refused tap: pending, unanswered. */
const untouched = { status: 'pending', result: null };

describe('Telegram', () => {
  let w: TelegramWorld;
  beforeAll(async () => {
    w = await startTelegramWorld(onRedis('telegram'));
  }, 60_000);
  afterAll(async () => w?.close());

  const acks = () =>
    w.fake.callsTo('answerCallbackQuery').map((c) => [c.payload['callback_query_id'], c.payload['text']]);
  const tap = async (update: Rec): Promise<unknown> => {
    expect(await w.send(update)).toBe(200);
    const id = (update['callback_query'] as Rec)['id'];
    return (acks().find(([query]) => query === id) ?? [])[1];
  };

  it('a tap whose chat is not the question’s is refused and changes nothing; the right chat’s tap answers', async () => {
    const { id, message } = await w.ask({ question: 'Deploy?', answer_format: 'confirm', recipient: freshChat() });
    const elsewhere = tapUpdate(message, { label: 'Yes' });
    const query = elsewhere['callback_query'] as Rec;
    query['message'] = { ...(query['message'] as Rec), chat: { id: Number(freshChat()), type: 'private' } };
    expect(await tap(elsewhere)).toBe('This button no longer belongs to a question.');
    expect(await w.record(id)).toMatchObject(untouched);
    expect(message.history).toHaveLength(1);
    expect(await tap(tapUpdate(message, { label: 'Yes' }))).toBe('Answer recorded: Yes');
    expect(await w.record(id)).toMatchObject({ status: 'answered', result: { answer: true, surface: 'telegram' } });
  });

  it('a tap on an answered question is told so, and the answer stays', async () => {
    const { id, message } = await w.ask({ question: 'Ship?', answer_format: 'confirm', recipient: freshChat() });
    await answerThroughApi(w.http, id);
    expect(await tap(tapUpdate(message, { label: 'Yes' }))).toBe('This question is already answered.');
    expect(await w.record(id)).toMatchObject({ status: 'answered', result: { answer: false, surface: 'api' } });
  });

  it('a tap after the deadline is told the question expired', async () => {
    const { id, message } = await w.ask({
      question: 'Late?',
      answer_format: 'confirm',
      recipient: freshChat(),
      timeout: 1,
    });
    // Built first: the expiry's outcome edit takes the buttons away.
    const late = tapUpdate(message, { label: 'Yes' });
    await pastDeadline(w.record, id);
    expect(await tap(late)).toBe('This question has expired.');
    expect(await w.record(id)).toMatchObject({ status: 'expired', result: null });
  });
});

describe('Slack', () => {
  let w: SlackWorld;
  beforeAll(async () => {
    w = await startSlackWorld(onRedis('slack'));
  }, 60_000);
  afterAll(async () => w?.close());

  const told = (message: FakeSlackMessage, user = SLACK_PERSON.id): unknown[] =>
    w.fake
      .callsTo('chat.postEphemeral')
      .filter((c) => c.args['channel'] === message.channel && c.args['user'] === user)
      .map((c) => c.args['text']);
  const GRACE = { ...SLACK_PERSON, id: 'UGRACE0002', username: 'grace', name: 'grace' };

  it('a tap whose conversation is not the question’s is refused and changes nothing; the right tap answers', async () => {
    const { id, message } = await w.ask({ question: 'Deploy?', answer_format: 'confirm' });
    const elsewhere = { ...message, channel: 'C0ELSEWHERE' };
    expect((await w.interact(blockActions(elsewhere, 'askgate_yes'))).status).toBe(200);
    // Then a tap by someone else on the question message: it answers, so the refused tap's work has run before.
    expect((await w.interact(blockActions(message, 'askgate_no', { user: GRACE }))).status).toBe(200);
    await w.edited(message);
    expect(await w.record(id)).toMatchObject({
      status: 'answered',
      result: { answer: false, answered_by: `slack:${GRACE.id}` },
    });
    expect(told(elsewhere)).toEqual([]);
  });

  it('a form submitted from a modal opened on another message is refused and changes nothing', async () => {
    const schema = { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] };
    const { id, message } = await w.ask({ question: 'Who?', answer_format: 'form', schema });
    const submit = (channel: string) =>
      w.interact(
        viewSubmission(
          {
            id: 'V0DISPATCH',
            hash: 'h1',
            view: {
              type: 'modal',
              callback_id: FORM_CALLBACK_ID,
              private_metadata: encodeMetadata({ interactionId: id, channel, ts: message.ts }),
              blocks: [],
            },
            history: [],
          },
          state({ name: { type: 'plain_text_input', value: 'Ada' } }),
        ),
      );
    const refused = await submit('C0ELSEWHERE');
    expect(refused.json).toMatchObject({
      response_action: 'update',
      view: { blocks: [{ text: { text: 'This question is no longer available.' } }] },
    });
    expect(await w.record(id)).toMatchObject(untouched);
    expect((await submit(message.channel)).text).toBe('');
    expect(await w.record(id)).toMatchObject({ status: 'answered', result: { answer: { name: 'Ada' } } });
  });

  it('"Open form" on an answered question opens a modal that says so, not the form', async () => {
    const schema = { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] };
    const { id, message } = await w.ask({ question: 'Who then?', answer_format: 'form', schema });
    expect((await w.http.post(`/api/interactions/${id}/answer`, { answer: { name: 'Grace' } })).status).toBe(200);
    const trigger = w.fake.mintTrigger();
    await w.interact(blockActions(message, 'askgate_open_form', { triggerId: trigger }));
    const opened = await until('the modal', () => w.fake.viewOpenedBy(trigger));
    expect(opened.view).toMatchObject({
      title: { text: 'Question closed' },
      blocks: [{ text: { text: 'This question is already answered.' } }],
    });
  });

  it('a tap on an answered question is told so, to the tapper alone, and the answer stays', async () => {
    const { id, message } = await w.ask({ question: 'Ship?', answer_format: 'confirm' });
    await answerThroughApi(w.http, id);
    await w.interact(blockActions(message, 'askgate_yes'));
    expect(await until('the note', () => told(message)[0])).toBe('This question is already answered.');
    expect(await w.record(id)).toMatchObject({ status: 'answered', result: { answer: false, surface: 'api' } });
  });

  it('a tap after the deadline is told the question expired', async () => {
    const { id, message } = await w.ask({ question: 'Late?', answer_format: 'confirm', timeout: 1 });
    const late = blockActions(message, 'askgate_yes');
    await pastDeadline(w.record, id);
    await w.interact(late);
    expect(await until('the note', () => told(message)[0])).toBe('This question has expired.');
    expect(await w.record(id)).toMatchObject({ status: 'expired', result: null });
  });

  it('a tap delivered twice is offered once: the second copy is not told "already answered"', async () => {
    const { id, message } = await w.ask({ question: 'Twice?', answer_format: 'confirm' });
    const payload = blockActions(message, 'askgate_yes');
    // Built now: once answered, the message carries no controls to build a tap from.
    const later = blockActions(message, 'askgate_no', { user: GRACE });
    expect((await w.interact(payload)).status).toBe(200);
    await w.edited(message);
    expect((await w.interact(payload)).status).toBe(200);
    // A later, distinct tap on the answered question is told; by then the copy's work would have told the person too.
    await w.interact(later);
    expect(await until('the later tap’s note', () => told(message, GRACE.id)[0])).toBe(
      'This question is already answered.',
    );
    expect(told(message)).toEqual([]);
    expect(await w.record(id)).toMatchObject({ status: 'answered', result: { answer: true } });
  });

  it('a form submission delivered twice is offered once: the copy gets the empty acknowledgement', async () => {
    const schema = { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] };
    const { id, message } = await w.ask({ question: 'Who twice?', answer_format: 'form', schema });
    const payload = viewSubmission(
      {
        id: 'V0TWICE',
        hash: 'h1',
        view: {
          type: 'modal',
          callback_id: FORM_CALLBACK_ID,
          private_metadata: encodeMetadata({ interactionId: id, channel: message.channel, ts: message.ts }),
          blocks: [],
        },
        history: [],
      },
      state({ name: { type: 'plain_text_input', value: 'Ada' } }),
    );
    expect((await w.interact(payload)).text).toBe('');
    // Acted on again, it would find the question answered and say so (response_action: update).
    const copy = await w.interact(payload);
    expect([copy.status, copy.text]).toEqual([200, '']);
    const late = await w.interact({ ...payload, trigger_id: `${payload['trigger_id']}.other` });
    expect(late.json).toMatchObject({ response_action: 'update' });
    expect(await w.record(id)).toMatchObject({ status: 'answered', result: { answer: { name: 'Ada' } } });
  });
});

describe('Discord', () => {
  let w: DiscordWorld;
  beforeAll(async () => {
    w = await startDiscordWorld(onRedis('discord'));
  }, 60_000);
  afterAll(async () => w?.close());

  it('a button of the question on another message is refused and changes nothing; its own message’s click answers', async () => {
    const { id, message } = await w.ask({ question: 'Deploy?', answer_format: 'confirm' });
    const other = await w.ask({ question: 'Something else?', answer_format: 'confirm' });
    const click = await w.fake.click(other.message, buttonId(message, 'Yes'));
    expect(click.ephemeral).toBe('This question is no longer available.');
    expect(await w.record(id)).toMatchObject(untouched);
    expect(await w.record(other.id)).toMatchObject(untouched);
    expect((await w.fake.click(message, buttonId(message, 'Yes'))).ephemeral).toBeNull();
    expect(await w.record(id)).toMatchObject({
      status: 'answered',
      result: { answer: true, answered_by: `discord:${ADA.id}` },
    });
  });

  it('a click on an answered question is told so, and the answer stays', async () => {
    const { id, message } = await w.ask({ question: 'Ship?', answer_format: 'confirm' });
    await answerThroughApi(w.http, id);
    expect((await w.fake.click(message, buttonId(message, 'Yes'))).ephemeral).toBe(
      'This question is already answered.',
    );
    expect(await w.record(id)).toMatchObject({ status: 'answered', result: { answer: false, surface: 'api' } });
  });

  it('"Answer" on an answered question opens no modal: the person is told it is answered', async () => {
    const { id, message } = await w.ask({ question: 'Why?', answer_format: 'text' });
    expect((await w.http.post(`/api/interactions/${id}/answer`, { answer: 'fixed' })).status).toBe(200);
    const click = await w.fake.click(message, buttonId(message, 'Answer'));
    expect([click.modal, click.ephemeral]).toEqual([null, 'This question is already answered.']);
  });

  it('a click after the deadline is told the question expired', async () => {
    const { id, message } = await w.ask({ question: 'Late?', answer_format: 'confirm', timeout: 1 });
    const yes = buttonId(message, 'Yes');
    await pastDeadline(w.record, id);
    expect((await w.fake.click(message, yes)).ephemeral).toBe('This question has expired.');
    expect(await w.record(id)).toMatchObject({ status: 'expired', result: null });
  });
});

describe('WhatsApp', () => {
  let w: WhatsAppWorld;
  beforeAll(async () => {
    w = await startWhatsAppWorld(onRedis('whatsapp'));
  }, 60_000);
  afterAll(async () => w?.close());

  const yesId = (message: { payload: Rec }): string =>
    (((message.payload['interactive'] as Rec)['action'] as Rec)['buttons'] as Array<{ reply: { id: string } }>)[0]
      ?.reply.id as string;

  it('a tap from a number the question did not go to is refused and changes nothing; its own number’s tap answers', async () => {
    const { id, message, to } = await w.ask({ question: 'Deploy?', answer_format: 'confirm' });
    const stranger = freshNumber();
    expect(await w.send(buttonReply(stranger, message.id, yesId(message), 'Yes'))).toBe(200);
    // The webhook answers once its work is done: nothing was sent to the stranger.
    expect(w.fake.sentTo(stranger)).toEqual([]);
    expect(await w.record(id)).toMatchObject(untouched);
    expect(await w.send(buttonReply(to, message.id, yesId(message), 'Yes'))).toBe(200);
    expect(await w.record(id)).toMatchObject({
      status: 'answered',
      result: { answer: true, answered_by: `whatsapp:+${to}` },
    });
  });

  it('a tap on an answered question is told so, quoting the tap, and the answer stays', async () => {
    const { id, message, to } = await w.ask({ question: 'Ship?', answer_format: 'confirm' });
    await answerThroughApi(w.http, id);
    const tap = buttonReply(to, message.id, yesId(message), 'Yes');
    expect(await w.send(tap)).toBe(200);
    expect(bodyOf(await w.replyTo(to, inboundId(tap)))).toBe('This question is already answered.');
    expect(await w.record(id)).toMatchObject({ status: 'answered', result: { answer: false, surface: 'api' } });
  });

  it('a tap after the deadline is told the question expired', async () => {
    const { id, message, to } = await w.ask({ question: 'Late?', answer_format: 'confirm', timeout: 1 });
    await pastDeadline(w.record, id);
    const tap = buttonReply(to, message.id, yesId(message), 'Yes');
    expect(await w.send(tap)).toBe(200);
    expect(bodyOf(await w.replyTo(to, inboundId(tap)))).toBe('This question has expired.');
    expect(await w.record(id)).toMatchObject({ status: 'expired', result: null });
  });
});

describe('Twilio', () => {
  let w: TwilioWorld;
  beforeAll(async () => {
    w = await startTwilioWorld({ env: onRedis('twilio') });
  }, 60_000);
  afterAll(async () => w?.close());

  it('a quick reply naming the question from a number it did not go to is refused and changes nothing', async () => {
    const { id, to } = await w.ask({ question: 'Deploy?', answer_format: 'confirm' });
    const stranger = freshPhone();
    const refused = await w.text(stranger, 'Yes', { ButtonPayload: `${id}:y`, ButtonText: 'Yes' });
    expect(refused.body).toContain('There is no open question to answer.');
    expect(await w.record(id)).toMatchObject(untouched);
    const taken = await w.text(to, 'Yes', { ButtonPayload: `${id}:y`, ButtonText: 'Yes' });
    expect(taken.body).toContain('Answer recorded. Thank you.');
    expect(await w.record(id)).toMatchObject({
      status: 'answered',
      result: { answer: true, answered_by: `twilio:${to}` },
    });
  });

  it('a quick reply on an answered question is told so, and answers no other question of the number', async () => {
    const { id, message, to } = await w.ask({ question: 'Ship?', answer_format: 'confirm' });
    const open = await w.ask({ question: 'And this?', answer_format: 'confirm', recipient: to });
    await answerThroughApi(w.http, id);
    const reply = await w.text(to, 'Yes', { ButtonPayload: `${id}:y`, ButtonText: 'Yes' });
    expect(reply.body).toContain(`${tagOf(message.body)} This question is already answered.`);
    expect(await w.record(id)).toMatchObject({ status: 'answered', result: { answer: false, surface: 'api' } });
    expect(await w.record(open.id)).toMatchObject(untouched);
  });

  it('a quick reply after the deadline is told the question is closed', async () => {
    const { id, message, to } = await w.ask({ question: 'Late?', answer_format: 'confirm', timeout: 1 });
    await pastDeadline(w.record, id);
    const reply = await w.text(to, 'Yes', { ButtonPayload: `${id}:y`, ButtonText: 'Yes' });
    expect(reply.body).toContain(`${tagOf(message.body)} This question is closed.`);
    expect(await w.record(id)).toMatchObject({ status: 'expired', result: null });
  });
});

describe('web chat', () => {
  let w: WebWorld;
  beforeAll(async () => {
    w = await startWebWorld(onRedis('web'));
  }, 60_000);
  afterAll(async () => w?.close());

  const ask = async (body: Rec): Promise<string> => {
    const res = await w.http.post('/api/interactions', { channel: 'web', answer_format: 'confirm', ...body });
    expect(res.status).toBe(201);
    return res.json['id'] as string;
  };
  const record = async (id: string): Promise<Rec> => (await w.http.get(`/api/interactions/${id}`)).json;

  it('an answer from another recipient’s chat is refused as not found and changes nothing; the recipient’s answers', async () => {
    const recipient = freshRecipient();
    const id = await ask({ question: 'Deploy?', recipient });
    const refused = await w.chatAs(freshRecipient()).post(`/chat/api/questions/${id}/answer`, { answer: true });
    expect([refused.status, refused.json]).toEqual([
      404,
      { error: 'not_found', message: 'no such question in this chat.' },
    ]);
    expect(await record(id)).toMatchObject(untouched);
    const taken = await w.chatAs(recipient).post(`/chat/api/questions/${id}/answer`, { answer: true });
    expect([taken.status, taken.json]).toEqual([200, { status: 'answered' }]);
  });

  it('an answer to an answered question is told so, and the answer stays', async () => {
    const recipient = freshRecipient();
    const id = await ask({ question: 'Ship?', recipient });
    await answerThroughApi(w.http, id);
    const late = await w.chatAs(recipient).post(`/chat/api/questions/${id}/answer`, { answer: true });
    expect([late.status, late.json]).toEqual([200, { status: 'already_answered' }]);
    expect(await record(id)).toMatchObject({ status: 'answered', result: { answer: false, surface: 'api' } });
  });

  it('an answer after the deadline is 410 gone, expired', async () => {
    const recipient = freshRecipient();
    const id = await ask({ question: 'Late?', recipient, timeout: 1 });
    await pastDeadline(record, id);
    const late = await w.chatAs(recipient).post(`/chat/api/questions/${id}/answer`, { answer: true });
    expect([late.status, late.json]).toEqual([
      410,
      { error: 'gone', message: 'this question has expired.', status: 'expired' },
    ]);
    expect(await record(id)).toMatchObject({ status: 'expired', result: null });
  });
});
