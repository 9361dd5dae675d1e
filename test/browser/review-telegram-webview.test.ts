import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, reviewAsk } from '../channels/review-fixtures.js';
import { freshChat, startTelegramWorld, type TelegramWorld } from '../channels/telegram-harness.js';
import { launchBrowser } from '../helpers/browser.js';

/**
 * A review's Edit on Telegram opens the callback page as a webview (the button's web_app URL). In a real Chromium at
 * a phone's width, that page's edit form opens filled in with the proposed arguments: each value shown in its
 * control (test/channels/telegram-review.test.ts checks the same page's HTML over HTTP). Needs the browser build.
 */

let w: TelegramWorld;
let browser: Browser;
beforeAll(async () => {
  w = await startTelegramWorld();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await w?.close();
});

type Button = { text: string; web_app?: { url: string } };

describe("Telegram: a review's Edit webview", () => {
  it('opens the edit form filled in with the proposed arguments, values visible in their controls', async () => {
    const { message } = await w.ask(reviewAsk('telegram', freshChat()));
    const rows = (message.reply_markup?.['inline_keyboard'] ?? []) as Button[][];
    const edit = rows.flat().find((b) => b.text === 'Edit');
    const webApp = edit?.web_app?.url;
    expect(webApp, 'the Edit button opens a web_app').toBeDefined();
    // The web_app URL names the public host; the same path is served by the gateway under test.
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    page.setDefaultTimeout(5_000);
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    try {
      await page.goto(`${w.gw.url}${new URL(webApp as string).pathname}`);
      await page.getByText('Edit the arguments').click();
      const to = page.getByLabel('To');
      const subject = page.getByLabel('Subject');
      const body = page.getByLabel('Body');
      for (const control of [to, subject, body]) await control.waitFor({ state: 'visible' });
      expect(await to.inputValue()).toBe('ada@example.com');
      expect(await subject.inputValue()).toBe('Quarterly report');
      expect(await body.inputValue()).toBe(ACTION.args.body);
      const high = page.locator('input[name="args.priority"][value="high"]');
      await high.waitFor({ state: 'visible' });
      expect(await high.isChecked()).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
