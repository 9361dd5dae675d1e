import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BridgeFailure,
  type BridgeSettings,
  deliverNow,
  MAX_RETRY_AFTER_MS,
  postConfirmation,
  retryDelayMs,
} from '../../src/confirmations/bridge.js';
import type { CompletedConfirmation } from '../../src/confirmations/providers/types.js';
import { freePort } from './helpers.js';

/**
 * The bridge's ladder against a loopback door that answers what each test scripts: which statuses retry, which fail
 * at once, how a Retry-After is honoured (capped at 90 s), what the bridge sends.
 */

let server: Server;
let base: string;
let script: Array<{ status: number; headers?: Record<string, string>; body?: unknown }> = [];
const received: Array<{ headers: Record<string, unknown>; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      const next = script.shift() ?? { status: 200, body: { status: 'answered' } };
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(JSON.stringify(next.body ?? { error: 'x', message: 'y' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const settings = (): BridgeSettings => ({ publicBaseUrl: base, secret: 'bridge-secret' });
const confirmation = (): CompletedConfirmation => ({
  session: 'cs_1',
  callbackUrl: `${base}/api/interactions/callback/${'t'.repeat(43)}`,
  reference: 'order-1',
  decision: 'confirmed',
});

describe('one bridge delivery', () => {
  it('POSTs the envelope with the bridge secret and reads the verdict', async () => {
    received.length = 0;
    script = [{ status: 200, body: { status: 'already_answered' } }];
    expect(await postConfirmation(confirmation(), settings())).toBe('already_answered');
    expect(JSON.parse(received[0]?.body as string)).toEqual({
      answer: { decision: 'confirmed', reference: 'order-1' },
    });
    expect(received[0]?.headers['x-tai-bridge-secret']).toBe('bridge-secret');
  });

  it.each([
    [500, true],
    [503, true],
    [408, true],
    [429, true],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [409, false],
  ])('classifies %i as retryable: %s', async (status, retryable) => {
    script = [{ status }];
    const failure = await postConfirmation(confirmation(), settings()).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BridgeFailure);
    expect((failure as BridgeFailure).status).toBe(status);
    expect((failure as BridgeFailure).retryable).toBe(retryable);
  });

  it('honours Retry-After, capped at 90 s; without one the ladder doubles from 0.5 s with jitter', async () => {
    script = [{ status: 429, headers: { 'retry-after': '7' } }];
    const seven = (await postConfirmation(confirmation(), settings()).catch((e: unknown) => e)) as BridgeFailure;
    expect(seven.retryAfterMs).toBe(7000);
    expect(retryDelayMs(1, seven)).toBe(7000);
    script = [{ status: 429, headers: { 'retry-after': '600' } }];
    const long = (await postConfirmation(confirmation(), settings()).catch((e: unknown) => e)) as BridgeFailure;
    expect(long.retryAfterMs).toBe(MAX_RETRY_AFTER_MS);
    const plain = new BridgeFailure('x', 503, true);
    for (const [retry, max] of [
      [1, 500],
      [2, 1000],
      [3, 2000],
      [5, 8000],
    ] as const) {
      const delay = retryDelayMs(retry, plain);
      expect(delay).toBeGreaterThanOrEqual(max / 2);
      expect(delay).toBeLessThanOrEqual(max);
    }
  });

  it('retries a transient failure five times, then gives up with the last failure', async () => {
    const sleeps: number[] = [];
    script = Array.from({ length: 6 }, () => ({ status: 502 }));
    const failure = await deliverNow(confirmation(), settings(), async (ms) => {
      sleeps.push(ms);
    }).catch((e: unknown) => e);
    expect((failure as BridgeFailure).status).toBe(502);
    expect(sleeps).toHaveLength(5);
    script = [
      { status: 429, headers: { 'retry-after': '3' } },
      { status: 200, body: { status: 'answered' } },
    ];
    sleeps.length = 0;
    expect(await deliverNow(confirmation(), settings(), async (ms) => void sleeps.push(ms))).toBe('answered');
    expect(sleeps).toEqual([3000]);
  });

  it('fails a 404 at once, and refuses a connection it cannot make as retryable', async () => {
    const sleeps: number[] = [];
    script = [{ status: 404 }];
    const gone = await deliverNow(confirmation(), settings(), async (ms) => void sleeps.push(ms)).catch((e) => e);
    expect((gone as BridgeFailure).status).toBe(404);
    expect(sleeps).toEqual([]);
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const closed = { ...confirmation(), callbackUrl: `${nobody}/api/interactions/callback/${'t'.repeat(43)}` };
    const down = (await postConfirmation(closed, { ...settings(), publicBaseUrl: nobody }).catch(
      (e: unknown) => e,
    )) as BridgeFailure;
    expect(down.status).toBeNull();
    expect(down.retryable).toBe(true);
    expect(down.message).toContain('the callback door is unreachable (ECONNREFUSED)');
  });

  it('refuses, without sending: another path on the right origin, a missing secret, no public base URL', async () => {
    received.length = 0;
    const offDoor = { ...confirmation(), callbackUrl: `${base}/api/presets/x` };
    for (const [c, s, words] of [
      [offDoor, settings(), 'SSRF pin'],
      [confirmation(), { ...settings(), secret: null }, 'TAI_BRIDGE_CALLBACK_SECRET is not set'],
      [confirmation(), { ...settings(), publicBaseUrl: null }, 'INTERACTIONS_PUBLIC_BASE_URL is not set'],
    ] as const) {
      const failure = (await postConfirmation(c, s).catch((e: unknown) => e)) as BridgeFailure;
      expect(failure.retryable).toBe(false);
      expect(failure.message).toContain(words);
    }
    expect(received).toEqual([]);
  });
});
