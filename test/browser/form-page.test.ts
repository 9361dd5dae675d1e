import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeFormFields } from '../../forms/decode.js';
import { renderFormHtml } from '../../forms/render-html.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * A server-rendered form page, as the callback door serves it: renderFormHtml's markup plus the one
 * `/assets/web/enhance-auto.js` script under a strict CSP, posting form-encoded. The page itself is stubbed with
 * page.route on the gateway's origin; the script is the gateway's real asset.
 */

let browser: Browser;
let gw: TestGateway;
let page: Page;
let posts: string[];

const schema = {
  type: 'object',
  required: ['email', 'day', 'phone', 'address'],
  properties: {
    email: { type: 'string', format: 'email', title: 'Email', errorMessages: { invalid: 'Enter your full address' } },
    day: { type: 'string', format: 'date', title: 'Day', formatMinimum: '2025-01-01', formatMaximum: '2025-12-31' },
    at: { type: 'string', format: 'date-time', title: 'Call at' },
    seats: { type: 'integer', title: 'Seats', minimum: 1 },
    contact: { type: 'string', enum: ['email', 'phone'], title: 'Contact by' },
    phone: {
      type: 'string',
      title: 'Phone',
      visibleWhen: { field: 'contact', equals: 'phone' },
      errorMessages: { required: 'Give a number' },
    },
    extra: { type: 'array', items: { type: 'object' }, title: 'Extra' },
    address: {
      type: 'object',
      title: 'Address',
      required: ['city'],
      properties: { city: { type: 'string', title: 'City' } },
    },
  },
};

function pageHtml(): string {
  return `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/web/forms.css"><script type="module" src="/assets/web/enhance-auto.js"></script></head>
<body>${renderFormHtml(schema, { action: '/test-form/post' })}</body></html>`;
}

beforeAll(async () => {
  browser = await launchBrowser();
  gw = await startTestGateway();
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});
beforeEach(async () => {
  page = await browser.newPage();
  page.setDefaultTimeout(5_000);
  posts = [];
  await page.route(`${gw.url}/test-form`, (route) =>
    route.fulfill({
      status: 200,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': "default-src 'self'; script-src 'self'; img-src 'self' data:",
      },
      body: pageHtml(),
    }),
  );
  await page.route(`${gw.url}/test-form/post`, (route) => {
    posts.push(route.request().postData() ?? '');
    return route.fulfill({ status: 200, contentType: 'text/html', body: '<p>Thanks</p>' });
  });
});
afterEach(async () => page?.close());

async function open(): Promise<void> {
  await page.goto(`${gw.url}/test-form`);
  // The enhancer switches the browser's own bubbles off: that is how we know it ran.
  await expect.poll(() => page.evaluate(() => document.querySelector('form')?.noValidate)).toBe(true);
}

describe('a server-rendered form page with enhance-auto', () => {
  it('keeps broken fields on the page with their sentences and sends nothing', async () => {
    await open();
    await page.locator('#ag-email').fill('nope');
    await page.locator('#ag-day').fill('2026-02-01');
    await page.getByRole('button', { name: 'Send' }).click();
    const error = (field: string) => page.locator(`[data-field="${field}"] .field-error`).textContent();
    await expect.poll(() => error('email')).toBe('Enter your full address');
    expect(await error('day')).toBe('Enter a date on or before 2025-12-31.');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('email');

    // A field revealed by visibleWhen becomes checked (and required) only once shown.
    expect(await page.locator('[data-field="phone"]').isVisible()).toBe(false);
    await page.getByRole('radio', { name: 'phone' }).check();
    await expect.poll(() => page.locator('[data-field="phone"]').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => error('phone')).toBe('Give a number');
    expect(posts).toEqual([]);
  });

  it('posts form-encoded when valid, without hidden fields, and the entries decode to the typed answer', async () => {
    await open();
    await page.locator('#ag-email').fill('ada@example.com');
    await page.locator('#ag-day').fill('2025-06-01');
    await page.getByLabel('Call at').fill('2025-06-01T09:30');
    await page.getByLabel('Seats').fill('3');
    await page.getByRole('radio', { name: 'phone' }).check();
    await page.locator('#ag-phone').fill('+33 1 23');
    await page.getByRole('radio', { name: 'email' }).check(); // hides Phone again: it must not be sent
    await page.getByLabel('Extra').fill('[{"a":1}]');
    await page.locator('#ag-address_city').fill('Lyon');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => posts.length).toBe(1);
    const entries = [...new URLSearchParams(posts[0])];
    expect(entries.map(([k]) => k)).not.toContain('phone');
    const answer = decodeFormFields(schema, entries);
    expect(answer).toMatchObject({
      email: 'ada@example.com',
      day: '2025-06-01',
      seats: 3,
      contact: 'email',
      extra: [{ a: 1 }],
      address: { city: 'Lyon' },
    });
    expect(answer['at']).toMatch(/^2025-06-01T09:30:00(Z|[+-]\d{2}:\d{2})$/);
  });
});
