import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshConversation, startTeamsWorld, type TeamsWorld } from './teams-harness.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/**
 * Two gateways sending as one Teams app over one Redis, against the fake Bot Framework that rate-limits each
 * conversation as Teams documents (7 per 1 s, 8 per 2 s, 60 per 30 s) and counts a call that comes back before a
 * Retry-After it was given. What is judged is what the fake saw: its 429s and its early retries (a loaded host can
 * only make a call later, never earlier).
 */
describe('teams: pacing shared across processes', () => {
  let redis: RedisServerHandle;
  let w: TeamsWorld;
  let other: TestGateway;
  let b: Api;

  beforeAll(async () => {
    redis = await startRedisServer();
    const env = { REDIS_URL: redis.url, ASKGATE_REDIS_PREFIX: `{tmpace${Date.now()}}:` };
    w = await startTeamsWorld(env);
    other = await startTestGateway({
      ...env,
      TEAMS_APP_ID: w.fake.appId,
      TEAMS_APP_PASSWORD: w.fake.appPassword,
      TEAMS_TENANT_ID: w.fake.tenantId,
      TEAMS_LOGIN_URL: w.fake.loginUrl,
      TEAMS_OPENID_METADATA_URL: w.fake.metadataUrl,
      INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    });
    b = api(other.url, other.token);
  });
  afterAll(async () => {
    await other.close();
    await w.close();
    await redis.stop();
  });

  const ask = (http: Api, recipient: string, question: string) =>
    http.post('/api/interactions', { question, answer_format: 'confirm', channel: 'teams', recipient });

  it('twelve questions into one conversation from two processes stay within its limits (and B knows what A heard)', async () => {
    // Installed through the first gateway only: the second learns the conversation from the shared state.
    const conversation = await w.conversation();
    const asks = Array.from({ length: 12 }, (_, i) => ask(i % 2 === 0 ? w.http : b, conversation, `Q${i}?`));
    const statuses = (await Promise.all(asks)).map((r) => r.status);
    expect(statuses).toEqual(Array.from({ length: 12 }, () => 201));
    expect(w.fake.messagesIn(conversation)).toHaveLength(12);
    expect(w.fake.throttled).toBe(0);
  });

  it('a 429 is waited out by every process: no call into the conversation comes back before its Retry-After', async () => {
    const conversation = await w.conversation();
    const throttledBefore = w.fake.throttled;
    w.fake.tooManyRequests(conversation, 1);
    const first = ask(b, conversation, 'Throttled?');
    // Once the fake has answered the 429, the other process sends into the same conversation.
    for (let i = 0; w.fake.throttled === throttledBefore; i++) {
      if (i > 500) throw new Error('the fake never answered 429');
      await new Promise((r) => setTimeout(r, 10));
    }
    const second = ask(w.http, conversation, 'Right after?');
    expect([(await first).status, (await second).status]).toEqual([201, 201]);
    expect(w.fake.throttled - throttledBefore).toBe(1);
    expect(w.fake.earlyRetries).toBe(0);
    expect(w.fake.messagesIn(conversation).map((m) => m.activity['attachments'] !== undefined)).toEqual([true, true]);
  });

  it('a conversation no process heard from is refused on either gateway', async () => {
    const silent = freshConversation();
    w.fake.addSilentConversation(silent);
    expect((await ask(b, silent, 'Nobody?')).json).toMatchObject({ field: 'recipient' });
  });
});
