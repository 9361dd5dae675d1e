import { Api, GrammyError } from 'grammy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FAKE_LIMITS, FAKE_BOT_TOKEN, startFakeTelegram, type FakeTelegram } from '../fakes/telegram-server.js';
import { tapUpdate } from '../fakes/telegram-updates.js';

/**
 * The fake Bot API refuses what Telegram refuses (core.telegram.org/bots/api: InlineKeyboardButton, WebAppInfo,
 * answerCallbackQuery), so askgate's real code meets those refusals in the channel tests.
 */

let fake: FakeTelegram;
beforeAll(async () => {
  fake = await startFakeTelegram();
});
afterAll(async () => fake?.close());

async function call(
  method: string,
  payload: unknown,
  token = FAKE_BOT_TOKEN,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${fake.apiRoot}/bot${token}/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const send = (chat: string, keyboard: unknown) =>
  call('sendMessage', { chat_id: chat, text: 'Q?', reply_markup: { inline_keyboard: keyboard } });

describe('the fake Telegram refuses what Telegram refuses', () => {
  it('another bot token is 401 Unauthorized', async () => {
    expect(await call('getMe', {}, '123456:someone-else')).toMatchObject({ status: 401, body: { ok: false } });
    expect((await call('getMe', {})).status).toBe(200);
  });

  it('a button with no action, or with two, is 400', async () => {
    expect((await send('1001', [[{ text: 'Bare' }]])).status).toBe(400);
    expect((await send('1002', [[{ text: 'Both', callback_data: 'a', url: 'https://example.com' }]])).status).toBe(400);
    expect((await send('1003', [[{ text: 'Fine', callback_data: 'a' }]])).status).toBe(200);
  });

  it('a row of more than 8 buttons is 400; 8 are fine', async () => {
    const row = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `b${i}`, callback_data: `d${i}` }));
    expect((await send('1004', [row(9)])).status).toBe(400);
    expect((await send('1005', [row(8)])).status).toBe(200);
  });

  it('a web_app button needs an https URL (loopback http only when the test allows it) and a private chat', async () => {
    expect((await send('1006', [[{ text: 'Form', web_app: { url: 'http://127.0.0.1:8080/f' } }]])).status).toBe(400);
    expect((await send('1007', [[{ text: 'Form', web_app: { url: 'https://askgate.example.com/f' } }]])).status).toBe(
      200,
    );
    expect((await send('-1001', [[{ text: 'Form', web_app: { url: 'https://askgate.example.com/f' } }]])).status).toBe(
      400,
    );
    const loose = await startFakeTelegram({ allowLoopbackWebApp: true });
    try {
      const res = await fetch(`${loose.apiRoot}/bot${FAKE_BOT_TOKEN}/sendMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          chat_id: '1008',
          text: 'Q?',
          reply_markup: { inline_keyboard: [[{ text: 'Form', web_app: { url: 'http://127.0.0.1:8080/f' } }]] },
        }),
      });
      expect(res.status).toBe(200);
    } finally {
      await loose.close();
    }
  });

  it('answerCallbackQuery takes a query Telegram sent, once', async () => {
    expect((await call('answerCallbackQuery', { callback_query_id: 'never-sent' })).status).toBe(400);
    const sent = await send('1009', [[{ text: 'Yes', callback_data: 'y' }]]);
    const message = fake.message('1009', (sent.body['result'] as { message_id: number }).message_id);
    const tap = tapUpdate(message!, { label: 'Yes' }) as { callback_query: { id: string } };
    expect((await call('answerCallbackQuery', { callback_query_id: tap.callback_query.id })).status).toBe(200);
    expect((await call('answerCallbackQuery', { callback_query_id: tap.callback_query.id })).status).toBe(400);
  });

  it('paces by default: a second message to one chat inside a second is 429 with retry_after', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) statuses.push((await call('sendMessage', { chat_id: '1010', text: `m${i}` })).status);
    expect(statuses).toEqual([200, 429]);
  });
});

/** What a real client meets: grammY's own Api (no transformers, so no retries) against the fake. */
describe('the fake Telegram, through grammY', () => {
  const refusal = async (p: Promise<unknown>): Promise<GrammyError> => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    if (!(err instanceof GrammyError)) throw new Error(`expected a GrammyError, got ${String(err)}`);
    return err;
  };

  it('holds a chat to about one message a second (https://core.telegram.org/bots/faq): the second is 429, retry_after 1', async () => {
    const own = await startFakeTelegram();
    try {
      const api = new Api(FAKE_BOT_TOKEN, { apiRoot: own.apiRoot });
      await api.sendMessage(2001, 'first');
      const err = await refusal(api.sendMessage(2001, 'second'));
      expect(err.error_code).toBe(429);
      expect(err.parameters.retry_after).toBe(1);
      // Another chat is not held back by it.
      await api.sendMessage(2002, 'elsewhere');
    } finally {
      await own.close();
    }
  });

  it('holds the bot to about 30 messages a second: the 31st within the window is 429', async () => {
    const own = await startFakeTelegram();
    try {
      const api = new Api(FAKE_BOT_TOKEN, { apiRoot: own.apiRoot });
      for (let i = 0; i < 30; i++) await api.sendMessage(3000 + i, `m${i}`);
      const err = await refusal(api.sendMessage(3100, 'one too many'));
      expect(err.error_code).toBe(429);
    } finally {
      await own.close();
    }
  });

  it('holds a group (negative id) to 20 messages a minute, with the wait until the window frees as retry_after', async () => {
    // The per-chat gap is off here so that 20 messages fit in the test; the group rule is the one under test.
    const own = await startFakeTelegram({ limits: { ...DEFAULT_FAKE_LIMITS, perChatGapMs: 0, perWindow: 1000 } });
    try {
      const api = new Api(FAKE_BOT_TOKEN, { apiRoot: own.apiRoot });
      for (let i = 0; i < 20; i++) await api.sendMessage(-100200300, `m${i}`);
      const err = await refusal(api.sendMessage(-100200300, 'twenty-first'));
      expect(err.error_code).toBe(429);
      // About a minute after the first of the 20 (the test took well under 59 s).
      expect(err.parameters.retry_after).toBeGreaterThan(1);
      expect(err.parameters.retry_after).toBeLessThanOrEqual(60);
      // A private chat is not a group: 21 of them pass.
      for (let i = 0; i < 21; i++) await api.sendMessage(4001, `p${i}`);
    } finally {
      await own.close();
    }
  });

  it('refuses reply_parameters naming a message not in that chat, unless allow_sending_without_reply', async () => {
    const own = await startFakeTelegram({ limits: null });
    try {
      const api = new Api(FAKE_BOT_TOKEN, { apiRoot: own.apiRoot });
      const question = await api.sendMessage(5001, 'Question?');
      const reply = await api.sendMessage(5001, 'a reply', { reply_parameters: { message_id: question.message_id } });
      expect(reply.message_id).toBeGreaterThan(question.message_id);
      const err = await refusal(api.sendMessage(5001, 'to nothing', { reply_parameters: { message_id: 999_999 } }));
      expect(err.error_code).toBe(400);
      expect(err.description).toBe('Bad Request: message to be replied not found');
      // The same message id in another chat is not that chat's message.
      const elsewhere = api.sendMessage(5002, 'x', { reply_parameters: { message_id: question.message_id } });
      expect((await refusal(elsewhere)).error_code).toBe(400);
      await api.sendMessage(5001, 'fine', {
        reply_parameters: { message_id: 999_999, allow_sending_without_reply: true },
      });
    } finally {
      await own.close();
    }
  });
});
