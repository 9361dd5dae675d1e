import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ChannelError } from '../../channels/contract.js';
import { isTransientNetworkFailure } from '../../channels/transient.js';
import { retryTransient, type TransientRetryPolicy } from '../../src/core/delivery-retry.js';

/**
 * The bound on repeating a failed send (src/core/delivery-retry.ts), judged on a fake clock: the sleeps move it,
 * so no assertion depends on how fast this machine is. And which real failures count as "on the way".
 */

const POLICY: TransientRetryPolicy = { tries: 3, backoffMs: [250, 1000], withinMs: 5000 };
const onTheWay = (): ChannelError =>
  new ChannelError('acme', 'network', 'reset', null, { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) });

function fakeTime(): {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  slept: number[];
  advance(ms: number): void;
} {
  let t = 1_000_000;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: async (ms) => {
      slept.push(ms);
      t += ms;
    },
    slept,
    advance: (ms) => {
      t += ms;
    },
  };
}

describe('retryTransient', () => {
  it('repeats a send that failed on the way, pausing 250 ms then 1 s, and gives up after the third', async () => {
    const time = fakeTime();
    let calls = 0;
    const run = retryTransient(
      async () => {
        calls++;
        throw onTheWay();
      },
      time,
      POLICY,
    );
    await expect(run).rejects.toThrow('reset');
    expect(calls).toBe(3);
    expect(time.slept).toEqual([250, 1000]);
  });

  it('returns the first success', async () => {
    const time = fakeTime();
    let calls = 0;
    const value = await retryTransient(
      async () => {
        if (++calls < 2) throw onTheWay();
        return 'sent';
      },
      time,
      POLICY,
    );
    expect(value).toBe('sent');
    expect(calls).toBe(2);
  });

  it('starts no send past the time bound: a slow first failure (4.9 s) is not repeated', async () => {
    const time = fakeTime();
    let calls = 0;
    await expect(
      retryTransient(
        async () => {
          calls++;
          time.advance(4900);
          throw onTheWay();
        },
        time,
        POLICY,
      ),
    ).rejects.toThrow('reset');
    expect(calls).toBe(1);
    expect(time.slept).toEqual([]);
  });

  it('a refusal, an invalid question and a network error that is not on the way are thrown at once', async () => {
    for (const err of [
      new ChannelError('acme', 'refused', 'Acme refused: 400 chat not found'),
      new ChannelError('acme', 'invalid', 'too many buttons'),
      new ChannelError('acme', 'network', 'Acme answered with HTTP 503'),
      new Error('something else'),
    ]) {
      const time = fakeTime();
      let calls = 0;
      await expect(
        retryTransient(
          async () => {
            calls++;
            throw err;
          },
          time,
          POLICY,
        ),
      ).rejects.toBe(err);
      expect(calls).toBe(1);
    }
  });
});

describe('isTransientNetworkFailure, on real failures', () => {
  it('a refused connection (fetch to a port nobody listens on) is on the way', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const err = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(isTransientNetworkFailure(err)).toBe(true);
  });

  it('a timeout (AbortSignal.timeout on a server that never answers) is on the way', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const err = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(100) }).catch((e: unknown) => e);
    server.close();
    expect(isTransientNetworkFailure(err)).toBe(true);
  });

  it("Node's codes for a connection that failed, however deep an SDK wrapped them, are on the way", () => {
    const nodeError = (code: string): Error => Object.assign(new Error(code), { code });
    // grammY's HttpError keeps the fetch error as `error`; fetch keeps undici's as `cause`.
    expect(isTransientNetworkFailure({ error: nodeError('ECONNRESET') })).toBe(true);
    expect(isTransientNetworkFailure(new TypeError('fetch failed', { cause: nodeError('UND_ERR_SOCKET') }))).toBe(true);
    expect(isTransientNetworkFailure(nodeError('EADDRNOTAVAIL'))).toBe(true);
    expect(isTransientNetworkFailure(nodeError('ENOTFOUND'))).toBe(false);
  });

  it('an answer is not: a plain error, a user abort, and nothing at all', () => {
    const aborted = new AbortController();
    aborted.abort();
    expect(isTransientNetworkFailure(new Error('Acme answered with HTTP 503'))).toBe(false);
    expect(isTransientNetworkFailure(aborted.signal.reason)).toBe(false);
    expect(isTransientNetworkFailure(null)).toBe(false);
  });
});
