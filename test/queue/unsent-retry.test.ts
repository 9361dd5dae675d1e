import { HttpError } from 'grammy';
import { describe, expect, it } from 'vitest';
import { ChannelError } from '../../channels/contract.js';
import { UNSENT_RETRY_WAITS_MS, neverReachedPlatform, sendUntilReached } from '../../src/queue/unsent-retry.js';

/** A socket error as Node reports it: an Error with its code. */
const sysError = (code: string): Error => Object.assign(new Error(`connect ${code} 127.0.0.1:9`), { code });
/** As the Telegram channel reports a network failure: a ChannelError around grammY's HttpError around the socket's. */
const telegramNetwork = (code: string): ChannelError =>
  new ChannelError('telegram', 'network', 'could not reach the Telegram Bot API', null, {
    cause: new HttpError("Network request for 'sendMessage' failed!", sysError(code)),
  });

describe('neverReachedPlatform: a send that cannot have reached the platform', () => {
  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT'])(
    'no connection made (%s), found under the channel and SDK errors',
    (code) => {
      expect(neverReachedPlatform(telegramNetwork(code))).toBe(true);
    },
  );

  it.each(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED'])(
    'a connection that broke or timed out (%s) may have',
    (code) => {
      expect(neverReachedPlatform(telegramNetwork(code))).toBe(false);
    },
  );

  it("finds the code in Slack's `original` and in every address's error of an AggregateError", () => {
    expect(
      neverReachedPlatform(Object.assign(new Error('request failed'), { original: sysError('ECONNREFUSED') })),
    ).toBe(true);
    expect(neverReachedPlatform(new AggregateError([sysError('ECONNREFUSED'), sysError('ECONNREFUSED')]))).toBe(true);
  });

  it('a refusal by the platform, or anything without a code, is not such a failure', () => {
    expect(neverReachedPlatform(new ChannelError('telegram', 'refused', 'Telegram refused sendMessage: 400'))).toBe(
      false,
    );
    expect(neverReachedPlatform('ECONNREFUSED')).toBe(false);
    expect(neverReachedPlatform(null)).toBe(false);
  });
});

describe('sendUntilReached', () => {
  it('waits as docs/reminders.md says: 1, 2, 4 and 8 s before the four tries after the first', () => {
    expect(UNSENT_RETRY_WAITS_MS).toEqual([1_000, 2_000, 4_000, 8_000]);
  });

  it('tries again after each refused connection, and says how many tries it took', async () => {
    let calls = 0;
    const retried: number[] = [];
    const sent = await sendUntilReached(
      async () => {
        calls++;
        if (calls < 3) throw telegramNetwork('ECONNREFUSED');
        return 'sent';
      },
      (_err, tries) => retried.push(tries),
      [0, 0, 0, 0],
    );
    expect(sent).toEqual({ result: 'sent', tries: 3 });
    expect(retried).toEqual([1, 2]);
  });

  it('does not try again a send that may have been taken', async () => {
    let calls = 0;
    const reset = telegramNetwork('ECONNRESET');
    await expect(
      sendUntilReached(
        async () => {
          calls++;
          throw reset;
        },
        () => undefined,
        [0, 0, 0, 0],
      ),
    ).rejects.toBe(reset);
    expect(calls).toBe(1);
  });

  it('gives up after the last wait: one try per wait, and one more', async () => {
    let calls = 0;
    await expect(
      sendUntilReached(
        async () => {
          calls++;
          throw telegramNetwork('ECONNREFUSED');
        },
        () => undefined,
        [0, 0],
      ),
    ).rejects.toBeInstanceOf(ChannelError);
    expect(calls).toBe(3);
  });
});
