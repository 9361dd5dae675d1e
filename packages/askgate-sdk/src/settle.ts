import { AskCancelledError, AskgateSdkError, AskTimeoutError } from './errors.js';
import type { InteractionRecord } from './wire/interactions.js';
import type { AskAnswer } from './types.js';

/** What a blocking wait does with a record once it has left `pending`, and the pause between retried long-polls. */

/** Turns a resolved record into the answer, or into the error its status means. */
export function settle(record: InteractionRecord): AskAnswer {
  if (record.status === 'expired') throw new AskTimeoutError(record);
  if (record.status === 'cancelled') throw new AskCancelledError(record);
  if (record.result === null || record.result === undefined) {
    throw new AskgateSdkError(`interaction ${record.id} is ${record.status} but its record carries no result.`);
  }
  return {
    answer: record.result.answer,
    reply_to: record.result.reply_to ?? null,
    params: record.result.params ?? null,
  };
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
