import { AskgateClient, type Continuation, type ContinuationWorker, startWorker } from 'askgate-sdk';
import { expect } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { createGateway, type Gateway } from '../../../src/gateway.js';
import { type Api, api } from '../../helpers/http.js';
import { type RedisServerHandle, startRedisServer } from '../../helpers/redis-server.js';

/**
 * What the adapter tests share: a gateway with its workers on a real redis-server (parks need a durable store), a
 * client of the SDK under test, the answer door as a person's surface, and a continuation worker whose handlers
 * each test sets.
 */

const TOKEN = 'review-adapter-test-0123456789ab';

export interface ReviewGateway {
  url: string;
  token: string;
  client: AskgateClient;
  /** The answer door, as a person answering in the inbox or through the API. */
  door: Api;
  /** Runs `handler` for continuations of `name` until the returned worker is closed. */
  worker(name: string, handler: (c: Continuation) => unknown): Promise<ContinuationWorker>;
  close(): Promise<void>;
}

export async function startReviewGateway(prefix: string): Promise<ReviewGateway> {
  const redis: RedisServerHandle = await startRedisServer();
  const gateway: Gateway = await createGateway(
    loadConfig({
      REDIS_URL: redis.url,
      ASKGATE_REDIS_PREFIX: `{${prefix}${Date.now()}}:`,
      LOG_LEVEL: 'silent',
      PORT: '0',
      HOST: '127.0.0.1',
      ASKGATE_TOKENS: JSON.stringify({ [TOKEN]: { identity: 'agent', scopes: ['read', 'write', 'answer'] } }),
    }),
    { workers: true },
  );
  const url = await gateway.listen();
  return {
    url,
    token: TOKEN,
    client: new AskgateClient({ url, token: TOKEN }),
    door: api(url, TOKEN),
    worker: (name, handler) => startWorker({ url, token: TOKEN, handlers: { [name]: handler }, backoffMs: 50 }),
    close: async () => {
      await gateway.close();
      await redis.stop();
    },
  };
}

/** A pending review as the gateway lists it. */
export interface PendingReviewRecord {
  id: string;
  question: string;
  action: { name: string; args: Record<string, unknown>; description?: string };
  decisions: string[];
  schema?: Record<string, unknown>;
}

/** Waits (bounded) until `count` reviews are pending, and returns them oldest first. */
export async function pendingReviews(door: Api, count: number): Promise<PendingReviewRecord[]> {
  const until = Date.now() + 20_000;
  for (;;) {
    const page = await door.get('/api/interactions?status=pending&limit=200');
    const items = (page.json['items'] as Array<Record<string, unknown>>).filter((r) => r['answer_format'] === 'review');
    if (items.length >= count) {
      expect(items).toHaveLength(count);
      return items as unknown as PendingReviewRecord[];
    }
    if (Date.now() > until) throw new Error(`${items.length} reviews pending, waited for ${count}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Answers a review through the answer door, and checks that this answer won. */
export async function answer(door: Api, id: string, value: unknown): Promise<void> {
  const res = await door.post(`/api/interactions/${id}/answer`, { answer: value });
  expect(res.json).toEqual({ status: 'answered' });
}

/** A promise and the function that resolves it: how a test hands a worker's result back to itself. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** An hour from now, as `expiry_at` wants it. */
export const inAnHour = (): string => new Date(Date.now() + 3_600_000).toISOString();
