import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { startWebWorld, type WebWorld } from '../channels/web-harness.js';
import { launchBrowser } from '../helpers/browser.js';

/**
 * What the review browser tests share (review.test.ts: the inbox; review-callback.test.ts: the callback page;
 * review-chat.test.ts: the web chat): the review they ask, a real gateway with the web chat, a real Chromium, and
 * how they read the action block. Screenshots go to .tmp/screens/. Needs the browser build (`npm run build`).
 */

export const ACTION = {
  name: 'send_email',
  args: {
    to: 'ada@example.com',
    subject: 'Quarterly report',
    body: 'Hello team, the quarterly report is attached. Figures are final; the appendix follows on Monday.',
    tracking_id: 'not-in-the-schema',
  },
  description: 'Sends one email from the team account.',
};
export const SCHEMA = {
  type: 'object',
  required: ['to', 'subject'],
  properties: {
    to: { type: 'string', format: 'email', title: 'To' },
    subject: { type: 'string', minLength: 1, maxLength: 80, title: 'Subject' },
    body: { type: 'string', maxLength: 2000, title: 'Body' },
  },
};
export const REVIEW = {
  question: 'May I send this email?',
  answer_format: 'review',
  action: ACTION,
  schema: SCHEMA,
  decisions: ['approve', 'edit', 'reject', 'respond'],
  timeout: 600,
};

/** The action block as a person reads it: the name, the description and each row as "key = value". */
export const READ = [
  'send_email',
  'Sends one email from the team account.',
  'to = ada@example.com',
  'subject = Quarterly report',
  'body = Hello team, the quarterly report is attached. Figures are final; the appendix follows on Monday.',
  'tracking_id = not-in-the-schema',
];

export const SCREENS = '.tmp/screens';
export const LOOKS = [
  ['light', 390],
  ['light', 1280],
  ['dark', 390],
  ['dark', 1280],
] as const;

export const card = (id: string): string => `li.card[data-id="${id}"]`;

export interface ReviewWorld {
  w(): WebWorld;
  browser(): Browser;
  ask(extra?: Record<string, unknown>): Promise<Record<string, unknown>>;
  result(id: string): Promise<Record<string, unknown> | null>;
  openPage(options?: {
    colorScheme?: 'light' | 'dark';
    width?: number;
    script?: boolean;
  }): Promise<{ page: Page; errors: string[] }>;
  /** The callback URL on the test gateway (the public base URL of these asks names no server). */
  local(url: string): string;
  /** Withdraws every pending question (earlier tests' leftovers), so a screenshot shows only its own. */
  withdrawAll(): Promise<void>;
}

/** Starts the gateway and the browser for one test file (closed after it). */
export function reviewWorld(): ReviewWorld {
  let w: WebWorld;
  let browser: Browser;
  beforeAll(async () => {
    w = await startWebWorld();
    browser = await launchBrowser();
    mkdirSync(SCREENS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await w?.close();
  });
  return {
    w: () => w,
    browser: () => browser,
    async ask(extra = {}) {
      const res = await w.http.post('/api/interactions', { ...REVIEW, ...extra });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      return res.json;
    },
    async result(id) {
      return (await w.http.get(`/api/interactions/${id}`)).json['result'] as Record<string, unknown> | null;
    },
    async openPage(options = {}) {
      const page = await browser.newPage({
        colorScheme: options.colorScheme ?? 'light',
        viewport: { width: options.width ?? 1280, height: 900 },
        javaScriptEnabled: options.script ?? true,
      });
      page.setDefaultTimeout(5_000);
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      page.on('console', (msg) => {
        if (msg.type() === 'error' && !/status of 400/.test(msg.text())) errors.push(msg.text());
      });
      return { page, errors };
    },
    local: (url) => new URL(new URL(url).pathname, w.gw.url).toString(),
    async withdrawAll() {
      const pending = (await w.http.get('/api/interactions?limit=200')).json['items'] as Array<{ id: string }>;
      for (const { id } of pending) await w.http.delete(`/api/interactions/${id}`);
    },
  };
}

/** The action block under `scope` as a person reads it (see READ). */
export async function actionRead(page: Page, scope: string): Promise<string[]> {
  return page
    .locator(`${scope} .review-action`)
    .evaluate((box) => [
      box.querySelector('.review-tool')?.textContent ?? '',
      box.querySelector('.review-description')?.textContent ?? '',
      ...[...box.querySelectorAll('.review-arg')].map(
        (row) => `${row.querySelector('dt')?.textContent} = ${row.querySelector('dd')?.textContent}`,
      ),
    ]);
}

/** True when something on the page is wider than the screen (a sideways scroll on a phone). */
export async function widerThanScreen(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}

/** The left edge of each argument's value: one number when the values line up as a column. */
export async function valueEdges(page: Page, scope: string): Promise<number[]> {
  const edges = await page
    .locator(`${scope} .review-arg dd`)
    .evaluateAll((dds) => dds.map((dd) => Math.round(dd.getBoundingClientRect().left)));
  return [...new Set(edges)];
}
