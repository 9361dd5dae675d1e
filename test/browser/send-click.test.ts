import type { Locator, Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { askFor, startCallbackGateway } from '../callback/helpers.js';
import { browserWorld } from '../helpers/browser.js';
import { api } from '../helpers/http.js';

/**
 * A person's first click on Send lands on Send. Leaving a field checks it, and the sentence it shows must not move
 * the button between the mouse going down (which moves the focus, so the check runs) and coming up: the click is a
 * real mouse press at the centre the button had before it, with a human pause between down and up. Checked in the
 * inbox and on the callback page, and again after a server refusal has been fixed.
 */

let page: Page;

const schema = {
  type: 'object',
  required: ['name', 'email'],
  properties: {
    email: { type: 'string', format: 'email', title: 'Email' },
    name: { type: 'string', title: 'Full name', errorMessages: { required: 'Give your name' } },
    code: { type: 'string', title: 'Code', pattern: '^[A-Z]{3}$', errorMessages: { invalid: 'Three capitals' } },
  },
};

const world = browserWorld(startCallbackGateway);
beforeEach(async () => {
  page = await world.browser.newPage();
  page.setDefaultTimeout(5_000);
});
afterEach(async () => page?.close());

/** A person's click: the pointer goes to where the button is now, presses, pauses, releases. */
async function humanClick(button: Locator): Promise<void> {
  const box = await button.boundingBox();
  if (box === null) throw new Error('the button is not on the page');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.waitForTimeout(120);
  await page.mouse.up();
}

async function inboxForm(): Promise<{ id: string; form: Locator }> {
  const res = await api(world.gw.url, world.gw.token).post('/api/interactions', {
    question: 'Book',
    answer_format: 'form',
    schema,
    timeout: 600,
  });
  const id = res.json['id'] as string;
  await page.goto(`${world.gw.url}/inbox#token=${encodeURIComponent(world.gw.token)}`);
  const form = page.locator(`li.card[data-id="${id}"] form`);
  await form.waitFor();
  return { id, form };
}

describe('the first click on Send', () => {
  it('in the inbox, right after typing a broken email, runs the submit check (the blank name is told)', async () => {
    const { form } = await inboxForm();
    await form.getByLabel('Email').pressSequentially('ada@');
    await humanClick(form.getByRole('button', { name: 'Send' }));
    // Only the submit check tells a blank field it is required: leaving a field never does.
    await expect.poll(() => form.locator('[data-field="name"] .field-error').textContent()).toBe('Give your name');
    await expect.poll(() => form.locator('[data-field="email"] .field-error').textContent()).not.toBe('');
  });

  it('on the callback page, right after typing a broken email, runs the submit check too', async () => {
    const { path } = await askFor(world.gw, { question: 'Book', answer_format: 'form', schema, link: true });
    await page.goto(`${world.gw.url}${path}`);
    const form = page.locator('form');
    await form.getByLabel('Email').pressSequentially('ada@');
    await humanClick(form.getByRole('button', { name: /send/i }));
    await expect.poll(() => form.locator('[data-field="name"] .field-error').textContent()).toBe('Give your name');
  });

  it('in the inbox, after a server refusal is fixed, sends the answer with one click', async () => {
    const { id, form } = await inboxForm();
    await form.getByLabel('Full name').fill('Ada');
    await form.getByLabel('Email').fill('ada@example.com');
    // The page does not check `pattern`; the server refuses it and the sender's sentence lands beside the field.
    await form.getByLabel('Code').fill('abc');
    await form.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => form.locator('[data-field="code"] .field-error').textContent()).toBe('Three capitals');
    await form.getByLabel('Code').fill('');
    await form.getByLabel('Code').pressSequentially('ABC');
    await humanClick(form.getByRole('button', { name: 'Send' }));
    await expect
      .poll(async () => (await api(world.gw.url, world.gw.token).get(`/api/interactions/${id}`)).json['status'])
      .toBe('answered');
  });
});
