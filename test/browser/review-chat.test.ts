import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { freshRecipient } from '../channels/web-harness.js';
import { actionRead, card, LOOKS, READ, reviewWorld, SCREENS, valueEdges, widerThanScreen } from './review-world.js';

/**
 * A review in the web chat widget, in a real Chromium: the action readably, approve one press, reject with a note,
 * the decided card saying who decided what. Light and dark at 390 and 1280 px, pending (edit open) and decided.
 */

const rw = reviewWorld();

async function openChat(page: Page, recipient: string): Promise<void> {
  await page.goto(`${rw.w().gw.url}/chat#token=${rw.w().channel.link(recipient).token}`);
}

describe('a review in the web chat', () => {
  it('shows the action, approves with one press and says who decided', async () => {
    const recipient = freshRecipient();
    const asked = await rw.ask({ channel: 'web', recipient });
    const { page, errors } = await rw.openPage({ width: 390 });
    try {
      await openChat(page, recipient);
      const id = asked['id'] as string;
      await page.locator(card(id)).waitFor();
      expect(await actionRead(page, card(id))).toEqual(READ);
      await page.locator(card(id)).getByRole('button', { name: 'Approve' }).click();
      await page.getByText('Approved by you in the web chat').first().waitFor();
      expect(await rw.result(id)).toMatchObject({ answer: { decision: 'approve' }, surface: 'web' });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('rejects with a note, which the decided card shows', async () => {
    const recipient = freshRecipient();
    const id = (await rw.ask({ channel: 'web', recipient }))['id'] as string;
    const { page, errors } = await rw.openPage({ width: 390 });
    try {
      await openChat(page, recipient);
      await page.locator(card(id)).getByRole('button', { name: 'Reject with a note…' }).click();
      const panel = page.locator(`${card(id)} .review-panel`);
      await panel.getByLabel('Why you reject it').fill('Not on a Friday.');
      await panel.getByRole('button', { name: 'Reject' }).click();
      await page.getByText('Rejected by you in the web chat: “Not on a Friday.”').first().waitFor();
      expect((await rw.result(id))?.['answer']).toEqual({ decision: 'reject', message: 'Not on a Friday.' });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('looks finished in light and dark at 390 and 1280 px, pending (edit open) and decided', async () => {
    for (const [colorScheme, width] of LOOKS) {
      const recipient = freshRecipient();
      const id = (await rw.ask({ channel: 'web', recipient }))['id'] as string;
      const { page, errors } = await rw.openPage({ colorScheme, width });
      try {
        await openChat(page, recipient);
        await page.locator(card(id)).waitFor();
        expect(await valueEdges(page, card(id)), 'the values line up').toHaveLength(1);
        await page.locator(card(id)).getByRole('button', { name: 'Edit' }).click();
        await page.locator(`${card(id)} .review-panel form`).waitFor();
        expect(await widerThanScreen(page), `${colorScheme} ${width}: nothing wider than the screen`).toBe(false);
        await page.screenshot({ path: `${SCREENS}/review-chat-edit-${colorScheme}-${width}.png`, fullPage: true });
        await page.locator(card(id)).getByRole('button', { name: 'Reject with a note…' }).click();
        await page
          .locator(`${card(id)} .review-panel`)
          .getByLabel('Why you reject it')
          .fill('Not on a Friday.');
        await page
          .locator(`${card(id)} .review-panel`)
          .getByRole('button', { name: 'Reject' })
          .click();
        await page.getByText('Rejected by you in the web chat').first().waitFor();
        await page.screenshot({ path: `${SCREENS}/review-chat-decided-${colorScheme}-${width}.png`, fullPage: true });
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    }
  });
});
