import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamsWorld, type TeamsWorld } from './teams-harness.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { startVerifyingServer, webhookSecret } from '../park/helpers.js';

/**
 * A Teams message that answers no question is a conversation turn for the route on `teams` (docs/parks.md,
 * "Routes"): the route's webhook target answers at once, and askgate posts its reply into the message's thread.
 */
describe('teams: conversation turns', () => {
  const SECRET = webhookSecret();
  const TOKEN = 'teams-routes-token-0123456789abcdef';
  let redis: RedisServerHandle;
  let target: { url: string; close(): Promise<void> };
  const turns: Array<Record<string, unknown>> = [];
  let w: TeamsWorld;

  beforeAll(async () => {
    redis = await startRedisServer();
    target = await startVerifyingServer(
      SECRET,
      (delivery, res) => {
        turns.push(delivery.body);
        const turn = delivery.body['turn'] as { text: string };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: `echo: ${turn.text}` }));
      },
      () => undefined,
    );
    w = await startTeamsWorld({
      REDIS_URL: redis.url,
      ASKGATE_REDIS_PREFIX: `{tmroute${Date.now()}}:`,
      ASKGATE_TOKENS: JSON.stringify({
        [TOKEN]: { identity: 'concierge', scopes: ['read', 'write', 'answer'], webhook_secret: SECRET },
      }),
      ASKGATE_ROUTES: JSON.stringify([
        { channel: 'teams', identity: 'concierge', target: { webhook: `${target.url}/turn` } },
      ]),
    });
  });
  afterAll(async () => {
    await w.close();
    await target.close();
    await redis.stop();
  });

  it('a message in a channel that replies to no question goes to the route, and its reply lands in the thread', async () => {
    const channel = await w.conversation('channel');
    const said = await w.fake.say(channel, '<at>askgate</at> status of the deploy?', { id: 'msg-1' });
    expect(said.status).toBe(200);
    for (let i = 0; w.fake.messagesIn(channel).length === 0; i++) {
      if (i > 500) throw new Error('no reply was posted');
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(turns).toHaveLength(1);
    expect(turns[0]?.['turn']).toMatchObject({ channel: 'teams', text: 'status of the deploy?' });
    expect(w.fake.messagesIn(channel).map((m) => [m.replyToId, m.activity['text']])).toEqual([
      ['msg-1', 'echo: status of the deploy?'],
    ]);
  });
});
