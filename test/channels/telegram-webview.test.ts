import { createServer } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { freshChat, startTelegramWorld, type TelegramWorld } from './telegram-harness.js';

/**
 * A form on Telegram, answered the way a person does it: the web_app button's URL (the callback form page) opened
 * in a browser, as Telegram's in-chat webview would, filled in and sent; the question message then shows the outcome.
 */

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let w: TelegramWorld;
let browser: Browser;
beforeAll(async () => {
  const port = await freePort();
  // The webview is this gateway on loopback http; real Telegram takes https web_app URLs only.
  w = await startTelegramWorld(
    { PORT: String(port), INTERACTIONS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
    { allowLoopbackWebApp: true },
  );
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await w?.close();
});

it('answers a Telegram form through the webview page and edits the outcome into the question', async () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Full name', minLength: 1 },
      seats: { type: 'integer', title: 'Seats', minimum: 1, maximum: 4 },
    },
    required: ['name', 'seats'],
  };
  const { id, message } = await w.ask({
    question: 'Book the table?',
    answer_format: 'form',
    schema,
    recipient: freshChat(),
  });
  const button = (message.reply_markup?.['inline_keyboard'] as Array<Array<{ web_app?: { url: string } }>>)[0]?.[0];
  const url = button?.web_app?.url;
  expect(url).toMatch(/\/api\/interactions\/callback\//);
  const page = await browser.newPage();
  try {
    await page.goto(url as string);
    await page.getByLabel('Full name').fill('Ada');
    await page.getByLabel('Seats').fill('2');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.cb-outcome').waitFor();
  } finally {
    await page.close();
  }
  expect((await w.record(id))['result']).toMatchObject({ answer: { name: 'Ada', seats: 2 }, surface: 'callback' });
  await w.edited(message);
  expect(message.text).toMatch(/✅ Answered by .+ through the callback link: form submitted/);
  expect(message.reply_markup).toBeNull();
});
