import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import type { TestGateway } from '../helpers/gateway.js';
import { askFor, recordOf, startCallbackGateway } from './helpers.js';

/** The callback form page in Chromium, served by the real door with its real CSP and the real enhancer asset. */

let browser: Browser;
let gw: TestGateway;
let page: Page;
let posts: number;

const schema = {
  type: 'object',
  required: ['email', 'backup', 'contact'],
  properties: {
    email: {
      type: 'string',
      format: 'email',
      title: 'Email',
      errorMessages: { invalid: 'Enter your full address', required: 'Enter an address first' },
    },
    backup: { type: 'string', format: 'email', title: 'Backup email' },
    contact: { type: 'string', enum: ['email', 'phone'], title: 'Contact by' },
    phone: { type: 'string', title: 'Phone', minLength: 3, visibleWhen: { field: 'contact', equals: 'phone' } },
  },
};

beforeAll(async () => {
  browser = await launchBrowser();
  gw = await startCallbackGateway();
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});
beforeEach(async () => {
  page = await browser.newPage();
  posts = 0;
  page.on('request', (r) => {
    if (r.method() === 'POST') posts += 1;
  });
});
afterEach(async () => page?.close());

async function open(path: string): Promise<void> {
  const res = await page.goto(`${gw.url}${path}`);
  expect(res?.status()).toBe(200);
  // The enhancer turns the browser's own bubbles off: that is how we know the script ran under the CSP.
  await expect.poll(() => page.evaluate(() => document.querySelector('form')?.noValidate)).toBe(true);
}

const errorOf = (field: string) => page.locator(`[data-field="${field}"] .field-error`).textContent();

describe('the callback form page', () => {
  it("shows the sender's sentence under a broken email, and no request leaves the page", async () => {
    const { path } = await askFor(gw, { question: 'Your details', answer_format: 'form', schema, link: true });
    await open(path);
    await page.locator('input[name="email"]').fill('nope');
    await page.locator('input[name="backup"]').fill('also-nope');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => errorOf('email')).toBe('Enter your full address');
    // Without wording, the page's own sentence.
    expect(await errorOf('backup')).toBe('Enter a valid email address');
    expect(posts).toBe(0);
  });

  it('shows the required sentence for an empty field', async () => {
    const { path } = await askFor(gw, { question: 'Your details', answer_format: 'form', schema, link: true });
    await open(path);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => errorOf('email')).toBe('Enter an address first');
    expect((await errorOf('backup'))?.length).toBeGreaterThan(0);
    expect(posts).toBe(0);
  });

  it('visibleWhen hides a field and its requirement; a valid submit answers; a second submit is already answered', async () => {
    const { id, path } = await askFor(gw, { question: 'Your details', answer_format: 'form', schema, link: true });
    await open(path);
    const phone = page.locator('[data-field="phone"]');
    expect(await phone.isHidden()).toBe(true);
    await page.locator('input[name="contact"][value="phone"]').check();
    await expect.poll(() => phone.isVisible()).toBe(true);
    await page.locator('input[name="contact"][value="email"]').check();
    await expect.poll(() => phone.isHidden()).toBe(true);
    await page.locator('input[name="email"]').fill('ada@example.com');
    await page.locator('input[name="backup"]').fill('ada2@example.com');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('your answer was sent').waitFor();
    expect(await recordOf(gw, id)).toMatchObject({
      status: 'answered',
      result: {
        answer: { email: 'ada@example.com', backup: 'ada2@example.com', contact: 'email' },
        surface: 'callback',
      },
    });
    // The person goes back and sends again.
    await page.goBack();
    await page.reload();
    await page.getByText('already answered').waitFor();
    const second = await browser.newPage();
    try {
      await second.goto(`${gw.url}${path}`);
      expect(await second.locator('h1').textContent()).toContain('already answered');
    } finally {
      await second.close();
    }
  });

  it('a resubmitted stale form reads already answered', async () => {
    const { path } = await askFor(gw, { question: 'Your details', answer_format: 'form', schema, link: true });
    await open(path);
    const other = await browser.newPage();
    await other.goto(`${gw.url}${path}`);
    for (const p of [page, other]) {
      await p.locator('input[name="email"]').fill('ada@example.com');
      await p.locator('input[name="backup"]').fill('ada2@example.com');
      await p.locator('input[name="contact"][value="email"]').check();
    }
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('your answer was sent').waitFor();
    await other.getByRole('button', { name: 'Send' }).click();
    await other.getByText('already answered').waitFor();
    await other.close();
  });

  it('a refusal by the server re-renders the form with the message under the field', async () => {
    const strict = {
      ...schema,
      properties: { ...schema.properties, email: { ...schema.properties.email, pattern: '@example\\.org$' } },
    };
    const { path } = await askFor(gw, { question: 'Org address', answer_format: 'form', schema: strict, link: true });
    await open(path);
    await page.locator('input[name="email"]').fill('ada@example.com');
    await page.locator('input[name="backup"]').fill('ada2@example.com');
    await page.locator('input[name="contact"][value="email"]').check();
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => errorOf('email')).toBe('Enter your full address');
    expect(await page.locator('input[name="email"]').inputValue()).toBe('ada@example.com');
    expect(posts).toBe(1);
  });

  it('the confirm page of an external question answers it', async () => {
    const { id, path } = await askFor(gw, { question: 'Did you sign the lease?', answer_format: 'external' });
    const res = await page.goto(`${gw.url}${path}`);
    expect(res?.status()).toBe(200);
    // Who asks, and by when (the deadline in UTC, machine-readable too).
    const record = await recordOf(gw, id);
    const deadline = new Date(record['deadline_at'] as string);
    await expect(page.locator('.cb-asker').textContent()).resolves.toBe(
      `Asked by dev · answer by ${deadline.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    );
    expect(await page.locator('.cb-asker time').getAttribute('datetime')).toBe(deadline.toISOString());
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('your answer was sent').waitFor();
    expect(await recordOf(gw, id)).toMatchObject({ status: 'answered', result: { answer: { confirmed: true } } });
  });
});
