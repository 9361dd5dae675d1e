import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { TelegramChannel } from '../channels/telegram/plugin.js';
import { FAKE_BOT_TOKEN, startFakeTelegram, type FakeTelegram } from '../test/fakes/telegram-server.js';
import { Keys } from '../src/store/keys.js';
import { resolveLua } from '../src/store/redis/scripts/index.js';
import { figure, pool, type BenchResult, type Figure, type Size } from './harness.js';
import { startRedis } from './processes.js';
import { openSeeder, type Seeder } from './seed.js';

/**
 * 3. Memory per pending question: Redis `used_memory` growth over N pending asks of each format, sync and async,
 * written through the real service (validation, record codec, the create / park-run scripts). Form asks all use one
 * schema, which the store keeps once. Each kind starts from an empty database, so kinds do not share keys.
 *
 * Two more kinds ask on a chat channel (`telegram` confirm, sync and async), each of its own recipient: the real
 * Telegram plugin sends every question to the test fake Bot API (no flood limits, in-process pacing opened wide, so
 * 100,000 sends take seconds — pacing keeps nothing in Redis either way), and the store records what a channel ask
 * costs on top: the callback ticket's hash, the recipient index field (`rb:`) and the delivery refs in the record (a
 * Telegram message ref needs no delivery lookup field: it is found through the recipient index). One recipient per
 * ask is the dearest layout (a field per ask); a person with several pending questions shares one field's hash.
 *
 * The baseline is the least a store can keep for a pending question it can list: the ask body's JSON in one string
 * key and one member of one sorted set, written with the same N on the same server. The target (600 bytes) is on
 * askgate's absolute figure for text, confirm and select — bytes are not a drifting measurement.
 *
 * Every pending ask's row includes its audit trail's `created` event, which is derived from the record and costs no
 * bytes until the trail is first read (docs/audit.md). Two more rows measure the trail itself, on N sync text asks:
 * `audit: created sealed` — the growth per ask when its trail is first read (the hash of `created` is sealed); and
 * `audit: per event` — the growth per event of appending EVENTS_PER_ASK events to each ask and reading them again
 * (each event's stored entry plus its sealed hash). Their baseline is a 64-character hex hash in one list element
 * per event (RPUSH to a list per ask, a key of its own per question).
 */

const NAME = 'memory';
const FORMATS = ['text', 'confirm', 'select', 'form'] as const;
const FORM_SCHEMA = {
  type: 'object',
  required: ['approver', 'ticket'],
  properties: {
    approver: { type: 'string', title: 'Approver', maxLength: 80 },
    ticket: { type: 'string', title: 'Change ticket', pattern: '^CHG-[0-9]+$' },
    notify: { type: 'boolean', title: 'Notify the team' },
  },
};
/**
 * Bytes per pending ask, judged on askgate's own bytes (they do not drift). Async asks: at most 450. Sync asks: no
 * worse than the last full run's figures (323 / 324 / 356), with a few bytes for allocator rounding. An ask on a chat
 * channel (its ticket, recipient index and delivery refs on top): the 600 bytes the benchmark has always allowed.
 */
const TARGET_BYTES: Record<'sync' | 'async', Partial<Record<string, number>>> = {
  sync: { text: 330, confirm: 330, select: 360 },
  async: { text: 450, confirm: 450, select: 450 },
};
const CHANNEL_TARGET_BYTES = 600;
/** The channel kinds: confirm asked on Telegram, one recipient (chat) per ask. */
const CHANNEL_FORMAT = 'confirm';
/** Events appended to each ask in the per-event row: a delivery, two reminders and an escalation's worth. */
const EVENTS_PER_ASK = 4;

type Kind = { mode: 'sync' | 'async'; format: (typeof FORMATS)[number]; channel: boolean };

const KINDS: Kind[] = [
  ...(['sync', 'async'] as const).flatMap((mode) => FORMATS.map((format) => ({ mode, format, channel: false }))),
  { mode: 'sync', format: CHANNEL_FORMAT, channel: true },
  { mode: 'async', format: CHANNEL_FORMAT, channel: true },
];

const kindName = (k: Kind): string => `${k.mode} ${k.format}${k.channel ? ' on telegram' : ''}`;
const countName = (k: Kind): string => `${k.mode}_${k.format}${k.channel ? '_telegram' : ''}_pending`;

function body({ format, mode, channel }: Kind, i: number, expiry: string): Record<string, unknown> {
  const b: Record<string, unknown> = {
    question: `Deploy build ${100_000 + i} of payments-api to production?`,
    answer_format: format,
  };
  // A private chat id of Telegram's length, one per ask (the fake answers with it as the message's chat).
  if (channel) Object.assign(b, { channel: 'telegram', recipient: String(5_000_000_000 + i) });
  if (format === 'select') b['choices'] = ['staging', 'canary', 'production', 'skip'];
  if (format === 'form') b['schema'] = FORM_SCHEMA;
  if (mode === 'sync') b['timeout'] = 86_400;
  else
    Object.assign(b, {
      mode: 'async',
      expiry_at: expiry,
      run: { run_id: `mem-${format}${channel ? '-tg' : ''}-${i}`, resume: { handler: 'bench' } },
    });
  return b;
}

/** Counts the asks that hold a deadline, across the buckets of the pending zset (KEYS[1]). */
const COUNT_DEADLINES = resolveLua(`--- @include "includes/bucketEntries"
local count = 0
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local _, _, dls = bucketEntries(member)
  for k = 1, #dls do if dls[k] > 0 then count = count + 1 end end
end
return count
`);

/** Fields starting with `fieldPrefix` in the hashes matching `pattern` (the bucketed lookups, redis/lookups.ts). */
async function countFields(redis: Redis, pattern: string, fieldPrefix: string): Promise<number> {
  let count = 0;
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 10_000);
    for (const key of found) for (const field of await redis.hkeys(key)) if (field.startsWith(fieldPrefix)) count += 1;
    cursor = next;
  } while (cursor !== '0');
  return count;
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  const m = /^used_memory:(\d+)/m.exec(info);
  if (m === null) throw new Error('INFO memory has no used_memory');
  return Number(m[1]);
}

export async function memory(size: Size): Promise<BenchResult> {
  const started = Date.now();
  // Tiny still writes enough asks that allocator noise cannot swamp the growth it measures.
  const n = size.tiny ? 1_000 : 100_000;
  const redis = await startRedis();
  const direct = new Redis(redis.url);
  const telegram: FakeTelegram = await startFakeTelegram({ limits: null });
  // Channel asks carry a callback URL (so a ticket); loopback http is allowed and nothing calls it.
  const seeder = await openSeeder(redis.url, { INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9' });
  // The real plugin, paced in this process only and opened wide: the bench measures what a delivered ask keeps.
  seeder.gateway.channels.register(
    new TelegramChannel({
      botToken: FAKE_BOT_TOKEN,
      webhookSecret: 'bench-webhook-secret',
      apiRoot: telegram.apiRoot,
      pacing: { globalPerSecond: 1_000_000, perChatBurst: 1_000 },
    }),
  );
  const figures: Figure[] = [];
  const counts: Record<string, number> = { per_kind: n };
  const expiry = new Date(Date.now() + 86_400_000).toISOString();
  try {
    for (const kind of KINDS) {
      // Warm-up: the first asks of a kind load its scripts and grow allocator pools; none of that is per-question.
      // Its recipients (chats) are not the measured ones: numbers from n up.
      await pool(size.tiny ? 100 : 300, 32, (i) => seeder.ask(body(kind, n + i, expiry)).then(() => undefined));
      await direct.flushall('SYNC');
      const sentBefore = telegram.calls.filter((c) => c.method === 'sendMessage' && c.status === 200).length;
      const before = await usedMemory(direct);
      await pool(n, 32, async (i) => {
        await seeder.ask(body(kind, i, expiry));
      });
      const grown = (await usedMemory(direct)) - before;
      // Every pending ask, sync or async, has one deadline: the count proves all N were written.
      const keys = new Keys(seeder.gateway.config.redisPrefix);
      counts[countName(kind)] = Number(await direct.eval(COUNT_DEADLINES, 1, keys.pending));
      if (kind.channel) {
        // Each was delivered (its message accepted by the fake) and is findable by its recipient and its message.
        counts[`${kind.mode}_telegram_sent`] =
          telegram.calls.filter((c) => c.method === 'sendMessage' && c.status === 200).length - sentBefore;
        counts[`${kind.mode}_telegram_recipient_indexes`] = await countFields(
          direct,
          `${keys.recipientBucketPrefix}*`,
          'telegram:',
        );
        // A Telegram ref is `<chat>:<message>`: found through the recipient index, so it needs no lookup field.
        counts[`${kind.mode}_telegram_delivery_refs`] = await countFields(
          direct,
          `${keys.deliveryBucketPrefix}*`,
          'telegram:',
        );
      }

      await direct.flushall('SYNC');
      const baseBefore = await usedMemory(direct);
      for (let start = 0; start < n; start += 1_000) {
        const pipe = direct.pipeline();
        for (let i = start; i < Math.min(n, start + 1_000); i++) {
          // An id as long as askgate's, so the baseline pays the same for naming a question.
          const id = randomBytes(12).toString('base64url');
          pipe.set(`q:${id}`, JSON.stringify(body(kind, i, expiry)));
          pipe.zadd('q:pending', i, id);
        }
        await pipe.exec();
      }
      const baseGrown = (await usedMemory(direct)) - baseBefore;
      const limit = kind.channel ? CHANNEL_TARGET_BYTES : TARGET_BYTES[kind.mode][kind.format];
      const notes = [
        ...(kind.mode === 'async'
          ? ['includes the parked run, one per ask (folded: an rf: bucket entry, no run hash)']
          : []),
        ...(kind.channel ? ['delivered: ticket, recipient index (one recipient per ask), delivery refs'] : []),
      ];
      figures.push(
        figure({
          name: kindName(kind),
          unit: 'bytes/ask',
          value: grown / n,
          baseline: baseGrown / n,
          target: limit === undefined ? null : { op: '<=', limit, on: 'value' },
          ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
        }),
      );
    }
    const audit = await auditRows(direct, seeder, n, expiry);
    figures.push(...audit.figures);
    counts['audit_events_per_ask'] = EVENTS_PER_ASK;
    counts['audit_events_read'] = audit.eventsRead;
  } finally {
    direct.disconnect();
    await seeder.close();
    await telegram.close();
    await redis.stop();
  }
  return {
    name: NAME,
    title: 'Memory per pending question (Redis used_memory growth)',
    baseline: 'the ask body JSON in one string + one sorted-set member',
    figures,
    counts,
    skipped: null,
    durationMs: Date.now() - started,
  };
}

/** The audit trail's rows (see the header): sealing `created`, and the bytes per further event. */
async function auditRows(
  direct: Redis,
  seeder: Seeder,
  n: number,
  expiry: string,
): Promise<{ figures: Figure[]; eventsRead: number }> {
  const { service, store } = seeder.gateway;
  await direct.flushall('SYNC');
  const ids: string[] = [];
  await pool(n, 32, async (i) => {
    ids[i] = await seeder.ask(body({ mode: 'sync', format: 'text', channel: false }, i, expiry));
  });
  const pending = await usedMemory(direct);
  // Every event read back after the appends: the smoke test checks it is N × (EVENTS_PER_ASK + 1).
  let eventsRead = 0;
  await pool(n, 32, async (i) => {
    await service.events(ids[i] as string);
  });
  const sealed = await usedMemory(direct);
  await pool(n, 32, async (i) => {
    const id = ids[i] as string;
    for (let k = 0; k < EVENTS_PER_ASK; k++) {
      await store.appendEvent(id, { type: 'reminded', surface: 'slack', by: 'askgate', detail: { n: k + 1 } });
    }
    // Read first, then add: `eventsRead += await ...` would read the sum before the await and lose updates.
    const read = (await service.events(id)).items.length;
    eventsRead += read;
  });
  const withEvents = await usedMemory(direct);

  // The baseline: a bare hash per event, in a list of its own per question.
  await direct.flushall('SYNC');
  const baseBefore = await usedMemory(direct);
  for (let start = 0; start < n; start += 1_000) {
    const pipe = direct.pipeline();
    for (let i = start; i < Math.min(n, start + 1_000); i++) pipe.rpush(`a:${ids[i]}`, randomBytes(32).toString('hex'));
    await pipe.exec();
  }
  const baseOne = (await usedMemory(direct)) - baseBefore;
  const figures = [
    figure({
      name: 'audit: created sealed',
      unit: 'bytes/ask',
      value: (sealed - pending) / n,
      baseline: baseOne / n,
      target: null,
      note: 'first read of a pending ask trail: the hash of its derived created event',
    }),
    figure({
      name: 'audit: per event',
      unit: 'bytes/event',
      value: (withEvents - sealed) / (n * EVENTS_PER_ASK),
      baseline: baseOne / n,
      target: null,
      note: `${EVENTS_PER_ASK} reminded events per ask, stored and sealed, inside the record`,
    }),
  ];
  return { figures, eventsRead };
}
