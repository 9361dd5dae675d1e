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

  it('serves the shipped docs as text, and nothing else under /docs', async () => {
    const doors = await fetch(`${world.gw.url}/docs/doors.md`);
    expect(doors.status).toBe(200);
    expect(doors.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(await doors.text()).toMatch(/^# The doors/);
    for (const path of ['/docs/../package.json', '/docs/nope.md', '/docs/%2e%2e%2fpackage.json']) {
      const res = await fetch(`${world.gw.url}${path}`);
      expect(res.status, path).toBe(404);
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
