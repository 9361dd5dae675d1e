import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startFakeTelegram } from '../test/fakes/telegram-server.js';
import { stopChild } from '../test/helpers/child.js';
import { ROOT, startRedis } from './processes.js';
import { emptyCounts, oneSecond, SseClients, startCountingReceiver, type LoadTarget } from './soak-load.js';

/**
 * `npm run soak [-- --minutes N]`: mixed traffic (bench/soak-load.ts) against one `askgate serve` and one
 * `askgate worker` on a redis-server of its own, for N minutes (default 4), sampling the two processes' RSS and Redis
 * `used_memory` every 10 s. Then it stops the traffic, waits out the questions' idle TTL and the runs' retention,
 * and counts what is left in Redis. It prints the samples, each minute's peaks and the keys
 * left, and exits non-zero when traffic met an unexpected response or records outlived their TTLs.
 */

const TOKEN = 'askgate-soak-token-0123456789abcdef';
const TG_SECRET = 'soak-telegram-webhook-secret-0123';
const PREFIX = '{soak}:';
/** Seconds a sync ask waits (and a park's deadline), the records' idle TTL, the runs' retention. */
const DEADLINE_S = 20;
const IDLE_TTL_S = 30;
const RETENTION_MIN = 1;
const SAMPLE_EVERY_MS = 10_000;
/**
 * The key kinds (src/store/keys.ts) a question or a run owns — record, ticket, delivery reference, run, group — each
 * of which must be gone once the idle TTL (or the run's retention) passed. Fixed windows (`w`: flood counters, and
 * the platform update ids a channel remembers for an hour to drop retries) expire with their window; the indexes,
 * the schema cache and the BullMQ queues (finished jobs kept a day) are shared and stay.
 */
const PER_QUESTION_KINDS = ['i', 't', 'dl', 'r', 'g'];

interface Sample {
  second: number;
  serveRssMb: number;
  workerRssMb: number;
  redisMb: number;
  /** Of `redisMb`, what the BullMQ queues hold: mostly finished jobs, which BullMQ keeps for a day. */
  queuesMb: number;
  keys: number;
}

/** The key kinds askgate's own store spells (src/store/keys.ts); every other kind under the prefix is a BullMQ queue. */
const STORE_KINDS = new Set([
  'i',
  't',
  'dl',
  'r',
  'g',
  'w',
  'seen',
  'pending',
  'deadlines',
  'seq',
  's',
  'runs',
  'tg',
  'p',
  'events',
]);

function parseMinutes(argv: string[]): number {
  const i = argv.indexOf('--minutes');
  if (i === -1) return 4;
  const minutes = Number(argv[i + 1]);
  if (!(minutes >= 1 && minutes <= 120)) throw new Error('--minutes takes a number of minutes from 1 to 120');
  return minutes;
}

/** `askgate <role>` from dist/, resolved once it says it is up. */
async function spawnRole(
  role: 'serve' | 'worker',
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'dist/src/cli/main.js'), role], {
    env: { PATH: process.env['PATH'] ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  let out = '';
  const ready = role === 'worker' ? /askgate worker started/ : /askgate listening on (http:\/\/\S+)/;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`askgate ${role} did not start in 20 s:\n${out}`)), 20_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = ready.exec(out);
      if (m === null) return;
      clearTimeout(timer);
      resolve(m[1] ?? '');
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`askgate ${role} exited with ${code}:\n${out}`)));
  });
  return { child, url };
}

function rssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return Math.round(kb / 102.4) / 10;
}

async function redisMb(raw: Redis): Promise<number> {
  const info = await raw.info('memory');
  return Math.round(Number(/used_memory:(\d+)/.exec(info)?.[1]) / 104_857.6) / 10;
}

/** The bytes of every BullMQ queue key under the prefix (MEMORY USAGE, pipelined), in MB. */
async function queuesMb(raw: Redis): Promise<number> {
  let bytes = 0;
  let cursor = '0';
  do {
    const [next, keys] = await raw.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
    cursor = next;
    const queueKeys = keys.filter((key) => !STORE_KINDS.has(key.slice(PREFIX.length).split(':')[0] ?? ''));
    const pipeline = raw.pipeline();
    for (const key of queueKeys) pipeline.call('MEMORY', 'USAGE', key);
    for (const [, usage] of (await pipeline.exec()) ?? []) bytes += Number(usage ?? 0);
  } while (cursor !== '0');
  return Math.round(bytes / 104_857.6) / 10;
}

/**
 * Every key under the prefix, grouped by what it is (the part after the prefix up to the next `:`), and those of
 * them that will never expire (no TTL), by kind.
 */
async function keysByKind(raw: Redis): Promise<{ kinds: Record<string, number>; lasting: Record<string, number> }> {
  const kinds: Record<string, number> = {};
  const lasting: Record<string, number> = {};
  let cursor = '0';
  do {
    const [next, keys] = await raw.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const kind = key.slice(PREFIX.length).split(':')[0] || key;
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      if ((await raw.pttl(key)) === -1) lasting[kind] = (lasting[kind] ?? 0) + 1;
    }
  } while (cursor !== '0');
  return { kinds, lasting };
}

async function main(): Promise<void> {
  const minutes = parseMinutes(process.argv.slice(2));
  const redis = await startRedis();
  const raw = new Redis(redis.url);
  const counts = emptyCounts();
  const [telegram, receiver] = await Promise.all([
    startFakeTelegram({ token: '123456:SOAK-token-for-the-fake' }),
    startCountingReceiver(counts),
  ]);
  const env = {
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: PREFIX,
    ASKGATE_TOKENS: JSON.stringify({
      [TOKEN]: { identity: 'soak', scopes: ['read', 'write', 'answer'], webhook_secret: `whsec_${'c29haw'.repeat(6)}` },
    }),
    // The resume target is on loopback, which outbound rules would otherwise refuse.
    ASKGATE_WEBHOOK_ALLOW_PRIVATE: '1',
    INTERACTIONS_IDLE_TTL_SECONDS: String(IDLE_TTL_S),
    LLM_PROVIDER_CHECKPOINT_RETENTION_WAITING_MINUTES: String(RETENTION_MIN),
    TELEGRAM_BOT_TOKEN: '123456:SOAK-token-for-the-fake',
    TELEGRAM_WEBHOOK_SECRET: TG_SECRET,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'askgate-soak-')),
  };
  const [serve, worker] = await Promise.all([spawnRole('serve', env), spawnRole('worker', env)]);
  const target: LoadTarget = {
    gatewayUrl: serve.url,
    token: TOKEN,
    telegram,
    telegramSecret: TG_SECRET,
    receiverUrl: receiver.url,
    deadlineSeconds: DEADLINE_S,
  };
  const sse = new SseClients(target, counts);
  const samples: Sample[] = [];
  const started = Date.now();
  const sample = async (): Promise<void> => {
    const s: Sample = {
      second: Math.round((Date.now() - started) / 1000),
      serveRssMb: rssMb(serve.child.pid),
      workerRssMb: rssMb(worker.child.pid),
      redisMb: await redisMb(raw),
      queuesMb: await queuesMb(raw),
      keys: await raw.dbsize(),
    };
    samples.push(s);
    console.log(
      `t=${s.second}s serve ${s.serveRssMb} MB, worker ${s.workerRssMb} MB, redis ${s.redisMb} MB ` +
        `(queues ${s.queuesMb} MB), ${s.keys} keys`,
    );
  };

  console.log(
    `soak: ${minutes} min of traffic against serve + worker, then a ${IDLE_TTL_S + 60 * RETENTION_MIN + 30} s drain`,
  );
  await sample();
  sse.connect(20);
  let lastSample = Date.now();
  for (let second = 0; second < minutes * 60; second += 1) {
    await oneSecond(target, counts);
    if (second % 10 === 9) {
      sse.disconnect(5); // churn: a quarter of the SSE clients leave and others come
      sse.connect(5);
    }
    if (Date.now() - lastSample >= SAMPLE_EVERY_MS) {
      lastSample = Date.now();
      await sample();
    }
  }
  const loadEnd = samples.length;
  sse.closeAll();
  // Past every deadline, the idle TTL of the last resolutions, and the runs' retention after their last write.
  const drainMs = (DEADLINE_S + IDLE_TTL_S + 60 * RETENTION_MIN + 10) * 1000;
  for (let waited = 0; waited < drainMs; waited += SAMPLE_EVERY_MS) {
    await new Promise((r) => setTimeout(r, SAMPLE_EVERY_MS));
    await sample();
  }
  const left = await keysByKind(raw);

  // RSS saws up and down with V8's collections, so each minute is summed up by its peak: flat means the later
  // minutes' peaks are no higher than the first warm minute's.
  const { surprises, ...done } = counts;
  console.log('\ncounts', JSON.stringify(done));
  console.log(
    'minute | serve RSS peak MB | worker RSS peak MB | redis peak MB | of it queues MB | redis without queues MB',
  );
  const load = samples.slice(0, loadEnd);
  for (let minute = 0; minute * 60 <= (load.at(-1)?.second ?? 0); minute += 1) {
    const inMinute = load.filter((x) => x.second >= minute * 60 && x.second < (minute + 1) * 60);
    if (inMinute.length === 0) continue;
    const peak = (f: (x: Sample) => number): string => Math.max(...inMinute.map(f)).toFixed(1);
    console.log(
      `${minute + 1} | ${peak((x) => x.serveRssMb)} | ${peak((x) => x.workerRssMb)} | ${peak((x) => x.redisMb)} | ` +
        `${peak((x) => x.queuesMb)} | ${peak((x) => x.redisMb - x.queuesMb)}`,
    );
  }
  console.log(
    `keys left after the drain: ${JSON.stringify(left.kinds)}; of them without a TTL: ${JSON.stringify(left.lasting)}`,
  );
  const recordsLeft = PER_QUESTION_KINDS.reduce((n, kind) => n + (left.kinds[kind] ?? 0), 0);

  await Promise.all([stopChild(serve.child), stopChild(worker.child)]);
  await Promise.all([telegram.close(), receiver.close()]);
  raw.disconnect();
  await redis.stop();
  if (counts.unexpected > 0)
    throw new Error(`${counts.unexpected} unexpected responses during the soak:\n${counts.surprises.join('\n')}`);
  if (recordsLeft > 0)
    throw new Error(`${recordsLeft} per-question keys outlived their TTLs: ${JSON.stringify(left.kinds)}`);
  console.log(`soak done: ${counts.unexpected} unexpected responses, ${recordsLeft} per-question keys left`);
}

await main();
