import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshRecipient, startWebWorld, type WebWorld } from '../channels/web-harness.js';
import { launchBrowser } from '../helpers/browser.js';

/**
 * A review on the web surfaces, in a real Chromium against a real gateway: the inbox, the callback page and the web
 * chat show the proposed action readably; approve and reject are one press; edit opens the form filled in with the
 * proposed arguments (only the schema's fields) and sends the edited call; respond sends words; the callback page
 * answers without script and shows a server refusal beside its field. Light and dark at 390 and 1280 px, with
 * screenshots in .tmp/screens/. Needs the browser build (`npm run build`).
 */

const ACTION = {
  name: 'send_email',
  args: {
    to: 'ada@example.com',
    subject: 'Quarterly report',
    body: 'Hello team, the quarterly report is attached. Figures are final; the appendix follows on Monday.',
    tracking_id: 'not-in-the-schema',
  },
  description: 'Sends one email from the team account.',
};
const SCHEMA = {
  type: 'object',
  required: ['to', 'subject'],
  properties: {
    to: { type: 'string', format: 'email', title: 'To' },
    subject: { type: 'string', minLength: 1, maxLength: 80, title: 'Subject' },
    body: { type: 'string', maxLength: 2000, title: 'Body' },
  },
};
const REVIEW = {
  question: 'May I send this email?',
  answer_format: 'review',
  action: ACTION,
  schema: SCHEMA,
  decisions: ['approve', 'edit', 'reject', 'respond'],
  timeout: 600,
};

let w: WebWorld;
let browser: Browser;
beforeAll(async () => {
  w = await startWebWorld();
  browser = await launchBrowser();
  mkdirSync('.tmp/screens', { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await w?.close();
});

async function ask(extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const res = await w.http.post('/api/interactions', { ...REVIEW, ...extra });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json;
}

async function result(id: string): Promise<Record<string, unknown> | null> {
  return (await w.http.get(`/api/interactions/${id}`)).json['result'] as Record<string, unknown> | null;
}

async function openPage(options: { colorScheme?: 'light' | 'dark'; width?: number; script?: boolean } = {}) {
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
}

async function openInbox(page: Page): Promise<void> {
  await page.goto(`${w.gw.url}/inbox#token=${encodeURIComponent(w.gw.token)}`);
  await page.locator('#live.up').waitFor();
}

/** The callback URL on the test gateway (the public base URL of these asks names no server). */
const local = (url: string): string => new URL(new URL(url).pathname, w.gw.url).toString();

const card = (id: string) => `li.card[data-id="${id}"]`;

/** The action block as a person reads it: the name, the description and each row as "key = value". */
async function actionRead(page: Page, scope: string): Promise<string[]> {
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

const READ = [
  'send_email',
  'Sends one email from the team account.',
  'to = ada@example.com',
  'subject = Quarterly report',
  'body = Hello team, the quarterly report is attached. Figures are final; the appendix follows on Monday.',
  'tracking_id = not-in-the-schema',
];

describe('a review in the inbox', () => {
  it('shows the action readably and approves with one press', async () => {
    const { page, errors } = await openPage();
    try {
      const id = (await ask())['id'] as string;
      await openInbox(page);
      expect(await actionRead(page, card(id))).toEqual(READ);
      const buttons = await page.locator(`${card(id)} .review-buttons button`).allTextContents();
      expect(buttons).toEqual(['Approve', 'Edit', 'Reject', 'Respond']);
      await page.locator(card(id)).getByRole('button', { name: 'Approve' }).click();
      await page
        .locator(`${card(id)} .card-note`)
        .filter({ hasText: 'You answered Approve.' })
        .waitFor();
      expect(await result(id)).toMatchObject({ answer: { decision: 'approve' }, surface: 'inbox' });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('rejects with one press', async () => {
    const { page, errors } = await openPage();
    try {
      const id = (await ask())['id'] as string;
      await openInbox(page);
      await page.locator(card(id)).getByRole('button', { name: 'Reject' }).click();
      await page
        .locator(`${card(id)} .card-note`)
        .filter({ hasText: 'You answered Reject.' })
        .waitFor();
      expect((await result(id))?.['answer']).toEqual({ decision: 'reject' });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('opens edit with the schema fields filled in from the proposed args, and sends the edited call', async () => {
    const { page, errors } = await openPage();
    try {
      const id = (await ask())['id'] as string;
      await openInbox(page);
      await page.locator(card(id)).getByRole('button', { name: 'Edit' }).click();
      const form = page.locator(`${card(id)} .review-panel form`);
      await form.waitFor();
      // Only the schema's fields, each holding the proposed value; tracking_id has no field.
      const fields = await form
        .locator('input, textarea')
        .evaluateAll((els) => els.map((e) => [(e as HTMLInputElement).name, (e as HTMLInputElement).value]));
      expect(fields).toEqual([
        ['to', 'ada@example.com'],
        ['subject', 'Quarterly report'],
        ['body', ACTION.args.body],
      ]);
      await form.getByLabel('To').fill('grace@example.com');
      await form.getByRole('button', { name: 'Send edited call' }).click();
      await page
        .locator(`${card(id)} .card-note`)
        .filter({ hasText: 'You answered Edit.' })
        .waitFor();
      expect((await result(id))?.['answer']).toEqual({
        decision: 'edit',
        args: { to: 'grace@example.com', subject: 'Quarterly report', body: ACTION.args.body },
      });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("shows the server's refusal of an edit beside its field (args. dropped), the question still pending", async () => {
    const { page, errors } = await openPage();
    try {
      // A pattern the page does not check itself: only the server refuses it, naming args.subject.
      const schema = {
        ...SCHEMA,
        properties: { ...SCHEMA.properties, subject: { ...SCHEMA.properties.subject, pattern: '^[A-Z]' } },
      };
      const id = (await ask({ schema }))['id'] as string;
      await openInbox(page);
      await page.locator(card(id)).getByRole('button', { name: 'Edit' }).click();
      const form = page.locator(`${card(id)} .review-panel form`);
      await form.getByLabel('Subject').fill('lower case');
      await form.getByRole('button', { name: 'Send edited call' }).click();
      const slot = form.locator('[data-field="subject"] .field-error');
      await expect.poll(() => slot.textContent()).toBe('Must match pattern "^[A-Z]".');
      expect(await result(id)).toBeNull();
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('sends words back with respond', async () => {
    const { page, errors } = await openPage();
    try {
      const id = (await ask())['id'] as string;
      await openInbox(page);
      await page.locator(card(id)).getByRole('button', { name: 'Respond' }).click();
      await page.locator(`${card(id)} .review-panel textarea`).fill('Send it to the finance list instead.');
      await page
        .locator(`${card(id)} .review-panel`)
        .getByRole('button', { name: 'Send' })
        .click();
      await page
        .locator(`${card(id)} .card-note`)
        .filter({ hasText: 'You answered Respond' })
        .waitFor();
      expect((await result(id))?.['answer']).toEqual({
        decision: 'respond',
        message: 'Send it to the finance list instead.',
      });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('looks finished in light and dark at 390 and 1280 px, the edit form open', async () => {
    for (const colorScheme of ['light', 'dark'] as const)
      for (const width of [390, 1280]) {
        const { page, errors } = await openPage({ colorScheme, width });
        try {
          const id = (await ask())['id'] as string;
          await openInbox(page);
          await page.locator(card(id)).getByRole('button', { name: 'Edit' }).click();
          await page.locator(`${card(id)} .review-panel form`).waitFor();
          const wider = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
          expect(wider, `${colorScheme} ${width}: nothing wider than the screen`).toBe(false);
          await page.locator(card(id)).screenshot({ path: `.tmp/screens/review-inbox-${colorScheme}-${width}.png` });
          await w.http.delete(`/api/interactions/${id}`);
          expect(errors).toEqual([]);
        } finally {
          await page.close();
        }
      }
  });
});

describe('a review on its callback page', () => {
  it('approves with one press, without script', async () => {
    const asked = await ask({ link: true });
    const { page } = await openPage({ script: false });
    try {
      await page.goto(local(asked['callback_url'] as string));
      expect(await actionRead(page, 'main')).toEqual(READ);
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('status').filter({ hasText: 'your answer was sent' }).waitFor();
      expect(await result(asked['id'] as string)).toMatchObject({
        answer: { decision: 'approve' },
        surface: 'callback',
      });
    } finally {
      await page.close();
    }
  });

  it('edits from the filled-in form; a refused value comes back beside its field with the form open', async () => {
    const asked = await ask({ link: true });
    const { page } = await openPage({ script: false });
    try {
      await page.goto(local(asked['callback_url'] as string));
      await page.getByText('Edit the arguments').click();
      const to = page.locator('input[name="args.to"]');
      expect(await to.inputValue()).toBe('ada@example.com');
      expect(await page.locator('input[name="args.subject"]').inputValue()).toBe('Quarterly report');
      expect(await page.locator('[name="args.tracking_id"]').count()).toBe(0);
      // Without script and without the browser's own checks (novalidate: a browser that checks nothing, or a
      // hand-made post), the value reaches the server, which refuses it, naming the field.
      await page
        .locator('details.cb-review-panel form')
        .first()
        .evaluate((form) => form.setAttribute('novalidate', ''));
      await to.fill('not an address');
      await page.getByRole('button', { name: 'Send edited call' }).click();
      await page.locator('details.cb-review-panel[open]').waitFor();
      const message = await page.locator('input[name="args.to"]').evaluate((input) => {
        const id = input.getAttribute('aria-describedby') ?? '';
        return id
          .split(' ')
          .map((part) => document.getElementById(part)?.textContent ?? '')
          .join(' ');
      });
      expect(message).toMatch(/email/i);
      expect((await result(asked['id'] as string)) ?? null).toBeNull();
      await page.locator('input[name="args.to"]').fill('grace@example.com');
      await page.getByRole('button', { name: 'Send edited call' }).click();
      await page.getByRole('status').filter({ hasText: 'your answer was sent' }).waitFor();
      expect((await result(asked['id'] as string))?.['answer']).toEqual({
        decision: 'edit',
        args: { to: 'grace@example.com', subject: 'Quarterly report', body: ACTION.args.body },
      });
    } finally {
      await page.close();
    }
  });

  it('looks finished in light and dark at 390 and 1280 px', async () => {
    const asked = await ask({ link: true });
    for (const colorScheme of ['light', 'dark'] as const)
      for (const width of [390, 1280]) {
        const { page, errors } = await openPage({ colorScheme, width });
        try {
          await page.goto(local(asked['callback_url'] as string));
          await page.getByText('Edit the arguments').click();
          const wider = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
          expect(wider, `${colorScheme} ${width}: nothing wider than the screen`).toBe(false);
          await page.screenshot({ path: `.tmp/screens/review-callback-${colorScheme}-${width}.png`, fullPage: true });
          expect(errors).toEqual([]);
        } finally {
          await page.close();
        }
      }
  });
});

describe('a review in the web chat', () => {
  it('shows the action, approves with one press and says who decided', async () => {
    const recipient = freshRecipient();
    const asked = await ask({ channel: 'web', recipient });
    const { page, errors } = await openPage({ width: 390 });
    try {
      await page.goto(`${w.gw.url}/chat#token=${w.channel.link(recipient).token}`);
      const id = asked['id'] as string;
      await page.locator(card(id)).waitFor();
      expect(await actionRead(page, card(id))).toEqual(READ);
      await page.locator(card(id)).getByRole('button', { name: 'Approve' }).click();
      await page
        .getByText(/Approved by/)
        .first()
        .waitFor();
      expect(await result(id)).toMatchObject({ answer: { decision: 'approve' }, surface: 'web' });
      await page.screenshot({ path: '.tmp/screens/review-chat-light-390.png', fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
