import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Keys } from '../src/store/keys.js';
import { BUCKETS } from '../src/store/redis/scripts/fragments.js';
import { figure, pool, type BenchResult, type Figure, type Size } from './harness.js';
import { startRedis } from './processes.js';
import { openSeeder, type Seeder } from './seed.js';

/**
 * 3. Memory per pending question: Redis `used_memory` growth over N pending asks of each format, sync and async,
 * written through the real service (validation, record codec, the create / park-run scripts). Form asks all use one
 * schema, which the store keeps once. Each kind starts from an empty database, so kinds do not share keys.
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
const TARGET_BYTES = 600;
/** Events appended to each ask in the per-event row: a delivery, two reminders and an escalation's worth. */
const EVENTS_PER_ASK = 4;

function body(
  format: (typeof FORMATS)[number],
  mode: 'sync' | 'async',
  i: number,
  expiry: string,
): Record<string, unknown> {
  const b: Record<string, unknown> = {
    question: `Deploy build ${100_000 + i} of payments-api to production?`,
    answer_format: format,
  };
  if (format === 'select') b['choices'] = ['staging', 'canary', 'production', 'skip'];
  if (format === 'form') b['schema'] = FORM_SCHEMA;
  if (mode === 'sync') b['timeout'] = 86_400;
  else
    Object.assign(b, {
      mode: 'async',
      expiry_at: expiry,
      run: { run_id: `mem-${format}-${i}`, resume: { handler: 'bench' } },
    });
  return b;
}

/** Counts the asks that hold a deadline, across the buckets of the pending zset (KEYS[1]). */
const COUNT_DEADLINES = `${BUCKETS}
local count = 0
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local _, _, dls = bucketEntries(member)
  for k = 1, #dls do if dls[k] > 0 then count = count + 1 end end
end
return count
`;

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
  const seeder = await openSeeder(redis.url);
  const figures: Figure[] = [];
  const counts: Record<string, number> = { per_kind: n };
  const expiry = new Date(Date.now() + 86_400_000).toISOString();
  try {
    for (const mode of ['sync', 'async'] as const) {
      for (const format of FORMATS) {
        // Warm-up: the first asks of a kind load its scripts and grow allocator pools; none of that is per-question.
        await pool(size.tiny ? 100 : 300, 32, (i) => seeder.ask(body(format, mode, i, expiry)).then(() => undefined));
        await direct.flushall('SYNC');
        const before = await usedMemory(direct);
        await pool(n, 32, async (i) => {
          await seeder.ask(body(format, mode, i, expiry));
        });
        const grown = (await usedMemory(direct)) - before;
        // Every pending ask, sync or async, has one deadline: the count proves all N were written.
        const pendingKey = new Keys(seeder.gateway.config.redisPrefix).pending;
        counts[`${mode}_${format}_pending`] = Number(await direct.eval(COUNT_DEADLINES, 1, pendingKey));

        await direct.flushall('SYNC');
        const baseBefore = await usedMemory(direct);
        for (let start = 0; start < n; start += 1_000) {
          const pipe = direct.pipeline();
          for (let i = start; i < Math.min(n, start + 1_000); i++) {
            // An id as long as askgate's, so the baseline pays the same for naming a question.
            const id = randomBytes(12).toString('base64url');
            pipe.set(`q:${id}`, JSON.stringify(body(format, mode, i, expiry)));
            pipe.zadd('q:pending', i, id);
          }
          await pipe.exec();
        }
        const baseGrown = (await usedMemory(direct)) - baseBefore;
        const limited = format !== 'form';
        figures.push(
          figure({
            name: `${mode} ${format}`,
            unit: 'bytes/ask',
            value: grown / n,
            baseline: baseGrown / n,
            target: limited ? { op: '<=', limit: TARGET_BYTES, on: 'value' } : null,
            ...(mode === 'async' ? { note: 'includes the run hash of the parked run (one run per ask)' } : {}),
          }),
        );
      }
    }
    figures.push(...(await auditRows(direct, seeder, n, expiry)));
    counts['audit_events_per_ask'] = EVENTS_PER_ASK;
  } finally {
    direct.disconnect();
    await seeder.close();
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
async function auditRows(direct: Redis, seeder: Seeder, n: number, expiry: string): Promise<Figure[]> {
  const { service, store } = seeder.gateway;
  await direct.flushall('SYNC');
  const ids: string[] = [];
  await pool(n, 32, async (i) => {
    ids[i] = await seeder.ask(body('text', 'sync', i, expiry));
  });
  const pending = await usedMemory(direct);
  await pool(n, 32, async (i) => {
    await service.events(ids[i] as string);
  });
  const sealed = await usedMemory(direct);
  await pool(n, 32, async (i) => {
    const id = ids[i] as string;
    for (let k = 0; k < EVENTS_PER_ASK; k++) {
      await store.appendEvent(id, { type: 'reminded', surface: 'slack', by: 'askgate', detail: { n: k + 1 } });
    }
    const items = (await service.events(id)).items;
    if (items.length !== EVENTS_PER_ASK + 1) throw new Error(`ask ${id} has ${items.length} events`);
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
  return [
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
}
