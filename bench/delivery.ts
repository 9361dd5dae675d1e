import { startFakeTelegram, type FakeLimits } from '../test/fakes/telegram-server.js';
import { figure, pool, sleep, type BenchResult, type Size } from './harness.js';
import { HttpClient } from './http.js';
import { BENCH_TOKEN, spawnGateway, startRedis } from './processes.js';

const BOT_TOKEN = '123456789:bench-bot-token';

/**
 * 5. Delivery at the limit: Q confirm questions asked with `channel: "telegram"` to C chats (round robin) through
 * the gateway's ask door, against the test fake Bot API (test/fakes/telegram-server.ts) with its flood limits on:
 * 429 to any message over 1/s in a chat or 30/s in total. Each ask returns once its message is delivered, so the
 * asks are kept in flight (two per chat) and the gateway's pacing decides the rate. The baseline is the allowed rate
 * itself, 30 messages/s: the figure is achieved / allowed, over the span from the first to the last accepted message.
 */

const NAME = 'delivery';
const ALLOWED_PER_SECOND = 30;
/** Telegram's 1 message/s per chat and 30/s in total, each with 100 ms of slack for loopback jitter (as the tests use). */
const LIMITS: FakeLimits = { perChatGapMs: 900, perWindow: 30, windowMs: 900 };

export async function delivery(size: Size): Promise<BenchResult> {
  const started = Date.now();
  const s = size.tiny ? { questions: 60, chats: 10, warmup: 10 } : { questions: 5_000, chats: 200, warmup: 30 };
  const redis = await startRedis();
  const telegram = await startFakeTelegram({ limits: LIMITS, token: BOT_TOKEN });
  const gateway = await spawnGateway(redis.url, {
    TELEGRAM_BOT_TOKEN: BOT_TOKEN,
    TELEGRAM_WEBHOOK_SECRET: 'bench-webhook-secret',
    TELEGRAM_API_ROOT: telegram.apiRoot,
    // Channel asks carry a callback URL; loopback http is allowed and nothing calls it.
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9',
  });
  const inFlight = 2 * s.chats;
  const http = new HttpClient(gateway.url, BENCH_TOKEN, inFlight);
  const ask = (chat: string, i: number): Promise<Record<string, unknown>> =>
    http.expect(201, 'POST', '/api/interactions', {
      question: `Approve change #${i}?`,
      answer_format: 'confirm',
      channel: 'telegram',
      recipient: chat,
      timeout: 3_600,
    });
  let achieved = 0;
  let tooMany = 0;
  let asked = 0;
  let sent = 0;
  try {
    // Warm-up on chats of its own, then a pause longer than both limit windows so the measured run starts fresh.
    await pool(s.warmup, s.warmup, async (i) => {
      await ask(String(9_000_000 + i), i);
    });
    await sleep(2_000);
    // The measured run's calls are those recorded from here on.
    const mark = telegram.calls.length;
    await pool(s.questions, inFlight, async (i) => {
      // A 201 means the message was delivered: a failed delivery is a 502 (and stops the bench).
      await ask(String(1_000_000 + (i % s.chats)), i);
      asked++;
    });
    const measured = telegram.calls.slice(mark);
    // Accepted sendMessage times (Date.now() of this process), in order.
    const accepted = measured.filter((c) => c.method === 'sendMessage' && c.status === 200).map((c) => c.at);
    sent = accepted.length;
    const first = accepted[0] as number;
    const last = accepted[accepted.length - 1] as number;
    // n messages span n - 1 intervals: the rate the limiter actually sustained.
    achieved = (sent - 1) / ((last - first) / 1000);
    tooMany = measured.filter((c) => c.status === 429).length;
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
      figure({
        name: 'achieved / allowed rate',
        unit: 'messages/s',
        value: achieved,
        baseline: ALLOWED_PER_SECOND,
        target: { op: '>=', limit: 0.95, on: 'ratio' },
      }),
      // A count, not a rate: the "ratio" column repeats it, and the target is on the count itself.
      figure({
        name: '429s received',
        unit: 'count',
        value: tooMany,
        baseline: 0,
        ratio: tooMany,
        target: { op: '<=', limit: 0, on: 'value' },
      }),
    ],
    counts: { questions: s.questions, chats: s.chats, asked, sent, fake_window_ms: LIMITS.windowMs },
    skipped: null,
    durationMs: Date.now() - started,
  };
}
