import { startLimitedTelegram, TELEGRAM_LIMITS } from './fake-telegram.js';
import { figure, pool, sleep, type BenchResult, type Size } from './harness.js';
import { HttpClient } from './http.js';
import { BENCH_TOKEN, spawnGateway, startRedis } from './processes.js';

/**
 * 5. Delivery at the limit: Q confirm questions asked with `channel: "telegram"` to C chats (round robin) through
 * the gateway's ask door, against a fake Bot API that refuses with 429 any message over 1/s in a chat or 30/s in
 * total (bench/fake-telegram.ts). Each ask returns once its message is delivered, so the asks are kept in flight
 * (two per chat) and the gateway's pacing decides the rate. The baseline is the allowed rate itself, 30 messages/s:
 * the figure is achieved / allowed, over the span from the first to the last accepted message.
 */

const NAME = 'delivery';
const ALLOWED_PER_SECOND = 30;

export async function delivery(size: Size): Promise<BenchResult> {
  const started = Date.now();
  const s = size.tiny ? { questions: 60, chats: 10, warmup: 10 } : { questions: 5_000, chats: 200, warmup: 30 };
  const redis = await startRedis();
  const telegram = await startLimitedTelegram();
  const gateway = await spawnGateway(redis.url, {
    TELEGRAM_BOT_TOKEN: '123456789:bench-bot-token',
    TELEGRAM_WEBHOOK_SECRET: 'bench-webhook-secret',
    TELEGRAM_API_ROOT: telegram.apiRoot,
    // Channel asks carry a callback URL; loopback http is allowed and nothing calls it.
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9',
  });
  const inFlight = 2 * s.chats;
  const http = new HttpClient(gateway.url, BENCH_TOKEN, inFlight);
  const ask = (chat: string, i: number): Promise<Record<string, unknown>> =>
    http.expect(201, 'POST', '/api/interactions', { question: `Approve change #${i}?`, answer_format: 'confirm', channel: 'telegram', recipient: chat, timeout: 3_600 });
  let achieved = 0;
  let tooMany = 0;
  let asked = 0;
  try {
    // Warm-up on chats of its own, then a pause longer than both limit windows so the measured run starts fresh.
    await pool(s.warmup, s.warmup, async (i) => {
      await ask(String(9_000_000 + i), i);
    });
    await sleep(2_000);
    telegram.reset();
    await pool(s.questions, inFlight, async (i) => {
      // A 201 means the message was delivered: a failed delivery is a 502 (and stops the bench).
      await ask(String(1_000_000 + (i % s.chats)), i);
      asked++;
    });
    const first = telegram.sent[0] as number;
    const last = telegram.sent[telegram.sent.length - 1] as number;
    // n messages span n - 1 intervals: the rate the limiter actually sustained.
    achieved = (telegram.sent.length - 1) / ((last - first) / 1000);
    tooMany = telegram.tooMany();
  } finally {
    http.close();
    await gateway.stop();
    await telegram.close();
    await redis.stop();
  }
  return {
    name: NAME,
    title: `Delivery at the limit (${s.questions} questions to ${s.chats} Telegram chats)`,
    baseline: `the allowed rate, ${ALLOWED_PER_SECOND} messages/s (fake: 429 over 1/s per chat or 30/s)`,
    figures: [
      figure({ name: 'achieved / allowed rate', unit: 'messages/s', value: achieved, baseline: ALLOWED_PER_SECOND, target: { op: '>=', limit: 0.95, on: 'ratio' } }),
      // A count, not a rate: the "ratio" column repeats it, and the target is on the count itself.
      figure({ name: '429s received', unit: 'count', value: tooMany, baseline: 0, ratio: tooMany, target: { op: '<=', limit: 0, on: 'value' } }),
    ],
    counts: { questions: s.questions, chats: s.chats, asked, sent: telegram.sent.length, fake_window_ms: TELEGRAM_LIMITS.windowMs },
    skipped: null,
    durationMs: Date.now() - started,
  };
}
