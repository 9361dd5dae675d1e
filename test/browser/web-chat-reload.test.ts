import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { freshRecipient, startWebWorld, type WebWorld } from '../channels/web-harness.js';

/**
 * The web chat after a reload shows what it showed before: the answered, expired and cancelled questions stay, each
 * with its outcome line above its history (where the inbox puts its note), in the order they were asked, and the
 * person who answered reads as a person ("you", another chat's name), not as a raw `web:` identity (the history
 * below keeps the verified identity, as the audit trail has it). Light and dark at 390 and 1280 px, with screenshots.
 */

let w: WebWorld;
let browser: import('playwright-core').Browser;
beforeAll(async () => {
  w = await startWebWorld();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await w?.close();
});

const ask = async (body: Record<string, unknown>): Promise<string> => {
  const res = await w.http.post('/api/interactions', body);
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json['id'] as string;
};

/** Each question card as the page shows it: its id, its outcome line, whether it still has controls. */
async function thread(page: Page): Promise<Array<{ id: string; outcome: string | null; controls: boolean }>> {
  return page.locator('#thread > li.card').evaluateAll((cards) =>
    cards.map((card) => ({
      id: (card as HTMLElement).dataset['id'] ?? '',
      outcome: card.querySelector('.chat-outcome')?.textContent ?? null,
      controls: card.querySelector('.controls') !== null,
    })),
  );
}

/** Whether every outcome line comes before its card's history, as the inbox's note does. */
const outcomeAboveHistory = (page: Page): Promise<boolean> =>
  page.locator('#thread > li.card .chat-outcome').evaluateAll((lines) =>
    lines.every((line) => {
      const history = line.parentElement?.querySelector('.card-history');
      return history == null || (line.compareDocumentPosition(history) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
    }),
  );

describe('the web chat after a reload', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    for (const width of [390, 1280]) {
      it(`shows the ended questions with their outcomes as before (${colorScheme}, ${width} px)`, async () => {
        const ada = freshRecipient();
        const bob = freshRecipient();
        const approved = await ask({ question: 'Ship 4.2?', answer_format: 'confirm', channel: 'web', recipient: ada });
        const expiring = await ask({
          question: 'Lunch at noon?',
          answer_format: 'confirm',
          channel: 'web',
          recipient: ada,
          timeout: 1,
        });
        const shared = await ask({
          question: 'Which region?',
          answer_format: 'select',
          choices: ['eu-west', 'us-east'],
          deliver: [
            { channel: 'web', recipient: ada },
            { channel: 'web', recipient: bob },
          ],
        });
        const withdrawn = await ask({
          question: 'Rotate keys?',
          answer_format: 'confirm',
          channel: 'web',
          recipient: ada,
        });
        const open = await ask({ question: 'Anything else?', answer_format: 'text', channel: 'web', recipient: ada });

        const page = await browser.newPage({ colorScheme, viewport: { width, height: 900 } });
        page.setDefaultTimeout(10_000);
        try {
          await page.goto(`${w.gw.url}/chat#token=${w.channel.link(ada).token}`);
          await page.locator(`li.card[data-id="${open}"]`).waitFor();
          await page.locator(`li.card[data-id="${approved}"]`).getByRole('button', { name: 'Yes' }).click();
          const bobs = await w.chatAs(bob).post(`/chat/api/questions/${shared}/answer`, { answer: 'us-east' });
          expect(bobs.json).toEqual({ status: 'answered' });
          expect((await w.http.delete(`/api/interactions/${withdrawn}`)).status).toBe(200);
          for (const id of [approved, expiring, shared, withdrawn])
            await page.locator(`li.card[data-id="${id}"] .chat-outcome`).waitFor();

          const expected = [
            { id: approved, outcome: '✅ Approved by you in the web chat', controls: false },
            { id: expiring, outcome: '⌛ Expired', controls: false },
            { id: shared, outcome: `✅ Answered by ${bob} in the web chat: “us-east”`, controls: false },
            { id: withdrawn, outcome: '✖ Cancelled', controls: false },
            { id: open, outcome: null, controls: true },
          ];
          expect(await thread(page)).toEqual(expected);

          await page.reload();
          await page.locator(`li.card[data-id="${open}"]`).waitFor();
          await page.locator(`li.card[data-id="${withdrawn}"] .chat-outcome`).waitFor();
          expect(await thread(page)).toEqual(expected);
          expect(await outcomeAboveHistory(page)).toBe(true);
          expect(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)).toBe(false);
          // From the top: a full-page shot taken scrolled down draws the sticky top bar mid-page.
          await page.evaluate(() => window.scrollTo(0, 0));
          await page.screenshot({ path: `.tmp/screens/chat-reload-${colorScheme}-${width}.png`, fullPage: true });
        } finally {
          await page.close();
        }
      });
    }
  }
});
