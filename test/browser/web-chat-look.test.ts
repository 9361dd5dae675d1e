import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { afterAll, beforeAll } from 'vitest';
import { browserWorld } from '../helpers/browser.js';
import { startTestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { startVerifyingServer, webhookSecret } from '../park/helpers.js';

// The web chat as a person sees it, light and dark, phone and desktop: bubbles readable on their background, a
// composer with the cards' controls (not the browser's 21 px default), the outcome line above the history.
// A message is a turn for a route (ASKGATE_ROUTES, on Redis): its webhook answers, so both bubbles show.
const TOKEN = 'web-chat-look-token-0123456789abcdef';
const SECRET = webhookSecret();
let redis: RedisServerHandle;
let target: { url: string; close(): Promise<void> };
beforeAll(async () => {
  redis = await startRedisServer({ own: true });
  target = await startVerifyingServer(
    SECRET,
    (_delivery, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"text": "Noted."}'),
    () => undefined,
  );
});
afterAll(async () => {
  await target?.close();
  await redis?.stop();
});
const world = browserWorld(() =>
  startTestGateway({
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: '{chat-look}:',
    ASKGATE_TOKENS: JSON.stringify({
      [TOKEN]: { identity: 'desk', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
    }),
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    ASKGATE_ROUTES: JSON.stringify([
      {
        channel: 'web',
        identity: 'desk',
        target: { webhook: `${target.url}/turn` },
        reply: { template: '{{output.text}}' },
      },
    ]),
  }),
);

/** WCAG's contrast ratio of two `rgb(r, g, b)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (rgb: string): number => {
    const [r, g, bl] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

async function chatLink(recipient: string): Promise<string> {
  const res = await api(world.gw.url, TOKEN).post('/api/channels/web/links', { recipient });
  expect(res.status).toBe(201);
  return `${world.gw.url}/chat#token=${res.json['token'] as string}`;
}

async function look(page: Page): Promise<Record<string, string | number>> {
  return page.evaluate(() => {
    const style = (selector: string) => getComputedStyle(document.querySelector(selector) as Element);
    const input = document.querySelector('#message') as HTMLElement;
    return {
      bubbleBg: style('.chat-message.from-person').backgroundColor,
      bubbleText: style('.chat-message.from-person').color,
      inputHeight: input.getBoundingClientRect().height,
      inputFont: style('#message').fontSize,
      inputBg: style('#message').backgroundColor,
      inputText: style('#message').color,
      sendBg: style('#compose button').backgroundColor,
      sendText: style('#compose button').color,
      wider: document.documentElement.scrollWidth > window.innerWidth ? 1 : 0,
    };
  });
}

describe('the web chat page', () => {
  it('reads well in light and dark at 390 and 1280 px, and puts the outcome line above the history', async () => {
    const http = api(world.gw.url, TOKEN);
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [390, 1280]) {
        const recipient = `ada-${colorScheme}-${width}`;
        const page = await world.browser.newPage({ colorScheme, viewport: { width, height: 800 } });
        page.setDefaultTimeout(5_000);
        try {
          const asked = await http.post('/api/interactions', {
            question: 'What should the release notes say?',
            answer_format: 'text',
            channel: 'web',
            recipient,
            timeout: 600,
          });
          expect(asked.status, JSON.stringify(asked.json)).toBe(201);
          await page.goto(await chatLink(recipient));
          await page.locator('li.card').waitFor();
          await page.locator('#message').fill('Faster parks, fewer round trips.');
          await page.locator('#compose button').click();
          await page.locator('.chat-message.from-person').waitFor();
          await page.locator('.chat-message.from-askgate').waitFor();
          const seen = await look(page);
          expect(
            contrast(String(seen['bubbleBg']), String(seen['bubbleText'])),
            `${colorScheme} bubble`,
          ).toBeGreaterThanOrEqual(4.5);
          expect(
            contrast(String(seen['inputBg']), String(seen['inputText'])),
            `${colorScheme} input`,
          ).toBeGreaterThanOrEqual(4.5);
          expect(
            contrast(String(seen['sendBg']), String(seen['sendText'])),
            `${colorScheme} send`,
          ).toBeGreaterThanOrEqual(4.5);
          expect(seen['inputHeight']).toBeGreaterThanOrEqual(44);
          expect(seen['inputFont']).toBe('16px');
          expect(seen['wider']).toBe(0);
          await page.locator('li.card .text-answer textarea').fill('Faster parks.');
          await page.locator('li.card .text-answer button').click();
          await page.locator('li.card .chat-outcome').waitFor();
          const outcomeFirst = await page.evaluate(() => {
            const outcome = document.querySelector('li.card .chat-outcome') as Element;
            const history = document.querySelector('li.card .card-history') as Element;
            return (outcome.compareDocumentPosition(history) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
          });
          expect(outcomeFirst).toBe(true);
          await page.screenshot({ path: `.tmp/screens/chat-${colorScheme}-${width}.png`, fullPage: true });
        } finally {
          await page.close();
        }
      }
    }
  });

  it('shows no message box where no route takes messages, only the questions', async () => {
    const plain = await startTestGateway({ INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1' });
    const page = await world.browser.newPage();
    page.setDefaultTimeout(5_000);
    try {
      const http = api(plain.url, plain.token);
      const link = await http.post('/api/channels/web/links', { recipient: 'bo' });
      await http.post('/api/interactions', {
        question: 'Ship it?',
        answer_format: 'confirm',
        channel: 'web',
        recipient: 'bo',
        timeout: 600,
      });
      await page.goto(`${plain.url}/chat#token=${link.json['token'] as string}`);
      await page.locator('li.card').waitFor();
      await page.locator('#who').filter({ hasText: 'as bo' }).waitFor();
      expect(await page.locator('#compose').isVisible()).toBe(false);
    } finally {
      await page.close();
      await plain.close();
    }
  });

  it('shows the message box where a route takes messages', async () => {
    const page = await world.browser.newPage();
    page.setDefaultTimeout(5_000);
    try {
      await page.goto(await chatLink('cy'));
      await page.locator('#who').filter({ hasText: 'as cy' }).waitFor();
      await page.locator('#compose').waitFor({ state: 'visible' });
    } finally {
      await page.close();
    }
  });

  it('after a reload keeps questions and messages in the order they came, the answered one with its outcome', async () => {
    const http = api(world.gw.url, TOKEN);
    const recipient = 'dee';
    const page = await world.browser.newPage();
    page.setDefaultTimeout(10_000);
    const order = (): Promise<string[]> =>
      page
        .locator('#thread > li')
        .evaluateAll((items) =>
          items.map((li) =>
            li.classList.contains('card')
              ? `question ${li.querySelector('.question')?.textContent ?? ''} ${li.querySelector('.chat-outcome')?.textContent ?? '(open)'}`
              : `${li.classList.contains('from-person') ? 'person' : 'askgate'} ${li.textContent ?? ''}`,
          ),
        );
    try {
      const first = await http.post('/api/interactions', {
        question: 'Deploy today?',
        answer_format: 'confirm',
        channel: 'web',
        recipient,
        timeout: 600,
      });
      expect(first.status).toBe(201);
      await page.goto(await chatLink(recipient));
      await page.locator('li.card').getByRole('button', { name: 'Yes' }).click();
      await page.locator('li.card .chat-outcome').waitFor();
      await page.locator('#message').fill('Thanks, ping me for the next one.');
      await page.locator('#compose button').click();
      await page.locator('.chat-message.from-askgate').waitFor();
      const second = await http.post('/api/interactions', {
        question: 'And tomorrow?',
        answer_format: 'confirm',
        channel: 'web',
        recipient,
        timeout: 600,
      });
      expect(second.status).toBe(201);
      await page.locator('li.card').nth(1).waitFor();
      const expected = [
        'question Deploy today? ✅ Approved by you in the web chat',
        'person Thanks, ping me for the next one.',
        'askgate Noted.',
        'question And tomorrow? (open)',
      ];
      expect(await order()).toEqual(expected);
      await page.reload();
      await page.locator('li.card').nth(1).waitFor();
      await page.locator('.chat-message.from-askgate').waitFor();
      expect(await order()).toEqual(expected);
    } finally {
      await page.close();
    }
  });
});
