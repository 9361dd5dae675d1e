import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import type { TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { BRIDGE_SECRET, askFor, postJson, recordOf, startCallbackGateway } from './helpers.js';

/**
 * A verifier-bound question is answered through its signed callback only: the answer door (the lean path and the
 * express path), the CLI and the inbox refuse it with 403 `callback_only` and change nothing, before and after it is
 * answered — on the in-memory store and on Redis. The callback door with the bridge secret still answers it.
 */

const CLI = join(process.cwd(), 'dist/src/cli/main.js');
const reference = 'order-1234';
const pin = {
  type: 'object',
  properties: { decision: { const: 'confirmed' }, reference: { const: reference } },
  required: ['decision', 'reference'],
};
const confirmed = { decision: 'confirmed', reference };

let redis: RedisServerHandle;
let browser: Browser;
beforeAll(async () => {
  redis = await startRedisServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await redis?.stop();
});

function runCli(gw: TestGateway, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, ASKGATE_URL: gw.url, ASKGATE_TOKEN: gw.token, NO_COLOR: '1' };
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

for (const storeKind of ['memory', 'redis'] as const) {
  describe(`a verifier-bound question on the ${storeKind} store`, () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await startCallbackGateway(
        storeKind === 'redis' ? { REDIS_URL: redis.url, ASKGATE_REDIS_PREFIX: `{co${Date.now()}}:` } : {},
      );
    });
    afterAll(async () => gw?.close());

    const bound = () =>
      askFor(gw, { question: 'Paid?', answer_format: 'external', schema: pin, verifier: { name: 'shared_secret' } });

    /** Every door but the callback, each tried with the exact answer the verifier would accept. */
    async function expectEveryOtherDoorRefused(id: string): Promise<void> {
      const http = api(gw.url, gw.token);
      // The lean answer door (a plain JSON request) and the express door (a trailing slash, which the lean path leaves).
      const lean = await http.post(`/api/interactions/${id}/answer`, { answer: confirmed });
      expect(lean.status).toBe(403);
      expect(lean.json).toMatchObject({ error: 'callback_only' });
      expect(lean.json['message']).toMatch(/answered only through its signed callback/);
      const viaExpress = await fetch(`${gw.url}/api/interactions/${id}/answer/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ answer: confirmed }),
      });
      expect(viaExpress.status).toBe(403);
      expect(((await viaExpress.json()) as Record<string, unknown>)['error']).toBe('callback_only');
      const cli = await runCli(gw, ['interactions', 'answer', id, JSON.stringify(confirmed)]);
      expect(cli.code).not.toBe(0);
      expect(cli.stderr).toMatch(/answered only through its signed callback.*\[403 callback_only\]/);
      expect(cli.stderr).not.toMatch(/lacks the scope/);
    }

    it('refuses the answer door, the CLI and a bare answer while pending, and stays pending', async () => {
      const { id } = await bound();
      await expectEveryOtherDoorRefused(id);
      const record = await recordOf(gw, id);
      expect(record['status']).toBe('pending');
      expect(record['result']).toBeNull();
    });

    it('refuses them the same way once answered, revealing nothing, and keeps the signed answer', async () => {
      const { id, path } = await bound();
      const signed = await postJson(gw, path, confirmed, { 'x-tai-bridge-secret': BRIDGE_SECRET });
      expect(signed.json()).toEqual({ status: 'answered' });
      await expectEveryOtherDoorRefused(id);
      const record = await recordOf(gw, id);
      expect(record['result']).toMatchObject({
        answer: confirmed,
        surface: 'callback',
        answered_by: 'verifier:shared_secret',
      });
    });

    it('leaves an unbound external question answerable at the answer door', async () => {
      const { id } = await askFor(gw, { question: 'Done?', answer_format: 'external' });
      const res = await api(gw.url, gw.token).post(`/api/interactions/${id}/answer`, { answer: { done: true } });
      expect(res.json).toEqual({ status: 'answered' });
    });

    it('shows the question read-only in the inbox: no answer controls, the outside system named', async () => {
      const { id } = await bound();
      const page = await browser.newPage();
      try {
        page.setDefaultTimeout(5_000);
        await page.goto(`${gw.url}/inbox#token=${encodeURIComponent(gw.token)}`);
        const card = page.locator(`li.card[data-id="${id}"]`);
        await card.waitFor();
        await expect(card.locator('.external-note').textContent()).resolves.toMatch(/Answered by the outside system/);
        expect(await card.locator('textarea, button, input').count()).toBe(0);
      } finally {
        await page.close();
      }
      expect((await recordOf(gw, id))['status']).toBe('pending');
    });
  });
}
