import { describe, expect, it } from 'vitest';
import { browserWorld } from '../helpers/browser.js';
import { api } from '../helpers/http.js';

/** The keyboard focus ring stands out: at least 3:1 against what surrounds it, in the light and the dark scheme. */

const world = browserWorld();

/** WCAG relative luminance of `rgb(r, g, b)` / `rgba(...)`. */
function luminance(css: string): number {
  const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrast = (a: string, b: string): number => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};

describe('the focus ring', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`on the inbox's answer buttons, in the ${scheme} scheme, is solid and at least 3:1 against the card and the page`, async () => {
      const res = await api(world.gw.url, world.gw.token).post('/api/interactions', {
        question: `Focus ${scheme}?`,
        answer_format: 'confirm',
        timeout: 600,
      });
      const page = await world.browser.newPage({ colorScheme: scheme });
      try {
        await page.goto(`${world.gw.url}/inbox#token=${encodeURIComponent(world.gw.token)}`);
        const yes = page.locator(`li.card[data-id="${res.json['id']}"]`).getByRole('button', { name: 'Yes' });
        await yes.waitFor();
        await yes.focus();
        await page.keyboard.press('Shift+Tab');
        await page.keyboard.press('Tab');
        const seen = await yes.evaluate((el) => {
          const style = getComputedStyle(el);
          const card = getComputedStyle(el.closest('li') as Element).backgroundColor;
          return {
            visible: el.matches(':focus-visible'),
            outline: style.outlineColor,
            width: style.outlineWidth,
            card,
            page: getComputedStyle(document.body).backgroundColor,
          };
        });
        expect(seen.visible).toBe(true);
        expect(seen.width).toBe('3px');
        expect(seen.outline).not.toMatch(/rgba\(.*, 0?\.\d+\)/); // solid, not see-through
        expect(contrast(seen.outline, seen.card)).toBeGreaterThanOrEqual(3);
        expect(contrast(seen.outline, seen.page)).toBeGreaterThanOrEqual(3);
      } finally {
        await page.close();
      }
    });
  }
});
