import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';

/**
 * The baseline of the answer-throughput and stream-fan-out benchmarks: the least a server can do for the same
 * effect as askgate's answer door — read the JSON body, claim the question in one Redis script call (pending →
 * answered, out of the pending set, an event published), answer 200 — and the least an SSE door can do: one Redis
 * subscription whose messages are written to every open response. No auth, no validation, no framework, no logging.
 * Run as its own process (like the gateway) so both get the same CPU budget. env: REDIS_URL.
 */

export const BASELINE_PREFIX = 'b:';

/** KEYS: record, pending set. ARGV: id, answer JSON. The same claim askgate's resolve script makes, minus the rest. */
const CLAIM = `
if redis.call('GET', KEYS[1]) ~= 'pending' then return 0 end
redis.call('SET', KEYS[1], 'answered:' .. ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('PUBLISH', '${BASELINE_PREFIX}events', ARGV[1])
return 1`;

type ClaimClient = Redis & { claim(record: string, pending: string, id: string, answer: string): Promise<number> };

async function main(): Promise<void> {
  const url = process.env['REDIS_URL'];
  if (url === undefined) throw new Error('REDIS_URL is required');
  const redis = new Redis(url) as ClaimClient;
  redis.defineCommand('claim', { lua: CLAIM, numberOfKeys: 2 });
  const subscriber = new Redis(url);
  const streams = new Set<ServerResponse>();
  await subscriber.subscribe(`${BASELINE_PREFIX}events`);
  subscriber.on('message', (_channel: string, id: string) => {
    const frame = `event: answered\nid: ${id}\ndata: {"id":"${id}"}\n\n`;
    for (const res of streams) res.write(frame);
  });

  const server = createServer((req, res) => {
    const answer = /^\/answer\/([\w-]+)$/.exec(req.url ?? '');
    if (req.method === 'POST' && answer !== null) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          res.writeHead(400).end();
          return;
        }
        if (body === null || typeof body !== 'object' || !('answer' in body)) {
          res.writeHead(400).end();
          return;
        }
        const id = answer[1] as string;
        redis
          .claim(
            `${BASELINE_PREFIX}i:${id}`,
            `${BASELINE_PREFIX}pending`,
            id,
            JSON.stringify((body as { answer: unknown }).answer),
          )
          .then((won) => {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(won === 1 ? '{"status":"answered"}' : '{"status":"already_answered"}');
          })
          .catch(() => res.writeHead(500).end());
      });
      return;
    }
    if (req.method === 'GET' && req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(': connected\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`baseline listening on http://127.0.0.1:${port}\n`);
  });
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close();
    redis.disconnect();
    subscriber.disconnect();
  });
}

// Only when run as a process: the benchmarks import BASELINE_PREFIX from this module.
if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  main().catch((err: unknown) => {
    process.stderr.write(`baseline server failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
