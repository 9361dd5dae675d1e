import type { Redis } from 'ioredis';

/**
 * A Redis snapshot for the "a refusal writes nothing" property: every key and its serialised value, and the keys a
 * request added or changed since a snapshot.
 */

/** Every key (but those `skip` matches) and its serialised value. */
export async function snapshot(raw: Redis, skip?: RegExp): Promise<Map<string, string | null>> {
  const keys = (await raw.keys('*')).filter((k) => skip === undefined || !skip.test(k)).sort();
  const pipeline = raw.pipeline();
  for (const key of keys) pipeline.dumpBuffer(key);
  const values = ((await pipeline.exec()) ?? []).map(([, v]) => (Buffer.isBuffer(v) ? v.toString('base64') : null));
  return new Map(keys.map((k, i) => [k, values[i] ?? null]));
}

/** The keys added or changed since `before` (a key that vanished is not counted: counters expire on their own). */
export async function written(raw: Redis, before: Map<string, string | null>, skip?: RegExp): Promise<string[]> {
  const after = await snapshot(raw, skip);
  return [...after].filter(([k, v]) => !before.has(k) || before.get(k) !== v).map(([k]) => k);
}

/** Waits until Redis stops changing (queues write their metadata shortly after start). */
export async function settle(raw: Redis, skip?: RegExp): Promise<void> {
  let last = '';
  for (let i = 0; i < 50; i++) {
    const now = JSON.stringify([...(await snapshot(raw, skip))]);
    if (now === last && now !== '[]') return;
    last = now;
    await new Promise((r) => setTimeout(r, 200));
  }
}
