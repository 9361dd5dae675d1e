import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';

/**
 * The web inbox in a real Chromium against a real gateway: answering each way, the form's checks keeping a broken
 * answer on the page, the server's refusal shown beside its field, media above the controls, and the list kept
 * live over the stream. Needs the browser build (`npm run build`): the page loads /assets from dist/web.
 */

let browser: Browser;
let gw: TestGateway;
let http: Api;
let page: Page;
/** Script errors and console errors (a CSP violation lands there) fail the test that caused them. */
let pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  // A public base URL lets a question go to the web chat too (a channel ask mints its callback link).
  gw = await startTestGateway({ INTERACTIONS_PUBLIC_BASE_URL: 'https://askgate.example.com' });
  http = api(gw.url, gw.token);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

beforeEach(async () => {
  // Each test starts from an empty inbox: cancel whatever an earlier test left pending.
  const pending = (await http.get('/api/interactions?status=pending&limit=200')).json['items'] as Array<{ id: string }>;
  await Promise.all(pending.map((p) => http.delete(`/api/interactions/${p.id}`)));
  page = await browser.newPage();
  page.setDefaultTimeout(5_000);
  pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    // A refused answer is a 400 the page handles; the browser logs the failed request all the same.
    if (msg.type() === 'error' && !/status of 400/.test(msg.text())) pageErrors.push(msg.text());
  });
});
afterEach(async () => {
  await page?.close();
  expect(pageErrors).toEqual([]);
});

async function ask(body: Record<string, unknown>): Promise<string> {
  const res = await http.post('/api/interactions', { timeout: 600, ...body });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json['id'] as string;
}

async function openInbox(): Promise<void> {
  await page.goto(`${gw.url}/inbox#token=${encodeURIComponent(gw.token)}`);
  await page.locator('#live.up').waitFor();
}

const card = (id: string) => `li.card[data-id="${id}"]`;

async function record(id: string): Promise<Record<string, unknown>> {
  return (await http.get(`/api/interactions/${id}`)).json;
}

describe('the web inbox', () => {
  it('serves the page under a strict CSP, and takes the token out of the address bar', async () => {
    const res = await fetch(`${gw.url}/inbox`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("img-src 'self' https: data:");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain('media-src https:');
    expect(await res.text()).not.toMatch(/<script>|<script(?![^>]*\bsrc=)/);
    await openInbox();
    expect(page.url()).not.toContain('token');
  });

  it('answers a confirm with Yes', async () => {
    const id = await ask({ question: 'Ship the release?', answer_format: 'confirm', group_id: 'deploys' });
    await openInbox();
    await page.locator(card(id)).getByRole('button', { name: 'Yes' }).click();
    await page.locator(card(id)).waitFor({ state: 'detached' });
    const r = await record(id);
    expect(r['status']).toBe('answered');
    expect(r['result']).toMatchObject({ answer: true, surface: 'inbox' });
  });

  it('says what was sent before the card goes, and who answered where when it was answered elsewhere', async () => {
    const mine = await ask({ question: 'Deploy now?', answer_format: 'confirm' });
    const theirs = await ask({ question: 'Which region?', answer_format: 'select', choices: ['eu-west', 'us-east'] });
    const withdrawn = await ask({ question: 'Still needed?', answer_format: 'confirm' });
    await openInbox();
    // A pending question's history says who asked and by when it must be answered; closed until asked for.
    expect(await page.locator(`${card(mine)} .card-history`).getAttribute('open')).toBeNull();
    await page.locator(`${card(mine)} .card-history summary`).click();
    expect(await page.locator(`${card(mine)} .card-history li`).allTextContents()).toEqual([
      expect.stringMatching(/^Asked by dev /),
      expect.stringMatching(/^Answer by /),
    ]);
    await page.locator(card(mine)).getByRole('button', { name: 'No' }).click();
    await expect.poll(() => page.locator(`${card(mine)} .card-note`).textContent()).toBe('You answered No.');
    expect(
      await page
        .locator(`${card(mine)} button`)
        .first()
        .isDisabled(),
    ).toBe(true);
    await http.post(`/api/interactions/${theirs}/answer`, { answer: 'eu-west' });
    await expect
      .poll(() => page.locator(`${card(theirs)} .card-note`).textContent())
      .toBe('Answered by dev on api: “eu-west”.');
    // Its history, on request, now ends with who answered where.
    await page.locator(`${card(theirs)} .card-history summary`).click();
    const history = await page.locator(`${card(theirs)} .card-history li`).allTextContents();
    expect(history[0]).toMatch(/^Asked by dev /);
    expect(history.at(-1)).toMatch(/^Answered by dev on api /);
    await http.delete(`/api/interactions/${withdrawn}`);
    await expect
      .poll(() => page.locator(`${card(withdrawn)} .card-note`).textContent())
      .toBe('Withdrawn by its asker.');
    // Each note stays a moment, then its card goes.
    await page.locator(card(mine)).waitFor({ state: 'detached' });
    await page.locator(card(theirs)).waitFor({ state: 'detached' });
  });

  it('says where a question asked on several surfaces went: each channel and recipient', async () => {
    const id = await ask({
      question: 'Rotate the keys?',
      answer_format: 'confirm',
      deliver: [
        { channel: 'web', recipient: 'alice' },
        { channel: 'web', recipient: 'bob' },
      ],
    });
    const single = await ask({
      question: 'Rotate the certs?',
      answer_format: 'confirm',
      channel: 'web',
      recipient: 'carol',
    });
    await openInbox();
    expect(await page.locator(`${card(id)} .card-channel`).textContent()).toBe('also on web (alice), web (bob)');
    expect(await page.locator(`${card(single)} .card-channel`).textContent()).toBe('also on web');
  });

  it('answers select and text', async () => {
    const pick = await ask({ question: 'Which region?', answer_format: 'select', choices: ['eu-west', 'us-east'] });
    const text = await ask({ question: 'Why?', answer_format: 'text' });
    await openInbox();
    await page.locator(card(pick)).getByRole('button', { name: 'us-east' }).click();
    await page.locator(card(text)).locator('textarea').fill('Because <b>it</b> is late');
    await page.locator(card(text)).getByRole('button', { name: 'Send' }).click();
    await page.locator(card(text)).waitFor({ state: 'detached' });
    await page.locator(card(pick)).waitFor({ state: 'detached' });
    expect((await record(pick))['result']).toMatchObject({ answer: 'us-east' });
    expect((await record(text))['result']).toMatchObject({ answer: 'Because <b>it</b> is late' });
  });

  it("keeps a broken email on the page with the sender's sentence, then answers the valid form", async () => {
    const schema = {
      type: 'object',
      required: ['name', 'email'],
      properties: {
        name: { type: 'string', title: 'Full name' },
        email: {
          type: 'string',
          format: 'email',
          title: 'Email',
          errorMessages: { invalid: 'Enter your full address', required: 'Enter an address first' },
        },
        seats: { type: 'integer', minimum: 1, maximum: 9 },
        newsletter: { type: 'boolean' },
        topics: {
          type: 'array',
          items: { type: 'string', enum: ['ops', 'dev'] },
          visibleWhen: { field: 'newsletter', equals: true },
        },
      },
    };
    const id = await ask({ question: 'Book a seat', answer_format: 'form', schema });
    await openInbox();
    const form = page.locator(`${card(id)} form`);
    const answers: string[] = [];
    page.on('request', (req) => {
      if (req.url().endsWith('/answer')) answers.push(req.url());
    });

    await form.getByLabel('Full name').fill('Ada Lovelace');
    await form.getByRole('button', { name: 'Send' }).click();
    await expect
      .poll(() => form.locator('[data-field="email"] .field-error').textContent())
      .toBe('Enter an address first');

    await form.getByLabel('Email').fill('ada@');
    await form.getByRole('button', { name: 'Send' }).click();
    await expect
      .poll(() => form.locator('[data-field="email"] .field-error').textContent())
      .toBe('Enter your full address');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('email');
    expect(answers).toEqual([]);
    expect((await record(id))['status']).toBe('pending');

    // The hidden field appears only when its condition holds.
    await expect.poll(() => form.locator('[data-field="topics"]').isVisible()).toBe(false);
    await form.getByLabel('newsletter').check();
    await expect.poll(() => form.locator('[data-field="topics"]').isVisible()).toBe(true);
    await form.getByLabel('dev').check();

    await form.getByLabel('Email').fill('ada@example.com');
    await form.getByLabel('seats').fill('2');
    await form.getByRole('button', { name: 'Send' }).click();
    await page.locator(card(id)).waitFor({ state: 'detached' });
    expect(answers).toHaveLength(1);
    const r = await record(id);
    expect(r['result']).toMatchObject({
      answer: { name: 'Ada Lovelace', email: 'ada@example.com', seats: 2, newsletter: true, topics: ['dev'] },
    });
  });

  it("shows the server's refusal beside the field, and the question stays pending", async () => {
    const schema = {
      type: 'object',
      required: ['code'],
      properties: { code: { type: 'string', title: 'Code', pattern: '^[A-Z]{3}$' } },
    };
    const id = await ask({ question: 'Which airport?', answer_format: 'form', schema });
    await openInbox();
    const form = page.locator(`${card(id)} form`);
    await form.getByLabel('Code').fill('paris');
    await form.getByRole('button', { name: 'Send' }).click();
    const slot = form.locator('[data-field="code"] .field-error');
    // The server's bare reason as a sentence, as the callback page words it.
    await expect.poll(() => slot.textContent()).toBe('Must match pattern "^[A-Z]{3}$".');
    expect((await record(id))['status']).toBe('pending');
    await expect.poll(() => page.locator(card(id)).count()).toBe(1);
  });

  it('shows every refused field its own reason, and what no field holds at the top of the form', async () => {
    // None of these the page checks itself (pattern, multipleOf, minProperties): only the server refuses them.
    const schema = {
      type: 'object',
      required: ['code', 'seats'],
      minProperties: 3,
      properties: {
        code: {
          type: 'string',
          title: 'Airport code',
          pattern: '^[A-Z]{3}$',
          errorMessages: { invalid: 'Use the three-letter code, such as CDG.' },
        },
        seats: { type: 'integer', title: 'Seats', multipleOf: 2 },
        note: { type: 'string', title: 'Note' },
      },
    };
    const id = await ask({ question: 'Book the seats', answer_format: 'form', schema });
    await openInbox();
    const form = page.locator(`${card(id)} form`);
    await form.getByLabel('Airport code').fill('paris');
    await form.getByLabel('Seats').fill('3');
    await form.getByRole('button', { name: 'Send' }).click();
    const slot = (field: string) => form.locator(`[data-field="${field}"] .field-error`);
    // The sender's sentence for the code, the server's reason for the seats.
    await expect.poll(() => slot('code').textContent()).toBe('Use the three-letter code, such as CDG.');
    expect(await slot('seats').textContent()).toBe('Must be multiple of 2.');
    expect(await slot('note').textContent()).toBe('');
    expect(await form.locator('.form-error').textContent()).toBe('Must NOT have fewer than 3 properties.');
    expect(await form.getByLabel('Airport code').getAttribute('aria-invalid')).toBe('true');
    expect(await form.getByLabel('Seats').getAttribute('aria-invalid')).toBe('true');
    expect((await record(id))['status']).toBe('pending');

    // Fixing the code clears its sentence as the person types; the seats keep theirs until fixed too.
    await form.getByLabel('Airport code').fill('CDG');
    await expect.poll(() => slot('code').textContent()).toBe('');
    expect(await slot('seats').textContent()).toBe('Must be multiple of 2.');
  });

  it('shows media above the answer controls', async () => {
    const pixel =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const id = await ask({
      question: 'Which logo?',
      answer_format: 'select',
      choices: ['A', 'B'],
      media: [
        { kind: 'image', url: pixel, caption: 'Logo <A>' },
        { kind: 'link', url: 'https://example.com/brief', caption: 'The brief' },
      ],
    });
    await openInbox();
    const c = page.locator(card(id));
    await expect.poll(() => c.locator('figure img').getAttribute('src')).toBe(pixel);
    expect(await c.locator('figcaption').textContent()).toBe('Logo <A>');
    // A third-party image host learns nothing of the inbox: no Referer, and it is fetched only when shown.
    expect(await c.locator('figure img').getAttribute('referrerpolicy')).toBe('no-referrer');
    expect(await c.locator('figure img').getAttribute('loading')).toBe('lazy');
    const link = c.getByRole('link', { name: /The brief/ });
    expect(await link.getAttribute('href')).toBe('https://example.com/brief');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    // Media sits above the controls in the card.
    const order = await c.evaluate((el) => {
      const media = el.querySelector('.media');
      const controls = el.querySelector('.controls');
      return (
        media !== null &&
        controls !== null &&
        (media.compareDocumentPosition(controls) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0
      );
    });
    expect(order).toBe(true);
  });

  it('adds a question asked after the page loaded, and drops one answered elsewhere, live', async () => {
    const first = await ask({ question: 'First?', answer_format: 'confirm' });
    await openInbox();
    await page.locator(card(first)).waitFor();
    const later = await ask({ question: 'Asked <i>later</i>?', answer_format: 'confirm' });
    await page.locator(card(later)).waitFor();
    expect(await page.locator(`${card(later)} .question`).textContent()).toBe('Asked <i>later</i>?');
    // Oldest first.
    expect(
      await page.locator('li.card').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset['id'])),
    ).toEqual([first, later]);

    expect((await http.post(`/api/interactions/${first}/answer`, { answer: false })).status).toBe(200);
    await page.locator(card(first)).waitFor({ state: 'detached' });
    await http.delete(`/api/interactions/${later}`);
    await page.locator(card(later)).waitFor({ state: 'detached' });
    await page.locator('#empty').waitFor({ state: 'visible' });
  });

  it('drops the waiting count as soon as a question is answered, while its card still shows the note', async () => {
    const first = await ask({ question: 'First?', answer_format: 'confirm' });
    await ask({ question: 'Second?', answer_format: 'confirm' });
    await openInbox();
    await expect.poll(() => page.locator('#count').textContent()).toBe('2 waiting');
    await page.locator(card(first)).getByRole('button', { name: 'Yes' }).click();
    await expect.poll(() => page.locator(`${card(first)} .card-note`).textContent()).toBe('You answered Yes.');
    // The answered card is still on the page (its note shows a moment), and no longer counted.
    expect(await page.locator(card(first)).count()).toBe(1);
    expect(await page.locator('#count').textContent()).toBe('1 waiting');
  });

  it('heads a form card once: the question, not the schema title under it', async () => {
    const schema = {
      type: 'object',
      title: 'Seat booking',
      properties: { seats: { type: 'integer', title: 'Seats' } },
    };
    const id = await ask({ question: 'Book a seat', answer_format: 'form', schema });
    await openInbox();
    await page.locator(`${card(id)} form`).waitFor();
    expect(await page.locator(`${card(id)} .question`).textContent()).toBe('Book a seat');
    expect(await page.locator(`${card(id)} h1, ${card(id)} h2, ${card(id)} h3`).count()).toBe(0);
  });

  it('shows an external question with a payload schema as its form, and answers with it', async () => {
    const schema = {
      type: 'object',
      required: ['reference'],
      properties: {
        reference: { type: 'string', title: 'Payment reference' },
        amount: { type: 'integer', title: 'Amount' },
      },
    };
    const id = await ask({ question: 'Record the payment', answer_format: 'external', schema });
    await openInbox();
    const form = page.locator(`${card(id)} form`);
    expect(await page.locator(`${card(id)} textarea.ag-json`).count()).toBe(0);
    await form.getByLabel('Payment reference').fill('pay-42');
    await form.getByLabel('Amount').fill('1200');
    await form.getByRole('button', { name: 'Send' }).click();
    await expect.poll(async () => (await record(id))['status']).toBe('answered');
    expect((await record(id))['result']).toMatchObject({ answer: { reference: 'pay-42', amount: 1200 } });
  });

  it('asks for a token when there is none, and opens the inbox with it', async () => {
    const id = await ask({ question: 'Signed in?', answer_format: 'confirm' });
    await page.goto(`${gw.url}/inbox`);
    await page.locator('#signin').waitFor({ state: 'visible' });
    await page.getByLabel('Token').fill(gw.token);
    await page.getByRole('button', { name: 'Open the inbox' }).click();
    await page.locator(card(id)).waitFor();
  });
});
