import { Agent, request, type ClientRequest } from 'node:http';
import { Redis } from 'ioredis';
import { BASELINE_PREFIX } from './baseline-server.js';
import { figure, percentile, pool, type BenchResult, type Size } from './harness.js';
import { HttpClient } from './http.js';
import { BENCH_TOKEN, spawnBaseline, spawnGateway, startRedis } from './processes.js';

/**
 * 4. Stream fan-out: S subscribers hold `GET /api/interactions/stream` open; the figure is the time from sending an
 * answer to the moment the last subscriber has read its `interaction.answered` event (the answer door, the claim,
 * Redis pub/sub, the hub, S writes). The baseline server does the least for the same effect: its answer is one
 * Redis script call that publishes, and its one subscription writes a frame to each of its S open responses.
 */

const NAME = 'stream-fanout';

/** S SSE connections from this process, each scanning what it reads for the one marker a trial waits for. */
class Subscribers {
  private readonly agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  private readonly requests: ClientRequest[] = [];
  private readonly tails: string[] = [];
  private marker: string | null = null;
  private arrived = 0;
  private last = 0;
  private resolve: (() => void) | null = null;
  delivered = 0;

  async open(base: string, path: string, token: string | null, count: number): Promise<void> {
    const url = new URL(path, base);
    await pool(
      count,
      50,
      (i) =>
        new Promise<void>((resolve, reject) => {
          const headers: Record<string, string> = { accept: 'text/event-stream' };
          if (token !== null) headers['authorization'] = `Bearer ${token}`;
          this.tails[i] = '';
          const req = request(
            { host: url.hostname, port: url.port, path: url.pathname, headers, agent: this.agent },
            (res) => {
              if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => this.read(i, chunk));
              resolve();
            },
          );
          req.on('error', (err) => (this.requests.length < count ? reject(err) : undefined));
          req.end();
          this.requests.push(req);
        }),
    );
  }

  /** Resolves with the time the last subscriber read `marker`, measured from `fire()` being called. */
  async waitFor(marker: string, fire: () => Promise<void>): Promise<number> {
    this.marker = marker;
    this.arrived = 0;
    const all = new Promise<void>((resolve) => (this.resolve = resolve));
    const t0 = performance.now();
    await fire();
    await Promise.race([
      all,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`not every subscriber saw ${marker} within 30 s`)), 30_000),
      ),
    ]);
    this.marker = null;
    return this.last - t0;
  }

  private read(i: number, chunk: string): void {
    // Keep a short tail so a marker split across two chunks is still found.
    const text = (this.tails[i] ?? '') + chunk;
    this.tails[i] = text.slice(-200);
    if (this.marker === null || !text.includes(this.marker)) return;
    this.tails[i] = '';
    this.delivered++;
    if (++this.arrived === this.requests.length) {
      this.last = performance.now();
      this.resolve?.();
    }
  }

  close(): void {
    for (const req of this.requests) req.destroy();
    this.agent.destroy();
  }
}

export async function streamFanout(size: Size): Promise<BenchResult> {
  const started = Date.now();
  const s = size.tiny ? { subscribers: 20, warmup: 1, trials: 3 } : { subscribers: 1_000, warmup: 5, trials: 50 };
  const redis = await startRedis();
  const [gateway, baseline] = await Promise.all([spawnGateway(redis.url), spawnBaseline(redis.url)]);
  const direct = new Redis(redis.url);
  const gw = new HttpClient(gateway.url, BENCH_TOKEN, 4);
  const bl = new HttpClient(baseline.url, null, 4);
  const gSubs = new Subscribers();
  const bSubs = new Subscribers();
  const gTimes: number[] = [];
  const bTimes: number[] = [];
  try {
    await gSubs.open(gateway.url, '/api/interactions/stream', BENCH_TOKEN, s.subscribers);
    await bSubs.open(baseline.url, '/stream', null, s.subscribers);
    for (let t = 0; t < s.warmup + s.trials; t++) {
      // Baseline trial: a pending marker, then the answer.
      const bid = `fan-${t}`;
      await direct.set(`${BASELINE_PREFIX}i:${bid}`, 'pending');
      const b = await bSubs.waitFor(`event: answered\nid: ${bid}\n`, async () => {
        await bl.expect(200, 'POST', `/answer/${bid}`, { answer: 'yes' });
      });
      // askgate trial: the created event must have reached everyone before the clock starts on the answer.
      let id = '';
      await gSubs.waitFor('event: interaction.created\n', async () => {
        id = (
          await gw.expect(201, 'POST', '/api/interactions', {
            question: `Fan-out ${t}?`,
            answer_format: 'confirm',
            timeout: 600,
          })
        )['id'] as string;
      });
      const g = await gSubs.waitFor(`event: interaction.answered\nid: ${id}\n`, async () => {
        await gw.expect(200, 'POST', `/api/interactions/${id}/answer`, { answer: true });
      });
      if (t >= s.warmup) {
        bTimes.push(b);
        gTimes.push(g);
      }
    }
  } finally {
    gSubs.close();
    bSubs.close();
    gw.close();
    bl.close();
    direct.disconnect();
    await Promise.all([gateway.stop(), baseline.stop()]);
    await redis.stop();
  }
  return {
    name: NAME,
    title: `Stream fan-out (${s.subscribers} SSE subscribers, answer → last subscriber's event)`,
    baseline: 'bare node:http SSE fed by one Redis subscription',
    figures: [
      figure({
        name: 'p50 to last subscriber',
        unit: 'ms',
        value: percentile(gTimes, 50),
        baseline: percentile(bTimes, 50),
        target: null,
      }),
      figure({
        name: 'p99 to last subscriber',
        unit: 'ms',
        value: percentile(gTimes, 99),
        baseline: percentile(bTimes, 99),
        target: null,
      }),
    ],
    counts: {
      subscribers: s.subscribers,
      trials: gTimes.length,
      // askgate's subscribers read a created and an answered event per trial; the baseline's an answered one.
      gateway_events_expected: 2 * (s.warmup + s.trials) * s.subscribers,
      gateway_events_read: gSubs.delivered,
      baseline_events_expected: (s.warmup + s.trials) * s.subscribers,
      baseline_events_read: bSubs.delivered,
    },
    skipped: null,
    durationMs: Date.now() - started,
  };
}
