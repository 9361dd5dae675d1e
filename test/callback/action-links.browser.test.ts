import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { probeChannel } from '../channels/probe-channel.js';

/**
 * An action link clicked through in Chromium, light and dark, at phone and desktop width: the link's page (the
 * question, the one answer, who it is for, one button), the page after pressing it, the outcome a second link shows
 * and the page of a broken link. Each is screenshotted to .tmp/screens/action-link-*.png; nothing is wider than the
 * screen, the page follows the scheme, and the press answers as the link's recipient.
 */

const PUBLIC = 'http://127.0.0.1:9';
const probe = probeChannel({ name: 'probe', log: [], links: true });
let browser: Browser;
let gw: TestGateway;

beforeAll(async () => {
  browser = await launchBrowser();
  gw = await startTestGateway(
    { INTERACTIONS_PUBLIC_BASE_URL: PUBLIC, ASKGATE_LINK_SECRET: 'browser-test-link-secret-0123456789abcdef' },
    { plugins: [probe] },
  );
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

async function ask(): Promise<{ id: string; yes: string; no: string }> {
  const res = await api(gw.url, gw.token).post('/api/interactions', {
    question: 'Deploy release 2.14 to production now? The canary has been green for an hour.',
    answer_format: 'confirm',
    channel: 'probe',
    recipient: 'ann.lee@example.com',
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  const id = res.json['id'] as string;
  const links = probe.links.get(id) ?? {};
  const rebase = (url: string | undefined) => (url ?? '').replace(PUBLIC, gw.url);
  return { id, yes: rebase(links['yes']), no: rebase(links['no']) };
}

describe('an action link in Chromium', () => {
  it('GET shows one button; pressing it answers as the recipient; pages fit 390 and 1280 px, light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [390, 1280]) {
        const where = `${colorScheme}-${width}`;
        const { id, yes, no } = await ask();
        const page = await browser.newPage({ colorScheme, viewport: { width, height: 800 } });
        try {
          const shot = async (name: string) => {
            await page.waitForLoadState('load');
            const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
            expect(fits, `${name} ${where} is wider than the screen`).toBe(true);
            const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
            expect(background, where).toBe(colorScheme === 'light' ? 'rgb(255, 255, 255)' : 'rgb(21, 24, 28)');
            await page.screenshot({ path: `.tmp/screens/action-link-${name}-${where}.png`, fullPage: true });
          };
          expect((await page.goto(yes))?.status()).toBe(200);
          expect(await page.getByRole('button').count()).toBe(1);
          expect(await page.locator('.al-choice').textContent()).toBe('Yes');
          await shot('confirm');
          const posted = page.waitForResponse((r) => r.request().method() === 'POST');
          await page.getByRole('button', { name: 'Answer “Yes”' }).click();
          expect((await posted).status()).toBe(200);
          await expect.poll(() => page.locator('h1').textContent()).toBe('Thank you — your answer was sent.');
          await shot('sent');
          expect((await api(gw.url, gw.token).get(`/api/interactions/${id}`)).json).toMatchObject({
            status: 'answered',
            result: { answer: true, answered_by: 'probe:ann.lee@example.com', surface: 'probe' },
          });
          expect((await page.goto(no))?.status()).toBe(200);
          expect(await page.locator('h1').textContent()).toBe('This question was answered.');
          expect(await page.getByRole('button').count()).toBe(0);
          await shot('outcome');
          expect((await page.goto(`${yes.slice(0, -4)}AAAA`))?.status()).toBe(400);
          await shot('invalid');
        } finally {
          await page.close();
        }
      }
    }
  });
});
