import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { PUBLIC_BASE, startEmailWorld, type EmailWorld } from './email-harness.js';
import type { ReceivedMail } from '../fakes/smtp-server.js';

/**
 * The question mail as a person sees it, in Chromium: its HTML (as the SMTP server received it) rendered light and
 * dark at phone and desktop width, screenshotted to .tmp/screens/email-*.png, nothing wider than the screen; then
 * its "Yes" button clicked through: the link's page answers nothing, its one button answers as email:<address>, and
 * the outcome arrives as a further message in the thread.
 */

let browser: Browser;
let w: EmailWorld;
beforeAll(async () => {
  mkdirSync('.tmp/screens', { recursive: true });
  browser = await launchBrowser();
  w = await startEmailWorld();
});
afterAll(async () => {
  await browser?.close();
  await w?.close();
});

/** Shows a received message's HTML as a mail client's reading pane would, its links on the test gateway. */
async function show(page: Page, message: ReceivedMail): Promise<void> {
  await page.setContent(message.html.replaceAll(PUBLIC_BASE, w.gw.url), { waitUntil: 'load' });
}

async function shot(page: Page, name: string, colorScheme: 'light' | 'dark', width: number): Promise<void> {
  const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  expect(fits, `${name} ${colorScheme} ${width} is wider than the screen`).toBe(true);
  await page.screenshot({ path: `.tmp/screens/email-${name}-${colorScheme}-${width}.png`, fullPage: true });
}

describe('the question mail in Chromium', () => {
  it('reads well light and dark at 390 and 1280 px: the question, the buttons, the note', async () => {
    const confirm = await w.ask({
      question: 'Deploy release 2.14 to production now? The canary has been green for an hour.',
      answer_format: 'confirm',
    });
    const select = await w.ask({
      question: 'Which rollout strategy should the payments service use this week?',
      answer_format: 'select',
      choices: ['Canary (5% for an hour, then everyone)', 'Blue-green', 'All at once — it is a config change only'],
    });
    const text = await w.ask({ question: 'Why did last night’s deploy fail?', answer_format: 'text' });
    const review = await w.ask({
      question: 'May I send this email?',
      answer_format: 'review',
      action: {
        name: 'send_email',
        args: { to: 'ada@example.com', subject: 'Quarterly report', body: 'Attached: the Q3 numbers.' },
        description: 'Sends one email from the team account.',
      },
    });
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [390, 1280]) {
        const page = await browser.newPage({ colorScheme, viewport: { width, height: 800 } });
        try {
          for (const [name, q] of [
            ['confirm', confirm],
            ['select', select],
            ['text', text],
            ['review', review],
          ] as const) {
            await show(page, q.message);
            const card = page.locator('.ag-card');
            const background = await card.evaluate((el) => getComputedStyle(el).backgroundColor);
            expect(background, `${name} ${colorScheme}`).toBe(
              colorScheme === 'light' ? 'rgb(255, 255, 255)' : 'rgb(31, 36, 43)',
            );
            expect(await page.locator('a.ag-button').count()).toBe(w.links(q.message).length);
            await shot(page, name, colorScheme, width);
          }
        } finally {
          await page.close();
        }
      }
    }
  });

  it('its Yes button opens a page that answers nothing; the page’s button answers as email:<address>', async () => {
    const q = await w.ask({ question: 'Rotate the API keys tonight?', answer_format: 'confirm' });
    const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
    let outcome: ReceivedMail;
    try {
      await show(page, q.message);
      const opened = page.waitForResponse((r) => r.request().method() === 'GET' && r.url().includes('/a/'));
      await page.getByRole('link', { name: 'Yes' }).click();
      expect((await opened).status()).toBe(200);
      expect(await page.getByRole('button').count()).toBe(1);
      expect(await page.locator('.al-choice').textContent()).toBe('Yes');
      // Opening the link (as a mail scanner would) changed nothing.
      expect((await w.record(q.id))['status']).toBe('pending');
      const posted = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Answer “Yes”' }).click();
      expect((await posted).status()).toBe(200);
      await expect.poll(() => page.locator('h1').textContent()).toBe('Thank you — your answer was sent.');
      expect(await w.record(q.id)).toMatchObject({
        status: 'answered',
        result: { answer: true, answered_by: `email:${q.to}`, surface: 'email', reply_to: null },
      });
      // Every process follows up in the thread: the outcome, with no buttons left.
      await expect.poll(() => w.thread(q.message.messageId).length).toBe(1);
      outcome = w.thread(q.message.messageId)[0] as ReceivedMail;
      expect(outcome.text).toContain(`✅ Approved by ${q.to} by email`);
      expect(w.links(outcome)).toEqual([]);
    } finally {
      await page.close();
    }
    // A fresh page: the action-link page's policy (no inline style) would hold for content written into it.
    for (const colorScheme of ['light', 'dark'] as const) {
      const reader = await browser.newPage({ colorScheme, viewport: { width: 390, height: 800 } });
      await show(reader, outcome);
      await shot(reader, 'outcome', colorScheme, 390);
      await reader.close();
    }
  });
});
