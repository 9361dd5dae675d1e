import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshChat, startTelegramWorld, type TelegramWorld } from '../channels/telegram-harness.js';
import { PERSON, tapUpdate } from '../fakes/telegram-updates.js';
import { eventually, httpClient, stdioClient } from './harness.js';

/** `ask_human` to a person on the Telegram fake, through the SDK's own Client on both transports. */

let w: TelegramWorld;
beforeAll(async () => {
  w = await startTelegramWorld();
});
afterAll(async () => w?.close());

const transports: Array<[string, () => Promise<Client>]> = [
  ['stdio', () => stdioClient(w.gw)],
  ['Streamable HTTP', () => httpClient(w.gw)],
];

describe.each(transports)('over %s', (_name, connect) => {
  it('blocks until the person taps an answer on Telegram and returns who answered where', async () => {
    const chat = freshChat();
    const client = await connect();
    try {
      const call = client.callTool({
        name: 'ask_human',
        arguments: { question: 'Deploy to prod?', answer_format: 'confirm', channel: 'telegram', recipient: chat },
      });
      await eventually(() => w.fake.messagesIn(chat).length === 1, 'the question on Telegram');
      const message = w.fake.messagesIn(chat)[0];
      if (message === undefined) throw new Error('no message');
      expect(message.text).toContain('Deploy to prod?');
      expect(await w.send(tapUpdate(message, { label: 'Yes' }))).toBe(200);
      const result = (await call) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        answer: true,
        surface: 'telegram',
        // The verified Telegram user id, never the changeable @username.
        answered_by: `telegram:${PERSON.id}`,
      });
    } finally {
      await client.close();
    }
  });

  it('is a tool error naming the platform when Telegram cannot deliver the question', async () => {
    const chat = freshChat();
    w.fake.forgetChat(chat);
    const client = await connect();
    try {
      const result = (await client.callTool({
        name: 'ask_human',
        arguments: { question: 'Deploy?', answer_format: 'confirm', channel: 'telegram', recipient: chat },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect((result.content[0] as { text: string }).text).toMatch(/^undeliverable: .*chat not found/);
    } finally {
      await client.close();
    }
  });
});
