import { describe, expect, it } from 'vitest';
import { browserWorld } from '../helpers/browser.js';

/** `GET /` is a page a person lands on from the start banner: what runs, which store, and where to go next. */

const world = browserWorld();

describe('the landing page', () => {
  it('says what runs and on which store, and links the inbox, the health doors and the docs, running no script', async () => {
    const res = await fetch(`${world.gw.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await res.text();
    expect(html).toContain('in-memory store');
    expect(html).toContain('Channels: web');
    for (const href of ['/inbox', '/healthz', '/readyz', '/metrics', '/docs/doors.md'])
      expect(html).toContain(`href="${href}"`);
    expect(html).not.toMatch(/<script/);
  });

  it('serves the shipped docs as pages (markdown to a client that asks for it), and nothing else under /docs', async () => {
    const page = await fetch(`${world.gw.url}/docs/doors.md`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await page.text();
    expect(html).toContain('<title>The doors — askgate</title>');
    expect(html).toMatch(/<h1 id="the-doors">The doors<\/h1>/);
    expect(html).not.toMatch(/<script/);
    const scaling = await (await fetch(`${world.gw.url}/docs/scaling.md`)).text();
    // README links docs/scaling.md#shards: the anchor exists on the page.
    expect(scaling).toMatch(/<h2 id="shards">/);
    for (const init of [{ headers: { accept: 'text/markdown' } }, {}]) {
      const url = `${world.gw.url}/docs/doors.md${'headers' in init ? '' : '?raw'}`;
      const raw = await fetch(url, init);
      expect(raw.headers.get('content-type'), url).toMatch(/^text\/markdown/);
      expect(await raw.text()).toMatch(/^# The doors/);
    }
    for (const path of ['/docs/../package.json', '/docs/nope.md', '/docs/%2e%2e%2fpackage.json']) {
      const res = await fetch(`${world.gw.url}${path}`);
      expect(res.status, path).toBe(404);
    }
  });

  it('shows a doc readable at phone and desktop width, light and dark: nothing wider than the screen', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [390, 1280]) {
        const page = await world.browser.newPage({ colorScheme, viewport: { width, height: 900 } });
        try {
          await page.goto(`${world.gw.url}/docs/doors.md`);
          const layout = await page.evaluate(() => {
            const table = document.querySelector('.doc-table');
            const style = getComputedStyle(document.querySelector('.doc') as Element);
            return {
              pageWider: document.documentElement.scrollWidth > window.innerWidth,
              tableScrolls: table === null ? null : getComputedStyle(table).overflowX,
              background: style.backgroundColor,
              text: getComputedStyle(document.body).color,
            };
          });
          expect(layout.pageWider, `${colorScheme} ${width}`).toBe(false);
          expect(layout.tableScrolls).toBe('auto');
          // The card follows the scheme: white on light, near-black on dark (forms.css's --ag-bg).
          expect(layout.background).toBe(colorScheme === 'light' ? 'rgb(255, 255, 255)' : 'rgb(21, 24, 28)');
          await page.screenshot({ path: `.tmp/screens/doc-${colorScheme}-${width}.png` });
        } finally {
          await page.close();
        }
      }
    }
  });

  it('answers an unknown path with a 404 that points at / and the doors reference', async () => {
    const res = await fetch(`${world.gw.url}/nowhere`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toMatch(/GET \/ lists what this gateway serves/);
  });

  it('takes a person to the inbox in Chromium', async () => {
    const page = await world.browser.newPage();
    try {
      const errors: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(msg.text());
      });
      await page.goto(`${world.gw.url}/`);
      await expect(page.locator('h1').textContent()).resolves.toMatch(/^askgate \d+\.\d+\.\d+$/);
      await page.getByRole('link', { name: 'Open the inbox' }).click();
      await page.waitForURL(`${world.gw.url}/inbox`);
      await page.locator('#signin').waitFor();
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
