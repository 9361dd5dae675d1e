import { describe, expect, it } from 'vitest';
import {
  ACTION,
  actionRead,
  card,
  LOOKS,
  READ,
  reviewWorld,
  SCREENS,
  valueEdges,
  widerThanScreen,
} from './review-world.js';

/**
 * A review in the inbox, in a real Chromium against a real gateway: the action shown readably; approve and reject
 * one press; "Reject with a note…" sending words with the rejection; edit opening the form filled in with the proposed
 * arguments (only the schema's fields) and sending the edited call; respond sending words; the history saying what
 * was decided. Light and dark at 390 and 1280 px, with screenshots in .tmp/screens/.
 */

const rw = reviewWorld();

async function openInbox(page: import('playwright-core').Page): Promise<void> {
  await page.goto(`${rw.w().gw.url}/inbox#token=${encodeURIComponent(rw.w().gw.token)}`);
  await page.locator('#live.up').waitFor();
}

describe('a review in the inbox', () => {
  it('shows the action readably and approves with one press', async () => {
    const { page, errors } = await rw.openPage();
    try {
      const id = (await rw.ask())['id'] as string;
      await openInbox(page);
      expect(await actionRead(page, card(id))).toEqual(READ);
      const buttons = await page.locator(`${card(id)} .button-row button`).allTextContents();
      expect(buttons).toEqual(['Approve', 'Edit', 'Reject', 'Respond']);
      await page.locator(card(id)).getByRole('button', { name: 'Approve' }).click();
      await page
        .locator(`${card(id)} .card-note`)
        .filter({ hasText: 'You answered Approve.' })
        .waitFor();
      expect(await rw.result(id)).toMatchObject({ answer: { decision: 'approve' }, surface: 'inbox' });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("builds its decision buttons as a confirm's: the same row, the same kind of button", async () => {
    const { page, errors } = await rw.openPage();
    try {
      const id = (await rw.ask())['id'] as string;
      const res = await rw.w().http.post('/api/interactions', {
        question: 'Deploy?',
        answer_format: 'confirm',
        timeout: 600,
      });
      const confirm = res.json['id'] as string;
      await openInbox(page);
      const shape = (scope: string) =>
        page
          .locator(`${scope} .controls .button-row > button`)
          .evaluateAll((bs) => bs.map((b) => `${b.className} type=${(b as HTMLButtonElement).type}`));
      expect(await shape(card(confirm))).toEqual(['btn btn-primary type=button', 'btn btn-secondary type=button']);
      expect(await shape(card(id))).toEqual([
        'btn btn-primary type=button',
        'btn btn-secondary type=button',
        'btn btn-danger type=button',
        'btn btn-secondary type=button',
      ]);
      await rw.w().http.delete(`/api/interactions/${confirm}`);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('rejects with one press, no words asked for', async () => {
    const { page, errors } = await rw.openPage();
    try {
      const id = (await rw.ask())['id'] as string;
      await openInbox(page);
      await page.locator(card(id)).getByRole('button', { name: 'Reject', exact: true }).click();
      await page
        .locator(`${card(id)} .card-note`)
        .filter({ hasText: 'You answered Reject.' })
        .waitFor();
      expect((await rw.result(id))?.['answer']).toEqual({ decision: 'reject' });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('rejects with a note: the words go back with the rejection, and an empty note is asked for', async () => {
    const { page, errors } = await rw.openPage();
    try {
      const id = (await rw.ask())['id'] as string;
      await openInbox(page);
      await page.locator(card(id)).getByRole('button', { name: 'Reject with a note…' }).click();
      const panel = page.locator(`${card(id)} .review-panel`);
      await panel.getByRole('button', { name: 'Reject' }).click();
      await expect
        .poll(() => page.locator(`${card(id)} .control-error`).textContent())
        .toBe('Write a note first, or press Reject above to reject without one.');
      expect(await rw.result(id)).toBeNull();
      await panel.getByLabel('Why you reject it').fill('Not on a Friday.');
      await panel.getByRole('button', { name: 'Reject' }).click();
      await page
        .locator(`${card(id)} .card-note`)
        .filter({ hasText: 'You answered Reject: “Not on a Friday.”' })
        .waitFor();
      expect((await rw.result(id))?.['answer']).toEqual({ decision: 'reject', message: 'Not on a Friday.' });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('opens edit with the schema fields filled in from the proposed args, and sends the edited call', async () => {
    const { page, errors } = await rw.openPage();
    try {
      const id = (await rw.ask())['id'] as string;
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
      expect((await rw.result(id))?.['answer']).toEqual({
        decision: 'edit',
        args: { to: 'grace@example.com', subject: 'Quarterly report', body: ACTION.args.body },
      });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("shows the server's refusal of an edit beside its field (args. dropped), the question still pending", async () => {
    const { page, errors } = await rw.openPage();
    try {
      // A pattern the page does not check itself: only the server refuses it, naming args.subject.
      const schema = {
        type: 'object',
        required: ['to', 'subject'],
        properties: {
          to: { type: 'string', format: 'email', title: 'To' },
          subject: { type: 'string', minLength: 1, maxLength: 80, title: 'Subject', pattern: '^[A-Z]' },
          body: { type: 'string', maxLength: 2000, title: 'Body' },
        },
      };
      const id = (await rw.ask({ schema }))['id'] as string;
      await openInbox(page);
      await page.locator(card(id)).getByRole('button', { name: 'Edit' }).click();
      const form = page.locator(`${card(id)} .review-panel form`);
      await form.getByLabel('Subject').fill('lower case');
      await form.getByRole('button', { name: 'Send edited call' }).click();
      const slot = form.locator('[data-field="subject"] .field-error');
      await expect.poll(() => slot.textContent()).toBe('Must match pattern "^[A-Z]".');
      expect(await rw.result(id)).toBeNull();
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('sends words back with respond', async () => {
    const { page, errors } = await rw.openPage();
    try {
      const id = (await rw.ask())['id'] as string;
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
      expect((await rw.result(id))?.['answer']).toEqual({
        decision: 'respond',
        message: 'Send it to the finance list instead.',
      });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('says in its history what was decided when the review is answered elsewhere (light and dark, 390 and 1280)', async () => {
    for (const [colorScheme, width] of LOOKS) {
      await rw.withdrawAll();
      const { page, errors } = await rw.openPage({ colorScheme, width });
      try {
        const id = (await rw.ask())['id'] as string;
        await openInbox(page);
        await page.locator(`${card(id)} .card-history summary`).click();
        await rw
          .w()
          .http.post(`/api/interactions/${id}/answer`, { answer: { decision: 'reject', message: 'Not today.' } });
        await expect
          .poll(() => page.locator(`${card(id)} .card-note`).textContent())
          .toBe('Rejected by dev on api: “Not today.”');
        // The answered card's history is drawn anew (closed); opened, it ends with the decision.
        await page.locator(`${card(id)} .card-history summary`).click();
        await page
          .locator(`${card(id)} .card-history li`)
          .filter({ hasText: 'Rejected by dev on api: “Not today.”' })
          .first()
          .waitFor();
        await page.screenshot({ path: `${SCREENS}/review-inbox-history-${colorScheme}-${width}.png`, fullPage: true });
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    }
  });

  it('looks finished in light and dark at 390 and 1280 px: edit open, the note open, the history open', async () => {
    for (const [colorScheme, width] of LOOKS) {
      await rw.withdrawAll();
      const { page, errors } = await rw.openPage({ colorScheme, width });
      try {
        const id = (await rw.ask())['id'] as string;
        await openInbox(page);
        expect(await valueEdges(page, card(id)), 'the values line up').toHaveLength(1);
        await page.locator(`${card(id)} .card-history summary`).click();
        await page.locator(card(id)).getByRole('button', { name: 'Edit' }).click();
        await page.locator(`${card(id)} .review-panel form`).waitFor();
        expect(await widerThanScreen(page), `${colorScheme} ${width}: nothing wider than the screen`).toBe(false);
        await page.screenshot({ path: `${SCREENS}/review-inbox-edit-${colorScheme}-${width}.png`, fullPage: true });
        await page.locator(card(id)).getByRole('button', { name: 'Reject with a note…' }).click();
        await page.locator(`${card(id)} .review-panel textarea`).waitFor();
        await page.screenshot({ path: `${SCREENS}/review-inbox-note-${colorScheme}-${width}.png`, fullPage: true });
        await rw.w().http.delete(`/api/interactions/${id}`);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    }
  });
});
