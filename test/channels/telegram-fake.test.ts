import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_BOT_TOKEN, startFakeTelegram, type FakeTelegram } from '../fakes/telegram-server.js';
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

  it('paces by default: a fourth message to one chat inside a second is 429 with retry_after', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call('sendMessage', { chat_id: '1010', text: `m${i}` })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
