import { startFakeSlack, type FakeSlackLimits } from '../test/fakes/slack-server.js';
import { figure, pool, sleep, type BenchResult, type Size } from './harness.js';
import { HttpClient } from './http.js';
import { BENCH_TOKEN, spawnGateway, startRedis } from './processes.js';

/**
 * 7. Slack delivery at the limit across two processes: Q confirm questions asked with `channel: "slack"` to C
 * channels (round robin), half through each of two gateway processes on one Redis, against the test fake Web API
 * (test/fakes/slack-server.ts) with its limit on: 429 to any chat.postMessage into a channel less than 900 ms after
 * the last one accepted there (Slack's 1 message/s per channel, 100 ms of slack for loopback jitter). Each ask returns
 * once its message is delivered, so asks are kept in flight (two per channel per process) and the shared pacing
 * decides the rate. The baseline is the allowed rate itself, C messages/s (under the workspace cap of
 * chat.postMessage, 600/min): the figure is achieved / allowed, over the span from the first to the last accepted
 * message.
 */

const NAME = 'slack-delivery';
const LIMITS: FakeSlackLimits = { perChannelGapMs: 900 };

export async function slackDelivery(size: Size): Promise<BenchResult> {
  const started = Date.now();
  const s = size.tiny ? { questions: 24, channels: 4 } : { questions: 600, channels: 8 };
  const allowed = s.channels;
  const redis = await startRedis();
  const slack = await startFakeSlack({ limits: LIMITS, token: 'xoxb-bench-token' });
  const env = {
    SLACK_BOT_TOKEN: 'xoxb-bench-token',
    SLACK_SIGNING_SECRET: 'bench-signing-secret',
    SLACK_API_URL: slack.apiUrl,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9',
  };
  const gateways = await Promise.all([spawnGateway(redis.url, env), spawnGateway(redis.url, env)]);
  const inFlight = 2 * s.channels;
  const clients = gateways.map((g) => new HttpClient(g.url, BENCH_TOKEN, inFlight));
  let achieved = 0;
  let tooMany = 0;
  let sent = 0;
  try {
    // Warm-up through both processes on channels of their own (a cold process may call late, which no budget can
    // foresee), then a pause longer than the limit so the measured run starts fresh.
    await pool(8, 8, async (i) => {
      await (clients[i % 2] as HttpClient).expect(201, 'POST', '/api/interactions', {
        question: `Warm-up #${i}?`,
        answer_format: 'confirm',
        channel: 'slack',
        recipient: `CWARM${i}`,
        timeout: 3_600,
      });
    });
    await sleep(2_000);
    const mark = slack.calls.length;
    const limitedBefore = slack.rateLimited;
    await pool(s.questions, 2 * inFlight, async (i) => {
      // A 201 means the message was delivered: a failed delivery is a 502 (and stops the bench).
      await (clients[i % 2] as HttpClient).expect(201, 'POST', '/api/interactions', {
        question: `Approve change #${i}?`,
        answer_format: 'confirm',
        channel: 'slack',
        recipient: `CBENCH${i % s.channels}`,
        timeout: 3_600,
      });
    });
    tooMany = slack.rateLimited - limitedBefore;
    // The fake records every call, refused or not; the accepted posts are those its limit did not refuse.
    const accepted = slack.calls
      .slice(mark)
      .filter((c) => c.method === 'chat.postMessage' && c.limited !== true)
      .map((c) => c.at);
    sent = accepted.length;
    const first = accepted[0] as number;
    const last = accepted[accepted.length - 1] as number;
    // n messages span n - 1 intervals: the rate the pacing actually sustained.
    achieved = (sent - 1) / ((last - first) / 1000);
  } finally {
    for (const c of clients) c.close();
    await Promise.all(gateways.map((g) => g.stop()));
    await slack.close();
    await redis.stop();
  }
  return {
    name: NAME,
    title: `Slack delivery at the limit (${s.questions} questions to ${s.channels} channels, two processes)`,
    baseline: `the allowed rate, ${allowed} messages/s (fake: 429 over 1/s per channel)`,
    figures: [
      figure({
        name: 'achieved / allowed rate',
        unit: 'messages/s',
        value: achieved,
        baseline: allowed,
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
    counts: { questions: s.questions, channels: s.channels, processes: 2, sent },
    skipped: null,
    durationMs: Date.now() - started,
  };
}
