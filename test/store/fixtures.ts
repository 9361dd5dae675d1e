import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AskResult, StoredInteraction } from '../../src/core/types.js';

/** Records, answers and timing helpers for the store tests. */

/** How many shards fixture ids spread over (`spreadFixtureIds`); 1: plain ids, as one store holds. */
let fixtureShards = 1;
/** The last creation time handed out, so fixtures made one after another are never in the same millisecond. */
let lastCreatedMs = 0;

/**
 * Makes `makeInteraction` mint ids spread at random over `shards` shards (`<id>.<k>` for k ≥ 1, core/shard-ids.ts),
 * as a sharded store's router places them, so a contract run on a sharded store exercises every shard.
 */
export function spreadFixtureIds(shards: number): void {
  fixtureShards = shards;
}

/**
 * A minimal pending text ask; every test gets a fresh id. Fixtures made one after another get strictly increasing
 * creation times: a sharded store merges shards by creation time, and asks in two shards within one millisecond
 * have no order but their ids' (docs/scaling.md).
 */
export function makeInteraction(overrides: Partial<StoredInteraction> = {}): StoredInteraction {
  const now = Math.max(Date.now(), lastCreatedMs + 1);
  lastCreatedMs = now;
  const shard = randomInt(fixtureShards);
  return {
    id: shard === 0 ? `int_${randomUUID()}` : `int_${randomUUID()}.${shard}`,
    status: 'pending',
    question: 'Ship it?',
    answer_format: 'text',
    choices: null,
    schema: null,
    group_id: null,
    channel: null,
    recipient: null,
    mode: 'sync',
    created_at: new Date(now).toISOString(),
    deadline_at: new Date(now + 300_000).toISOString(),
    asked_by: 'ci-bot',
    media: null,
    link: false,
    verifier: null,
    to: 'person',
    payload: null,
    on_expiry: 'kill',
    run_id: null,
    result: null,
    resolved_at: null,
    ticket_hash: null,
    verifier_binding: null,
    delivery: null,
    ...overrides,
  };
}

export function answer(value: unknown, by = 'alice'): AskResult {
  return {
    answer: value,
    reply_to: null,
    params: null,
    answered_by: by,
    answered_at: new Date().toISOString(),
    surface: 'inbox',
  };
}

/** A stored ticket hash: 128 bits of a secret's SHA-256 in base64url, 22 characters (as src/core/ids.ts keeps). */
export function ticketHash(): string {
  return randomBytes(16).toString('base64url');
}

/** Polls `check` until it stops throwing, or rethrows its last failure after `timeoutMs` (a bound for a loaded host). */
export async function eventually(check: () => void | Promise<void>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(20);
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Every key under `prefix` on `client`, sorted (SCAN, so it is safe on a shared server). */
/**
 * The recipient index entries and delivery lookup fields a Redis store holds under `prefix`, as
 * `<channel>:<recipient>` and `<channel>:<ref>` (its `rb:` and `db:` bucket hashes, redis/lookups.ts).
 */
export async function lookupsUnder(
  client: Redis,
  prefix: string,
): Promise<{ recipients: string[]; deliveries: string[] }> {
  const recipients = new Set<string>();
  const deliveries: string[] = [];
  for (const key of await keysUnder(client, `${prefix}rb:`))
    for (const field of Object.keys(await client.hgetall(key))) recipients.add(field.slice(0, field.lastIndexOf(':')));
  for (const key of await keysUnder(client, `${prefix}db:`)) deliveries.push(...Object.keys(await client.hgetall(key)));
  return { recipients: [...recipients].sort(), deliveries: deliveries.sort() };
}

export async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    found.push(...batch);
  } while (cursor !== '0');
  return found.sort();
}
