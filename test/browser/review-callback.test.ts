import { describe, expect, it } from 'vitest';
import { ACTION, actionRead, LOOKS, READ, reviewWorld, SCREENS, valueEdges, widerThanScreen } from './review-world.js';

/**
 * A review on its callback page, in a real Chromium: the action readably; approve one press without script; reject
 * one press, or with a note from its own panel; edit from the form filled in with the proposed arguments, the
 * panel's summary its only heading; a server refusal beside its field. Light and dark at 390 and 1280 px.
 */

const rw = reviewWorld();

describe('a review on its callback page', () => {
  it('approves with one press, without script', async () => {
    const asked = await rw.ask({ link: true });
    const { page } = await rw.openPage({ script: false });
    try {
      await page.goto(rw.local(asked['callback_url'] as string));
      expect(await actionRead(page, 'main')).toEqual(READ);
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('status').filter({ hasText: 'your answer was sent' }).waitFor();
      expect(await rw.result(asked['id'] as string)).toMatchObject({
        answer: { decision: 'approve' },
        surface: 'callback',
      });
    } finally {
      await page.close();
    }
  });

  it('rejects with a note, without script; the one-press Reject stays beside Approve', async () => {
    const asked = await rw.ask({ link: true });
    const { page } = await rw.openPage({ script: false });
    try {
      await page.goto(rw.local(asked['callback_url'] as string));
      expect(await page.locator('.cb-review-decide button').allTextContents()).toEqual(['Approve', 'Reject']);
      await page.getByText('Reject with a note…').click();
      const panel = page.locator('details.cb-review-reject');
      await panel.getByLabel('Why you reject it').fill('Not on a Friday.');
      await panel.getByRole('button', { name: 'Reject' }).click();
      await page.getByRole('status').filter({ hasText: 'your answer was sent' }).waitFor();
      expect((await rw.result(asked['id'] as string))?.['answer']).toEqual({
        decision: 'reject',
        message: 'Not on a Friday.',
      });
    } finally {
      await page.close();
    }
  });

  it('heads the edit form with its panel only: no second "Arguments" heading above the fields', async () => {
    const asked = await rw.ask({ link: true });
    const { page, errors } = await rw.openPage();
    try {
      await page.goto(rw.local(asked['callback_url'] as string));
      await page.getByText('Edit the arguments').click();
      const form = page.locator('details.cb-review-panel[open] form');
      expect(await form.locator('legend, h2, fieldset').count()).toBe(0);
      expect(await form.textContent()).not.toContain('Arguments');
      // The first thing in the form is the first field's label.
      expect(await form.locator('label').first().textContent()).toBe('To *');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('edits from the filled-in form; a refused value comes back beside its field with the form open', async () => {
    const asked = await rw.ask({ link: true });
    const { page } = await rw.openPage({ script: false });
    try {
      await page.goto(rw.local(asked['callback_url'] as string));
      await page.getByText('Edit the arguments').click();
      const to = page.locator('input[name="args.to"]');
      expect(await to.inputValue()).toBe('ada@example.com');
      expect(await page.locator('input[name="args.subject"]').inputValue()).toBe('Quarterly report');
      expect(await page.locator('[name="args.tracking_id"]').count()).toBe(0);
      // Without script and without the browser's own checks (novalidate: a browser that checks nothing, or a
      // hand-made post), the value reaches the server, which refuses it, naming the field.
      await page
        .locator('details:has(input[name="args.to"]) form')
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
      expect((await rw.result(asked['id'] as string)) ?? null).toBeNull();
      await page.locator('input[name="args.to"]').fill('grace@example.com');
      await page.getByRole('button', { name: 'Send edited call' }).click();
      await page.getByRole('status').filter({ hasText: 'your answer was sent' }).waitFor();
      expect((await rw.result(asked['id'] as string))?.['answer']).toEqual({
        decision: 'edit',
        args: { to: 'grace@example.com', subject: 'Quarterly report', body: ACTION.args.body },
      });
    } finally {
      await page.close();
    }
  });

  it('looks finished in light and dark at 390 and 1280 px: edit open, then the note open', async () => {
    const asked = await rw.ask({ link: true });
    for (const [colorScheme, width] of LOOKS) {
      const { page, errors } = await rw.openPage({ colorScheme, width });
      try {
        await page.goto(rw.local(asked['callback_url'] as string));
        expect(await valueEdges(page, 'main'), 'the values line up').toHaveLength(1);
        await page.getByText('Edit the arguments').click();
        expect(await widerThanScreen(page), `${colorScheme} ${width}: nothing wider than the screen`).toBe(false);
        await page.screenshot({ path: `${SCREENS}/review-callback-edit-${colorScheme}-${width}.png`, fullPage: true });
        await page.getByText('Edit the arguments').click();
        await page.getByText('Reject with a note…').click();
        await page.screenshot({ path: `${SCREENS}/review-callback-note-${colorScheme}-${width}.png`, fullPage: true });
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    }
  });
});
