import { createHash, timingSafeEqual } from 'node:crypto';
import { ACCEPTED, headerOf, refused, type VerifyInput, type VerifyResult } from '../http.js';

/**
 * Telegram signs nothing: it echoes the `secret_token` given to setWebhook in `X-Telegram-Bot-Api-Secret-Token`.
 * The header is compared in constant time (both sides hashed first, so their lengths never leak either). The body,
 * the URL and the clock play no part. Pure: imports neither the core nor grammY (test/channels/boundary.test.ts).
 */
export const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

export function verify({ secret, headers }: VerifyInput): VerifyResult {
  const given = headerOf(headers, SECRET_HEADER);
  if (secret === '') return refused('no TELEGRAM_WEBHOOK_SECRET is configured');
  if (given === undefined || given === '') return refused('the X-Telegram-Bot-Api-Secret-Token header is missing');
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b) ? ACCEPTED : refused('the X-Telegram-Bot-Api-Secret-Token header is wrong');
}
