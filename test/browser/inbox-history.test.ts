import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AuditEvent, verifyChain } from 'askgate-sdk';
import { launchBrowser } from '../helpers/browser.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';

/**
 * A question's history in the web inbox, in a real Chromium: opening it loads the question's audit trail and shows
 * every event in order (a delivery, a reminder written by the store's append), the deadline while pending, and the
 * start of the chain's last hash — the same hash the events door serves. Needs the browser build (`npm run build`).
 */

let browser: Browser;
let gw: TestGateway;
let http: Api;
let page: Page;
let pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  gw = await startTestGateway();
  http = api(gw.url, gw.token);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});
beforeEach(async () => {
  page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(msg.text());
  });
});
afterEach(async () => {
  await page?.close();
  expect(pageErrors).toEqual([]);
});

const card = (id: string) => `li.card[data-id="${id}"]`;

describe('the inbox history', () => {
  it('shows the audit trail when opened, with the last hash the events door serves', async () => {
    const res = await http.post('/api/interactions', {
      question: 'Open the gates?',
      answer_format: 'confirm',
      timeout: 600,
    });
    expect(res.status).toBe(201);
    const id = res.json['id'] as string;
    const store = gw.gateway.store;
    await store.setDelivery(id, { ref: 'msg-1' });
    expect(await store.appendEvent(id, { type: 'reminded', surface: 'slack', by: 'askgate' })).toBe(true);

    await page.goto(`${gw.url}/inbox#token=${encodeURIComponent(gw.token)}`);
    await page.locator('#live.up').waitFor();
    await page.locator(`${card(id)} .card-history summary`).click();
    const trail = page.locator(`${card(id)} .card-trail`);
    await trail.waitFor();
    expect(await trail.locator('li').allTextContents()).toEqual([
      expect.stringMatching(/^Asked by dev /),
      expect.stringMatching(/^Delivered /),
      expect.stringMatching(/^Reminded on slack /),
      expect.stringMatching(/^Answer by /),
    ]);
    expect(
      await trail.locator('li[data-type]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-type'))),
    ).toEqual(['created', 'delivered', 'reminded']);

    const items = (await http.get(`/api/interactions/${id}/events`)).json['items'] as AuditEvent[];
    expect(verifyChain(items)).toEqual({ ok: true, count: 3 });
    const last = items.at(-1) as AuditEvent;
    expect(await trail.locator('.card-trail-hash').textContent()).toBe(`Audit hash ${last.hash.slice(0, 12)}…`);
    expect(await trail.locator('.card-trail-hash').getAttribute('title')).toBe(last.hash);
  });
});
