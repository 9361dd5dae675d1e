import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/http.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startRedisServer as startRedis, type RedisServerHandle as RedisHandle } from '../helpers/redis-server.js';

/** Two `askgate serve` processes and one `askgate worker` on one real Redis behave as one gateway. */

const TOKEN = 'multi-process-token-0123456789';
let redis: RedisHandle;
let a: GatewayProcess;
let b: GatewayProcess;
let worker: GatewayProcess;

beforeAll(async () => {
  redis = await startRedis();
  const env = {
    REDIS_URL: redis.url,
    ASKGATE_REDIS_PREFIX: '{mp}:',
    ASKGATE_TOKENS: JSON.stringify({ [TOKEN]: { identity: 'ops', scopes: ['read', 'write', 'answer'] } }),
  };
  [a, b, worker] = await Promise.all([
    spawnGateway('serve', env),
    spawnGateway('serve', env),
    spawnGateway('worker', env),
  ]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), worker?.stop()]);
  await redis?.stop();
});

function openStream(url: string): {
  events: Array<{ type: string; data: Record<string, unknown> }>;
  opened: Promise<void>;
  close(): void;
} {
  const events: Array<{ type: string; data: Record<string, unknown> }> = [];
  const source = new EventSource(`${url}/api/interactions/stream`, {
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${TOKEN}` },
      }),
  });
  for (const type of ['interaction.created', 'interaction.answered', 'interaction.expired', 'interaction.cancelled']) {
    source.addEventListener(type, (e) =>
      events.push({ type, data: JSON.parse((e as MessageEvent<string>).data) as Record<string, unknown> }),
    );
  }
  const opened = new Promise<void>((resolve, reject) => {
    source.onopen = () => resolve();
    source.onerror = (e) => reject(new Error(`stream failed: ${String((e as { message?: string }).message)}`));
  });
  return { events, opened, close: () => source.close() };
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('two serve processes and a worker on one Redis', () => {
  it('streams every event to a subscriber on either process (EventSource)', async () => {
    const onA = openStream(a.url as string);
    const onB = openStream(b.url as string);
    await Promise.all([onA.opened, onB.opened]);
    const created = await api(a.url as string, TOKEN).post('/api/interactions', {
      question: 'Deploy?',
      answer_format: 'confirm',
    });
    const id = created.json['id'] as string;
    await api(b.url as string, TOKEN).post(`/api/interactions/${id}/answer`, { answer: true });
    for (const stream of [onA, onB]) {
      await until(
        () => stream.events.some((e) => e.type === 'interaction.answered' && e.data['id'] === id),
        'the answered event',
      );
      const mine = stream.events.filter((e) => e.data['id'] === id).map((e) => e.type);
      expect(mine).toEqual(['interaction.created', 'interaction.answered']);
      expect(stream.events.find((e) => e.type === 'interaction.answered')?.data['result']).toMatchObject({
        answer: true,
      });
    }
    onA.close();
    onB.close();
  });

  it('wakes a result wait on one process when the answer lands on the other', async () => {
    const created = await api(a.url as string, TOKEN).post('/api/interactions', {
      question: 'Which region?',
      answer_format: 'select',
      choices: ['eu', 'us'],
    });
    const id = created.json['id'] as string;
    const waiting = api(a.url as string, TOKEN).get(`/api/interactions/${id}/result?wait=30`);
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    await api(b.url as string, TOKEN).post(`/api/interactions/${id}/answer`, { answer: 'eu' });
    const result = await waiting;
    expect(result.json['status']).toBe('answered');
    expect((result.json['result'] as Record<string, unknown>)['answer']).toBe('eu');
    // Woken by pub/sub, not by the end of the 30 s wait.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('lets the worker expire a sync ask whose timeout passes, seen by both serve processes', async () => {
    const created = await api(a.url as string, TOKEN).post('/api/interactions', {
      question: 'Fast?',
      answer_format: 'confirm',
      timeout: 0.5,
    });
    const id = created.json['id'] as string;
    const result = await api(b.url as string, TOKEN).get(`/api/interactions/${id}/result?wait=10`);
    expect(result.json['status']).toBe('expired');
    expect((await api(a.url as string, TOKEN).get(`/api/interactions/${id}`)).json['status']).toBe('expired');
  });

  it('lets one of many concurrent answers spread over both processes win', async () => {
    const created = await api(a.url as string, TOKEN).post('/api/interactions', {
      question: 'Name?',
      answer_format: 'text',
    });
    const id = created.json['id'] as string;
    const answers = Array.from({ length: 40 }, (_, i) =>
      api((i % 2 ? a.url : b.url) as string, TOKEN).post(`/api/interactions/${id}/answer`, { answer: `n${i}` }),
    );
    const statuses = (await Promise.all(answers)).map((r) => r.json['status']);
    expect(statuses.filter((s) => s === 'answered')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'already_answered')).toHaveLength(39);
  });
});
