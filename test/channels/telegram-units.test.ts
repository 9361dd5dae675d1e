import { describe, expect, it } from 'vitest';
import { LocalPacer, chatOf } from '../../channels/telegram/pacing.js';
import { TokenBucket } from '../../channels/token-bucket.js';
import { botIdOf } from '../../channels/telegram/shared-pacing.js';
import { callbackData, questionText, selectKeyboard } from '../../channels/telegram/render.js';
import { decodeActionCode } from '../../src/core/action-code.js';
import { answerFromText } from '../../channels/replies.js';
import { verify } from '../../channels/telegram/verify.js';
import { parseUpdate } from '../../channels/telegram/webhook.js';

describe('telegram webhook verify', () => {
  const headers = (v?: string): Record<string, string> =>
    v === undefined ? {} : { 'x-telegram-bot-api-secret-token': v };
  it('accepts the exact secret only', () => {
    expect(verify({ secret: 's3cret', rawBody: '{}', headers: headers('s3cret'), now: 0 }).ok).toBe(true);
    expect(verify({ secret: 's3cret', rawBody: '{}', headers: headers('s3cre'), now: 0 }).ok).toBe(false);
    expect(verify({ secret: 's3cret', rawBody: '{}', headers: headers('s3cret '), now: 0 }).ok).toBe(false);
    expect(verify({ secret: 's3cret', rawBody: '{}', headers: headers(), now: 0 }).ok).toBe(false);
    expect(verify({ secret: '', rawBody: '{}', headers: headers(''), now: 0 }).ok).toBe(false);
  });
  it('reads a message that quotes nothing as a possible conversation turn, ignores service messages, and refuses non-updates', () => {
    expect(
      parseUpdate(
        JSON.stringify({ update_id: 1, message: { message_id: 1, chat: { id: 1 }, from: { id: 1 }, text: 'hi' } }),
      ),
    ).toEqual({
      kind: 'message',
      updateId: 1,
      chatId: '1',
      messageId: '1',
      text: 'hi',
      media: {},
      from: { id: '1', username: null },
    });
    expect(
      parseUpdate(
        JSON.stringify({ update_id: 2, message: { message_id: 2, chat: { id: 1 }, new_chat_title: 'Team' } }),
      ),
    ).toEqual({ kind: 'ignored', updateId: 2 });
    expect(() => parseUpdate('[]')).toThrow(/update_id/);
    expect(() => parseUpdate('nope')).toThrow(/JSON/);
  });
});

describe('telegram render', () => {
  it('round-trips callback actions and keeps them far under 64 bytes', () => {
    const id = 'AbCdEfGhIjKlMnOp';
    for (const pick of [
      { kind: 'confirm', value: true },
      { kind: 'choice', index: 99 },
      { kind: 'page', page: 12 },
    ] as const) {
      const data = callbackData(id, pick);
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(24);
      expect(decodeActionCode(data)).toEqual({ interactionId: id, pick });
    }
    expect(decodeActionCode('junk')).toBeNull();
  });
  it('refuses to write an id no action code carries, rather than a button that finds nothing', () => {
    // The longest id a code carries (48 characters, shard 999) still fits callback_data's 64 bytes with room to spare.
    expect(Buffer.byteLength(callbackData(`${'x'.repeat(48)}.999`, { kind: 'page', page: 999 }))).toBe(57);
    expect(() => callbackData('x'.repeat(70), { kind: 'confirm', value: true })).toThrow(/not an interaction id/);
  });
  it('cuts a long question to fit 4096 characters with its hint', () => {
    const text = questionText({ question: '€'.repeat(4096), answer_format: 'confirm' });
    expect([...text].length).toBeLessThanOrEqual(4096);
    expect(text).toMatch(/…\n\nTap Yes or No/);
  });
  it('lays out 100 choices in pages of 8 with navigation', () => {
    const kb = selectKeyboard({ id: 'AbCdEfGhIjKlMnOp', choices: Array.from({ length: 100 }, (_, i) => `c${i}`) }, 12);
    const labels = kb.inline_keyboard.flat().map((b) => b.text);
    expect(labels).toEqual(['c96', 'c97', 'c98', 'c99', '‹ Back', '13/13']);
  });
});

describe('telegram replies', () => {
  it('reads yes/no, choice names and numbers', () => {
    expect(answerFromText({ answer_format: 'confirm', choices: null }, ' Yes! ')).toBe(true);
    expect(answerFromText({ answer_format: 'confirm', choices: null }, 'no')).toBe(false);
    expect(answerFromText({ answer_format: 'confirm', choices: null }, 'maybe')).toBe('maybe');
    expect(answerFromText({ answer_format: 'select', choices: ['Red', 'Green'] }, 'green')).toBe('Green');
    expect(answerFromText({ answer_format: 'select', choices: ['Red', 'Green'] }, '1')).toBe('Red');
    // "no" / "decline" pick a Decline choice (an elicitation's decline question), unless a choice is spelled "no".
    expect(answerFromText({ answer_format: 'select', choices: ['Decline'] }, ' No. ')).toBe('Decline');
    expect(answerFromText({ answer_format: 'select', choices: ['Decline'] }, 'DECLINE!')).toBe('Decline');
    expect(answerFromText({ answer_format: 'select', choices: ['No', 'Decline'] }, 'no')).toBe('No');
    expect(answerFromText({ answer_format: 'select', choices: ['Red', 'Green'] }, 'no')).toBe('no');
  });
});

describe('telegram pacing', () => {
  it('lets a burst through, then spaces calls at the rate', () => {
    let now = 0;
    const bucket = new TokenBucket(1, 3, () => now);
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 0]);
    expect(bucket.reserve()).toBe(1000);
    expect(bucket.reserve()).toBe(2000);
    now = 10_000;
    expect(bucket.idle).toBe(true);
  });
  it("makes a chat wait out its 429, and everyone wait out the bot's", async () => {
    let now = 0;
    const pacer = new LocalPacer({ perChatBurst: 1 }, () => now);
    expect(await pacer.reserve('1')).toBe(0);
    await pacer.pushBack('1', 5000);
    now = 1000;
    expect(await pacer.reserve('1')).toBe(4000);
    // Another chat is not held back by chat 1's 429; only by the bot's spacing: 30 a second, ceil(1000 / 30) ms apart.
    expect(await pacer.reserve('2')).toBe(34);
    await pacer.pushBack(null, 3000);
    expect(await pacer.reserve('3')).toBe(3000);
    expect(await pacer.reserve(null)).toBe(3000);
  });
  it('counts message methods against their chat, and keys a bot by the public half of its token', () => {
    expect(chatOf('sendMessage', { chat_id: -100200 })).toBe('-100200');
    expect(chatOf('answerCallbackQuery', { callback_query_id: 'x' })).toBeNull();
    expect(botIdOf('123456:SECRET-part')).toBe('123456');
    expect(botIdOf('no-colon-secret')).not.toContain('secret');
  });
});
