import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { freshRecipient, startWebWorld, type WebWorld } from './web-harness.js';

/** The web chat: its doors, and the page in Chromium. */

let w: WebWorld;
let browser: Browser;
beforeAll(async () => {
  w = await startWebWorld();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await w.close();
});

const ask = async (body: Record<string, unknown>): Promise<string> => {
  const res = await w.http.post('/api/interactions', { channel: 'web', ...body });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json['id'] as string;
};

describe('web chat doors', () => {
  it('mints a link for a recipient behind the write scope', async () => {
    const res = await w.http.post('/api/channels/web/links', { recipient: 'ada' });
    expect(res.status).toBe(201);
    expect(res.json['url']).toMatch(/^http:\/\/127\.0\.0\.1:1\/chat#token=/);
    const me = await w.chatAs('ada', res.json['token'] as string).get('/chat/api/me');
    expect(me.json).toEqual({ recipient: 'ada', takes_messages: false });
    const anonymous = await fetch(`${w.gw.url}/api/channels/web/links`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
  });

  it('tells a person who writes with no route configured that nothing takes messages, and keeps nothing', async () => {
    const ada = freshRecipient();
    const said = await w.chatAs(ada).post('/chat/api/messages', { text: 'hello?' });
    expect(said.status).toBe(422);
    expect(said.json).toEqual({
      error: 'no_conversation',
      field: 'text',
      message: 'This chat takes no messages of its own: answer each question above with its own controls.',
    });
    expect((await w.chatAs(ada).get('/chat/api/messages')).json).toEqual({ items: [] });
  });

  it('refuses a form answer naming every violation, as the answer door does', async () => {
    const ada = freshRecipient();
    const id = await ask({
      question: 'Book?',
      answer_format: 'form',
      schema: {
        type: 'object',
        properties: { seats: { type: 'integer', minimum: 1 }, code: { type: 'string', maxLength: 3 } },
        required: ['seats', 'code'],
      },
      recipient: ada,
    });
    const refused = await w
      .chatAs(ada)
      .post(`/chat/api/questions/${id}/answer`, { answer: { seats: 0, code: 'CDGX' } });
    expect(refused.status).toBe(400);
    expect(refused.json['error']).toBe('invalid_answer');
    expect(refused.json['errors']).toEqual([
      { field: 'seats', reason: 'must be >= 1' },
      { field: 'code', reason: 'must NOT have more than 3 characters' },
    ]);
  });

  it('shows a recipient only their own questions, and answers through the core', async () => {
    const ada = freshRecipient();
    const bob = freshRecipient();
    const id = await ask({ question: 'Colour?', answer_format: 'select', choices: ['red', 'green'], recipient: ada });
    expect(
      ((await w.chatAs(ada).get('/chat/api/questions')).json['items'] as Array<{ id: string }>).map((i) => i.id),
    ).toEqual([id]);
    expect((await w.chatAs(bob).get('/chat/api/questions')).json['items']).toEqual([]);
    expect((await w.chatAs(bob).post(`/chat/api/questions/${id}/answer`, { answer: 'red' })).status).toBe(404);
    const refused = await w.chatAs(ada).post(`/chat/api/questions/${id}/answer`, { answer: 'blue' });
    expect(refused.status).toBe(400);
    expect(refused.json['error']).toBe('invalid_answer');
    expect((await w.chatAs(ada).post(`/chat/api/questions/${id}/answer`, { answer: 'red' })).json).toEqual({
      status: 'answered',
    });
    expect((await w.chatAs(ada).post(`/chat/api/questions/${id}/answer`, { answer: 'green' })).json).toEqual({
      status: 'already_answered',
    });
    const record = (await w.http.get(`/api/interactions/${id}`)).json;
    expect(record['result']).toMatchObject({
      answer: 'red',
      surface: 'web',
      answered_by: `web:${ada}`,
      reply_to: null,
    });
  });
});

describe('web chat in Chromium', () => {
  it('answers a form inline, showing the shape error first', async () => {
    const recipient = freshRecipient();
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Full name', minLength: 1 },
        email: {
          type: 'string',
          format: 'email',
          title: 'Email',
          errorMessages: { invalid: 'Enter your full address', required: 'Enter an address first' },
        },
      },
      required: ['name', 'email'],
    };
    const id = await ask({ question: 'Who are you?', answer_format: 'form', schema, recipient });
    const page = await browser.newPage();
    try {
      await page.goto(`${w.gw.url}/chat#token=${w.channel.link(recipient).token}`);
      const card = page.locator(`li.card[data-id="${id}"]`);
      await card.waitFor();
      expect(page.url()).not.toContain('token=');
      // The chat is the web channel itself: it does not say the question is "also on web".
      expect(await card.locator('.card-channel').count()).toBe(0);
      const form = card.locator('form');
      await form.getByLabel('Full name').fill('Ada Lovelace');
      await form.getByLabel('Email').fill('ada@');
      await form.getByRole('button', { name: 'Send' }).click();
      await expect
        .poll(() => form.locator('[data-field="email"] .field-error').textContent())
        .toBe('Enter your full address');
      expect((await w.http.get(`/api/interactions/${id}`)).json['status']).toBe('pending');
      await form.getByLabel('Email').fill('ada@example.com');
      await form.getByRole('button', { name: 'Send' }).click();
      await card.locator('.chat-outcome').waitFor();
      expect(await card.locator('.chat-outcome').textContent()).toMatch(
        /^✅ Answered by you in the web chat: form submitted$/,
      );
      expect((await w.http.get(`/api/interactions/${id}`)).json['result']).toMatchObject({
        answer: { name: 'Ada Lovelace', email: 'ada@example.com' },
        surface: 'web',
      });
    } finally {
      await page.close();
    }
  });

  it('shows new questions live and the outcome of one answered elsewhere', async () => {
    const recipient = freshRecipient();
    const page = await browser.newPage();
    try {
      await page.goto(`${w.gw.url}/chat#token=${w.channel.link(recipient).token}`);
      await page.locator('#live.up').waitFor();
      const confirm = await ask({ question: 'Ship it?', answer_format: 'confirm', recipient });
      const card = page.locator(`li.card[data-id="${confirm}"]`);
      await card.getByRole('button', { name: 'Yes' }).waitFor();
      await w.http.post(`/api/interactions/${confirm}/answer`, { answer: false });
      await card.locator('.chat-outcome').waitFor();
      expect(await card.locator('.chat-outcome').textContent()).toMatch(/❌ Rejected by \S+ through the API/);
      expect(await card.getByRole('button', { name: 'Yes' }).count()).toBe(0);
    } finally {
      await page.close();
    }
  });
});
