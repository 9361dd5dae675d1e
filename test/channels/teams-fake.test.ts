import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTeams, SCOPE, type FakeTeams } from '../fakes/teams-server.js';

type Json = Record<string, unknown>;

/**
 * The fake Bot Framework refuses what Teams refuses, driven with plain fetch (askgate's own client is fetch too):
 * a token only for the app's credentials and scope, the connector only with a token it issued, an unknown
 * conversation, a message over 40 KB as UTF-16, an Action.Execute without a verb, and the per-conversation rate.
 */
describe('the fake Bot Framework', () => {
  let fake: FakeTeams;
  let token: string;
  beforeAll(async () => {
    fake = await startFakeTeams();
  });
  afterAll(async () => fake.close());

  const tokenWith = (form: Record<string, string>) =>
    fetch(`${fake.loginUrl}/${fake.tenantId}/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  const send = (conversation: string, activity: Json, bearer = token) =>
    fetch(`${fake.serviceUrl}v3/conversations/${encodeURIComponent(conversation)}/activities`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify(activity),
    });
  const text = (words: string): Json => ({ type: 'message', text: words });

  it('issues a token for the app’s client credentials and scope only', async () => {
    const good = {
      grant_type: 'client_credentials',
      client_id: fake.appId,
      client_secret: fake.appPassword,
      scope: SCOPE,
    };
    expect((await tokenWith({ ...good, client_secret: 'wrong' })).status).toBe(401);
    expect((await tokenWith({ ...good, scope: 'https://graph.microsoft.com/.default' })).status).toBe(400);
    const res = await tokenWith(good);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3599 });
    token = body['access_token'] as string;
  });

  it('refuses a token it did not issue, an unknown conversation, a big message and a card without a verb', async () => {
    fake.addSilentConversation('a:fake-self');
    expect((await send('a:fake-self', text('hi'), 'made-up')).status).toBe(401);
    expect(await (await send('a:nobody', text('hi'))).json()).toMatchObject({
      error: { code: 'ConversationNotFound' },
    });
    const big = await send('a:fake-self', text('x'.repeat(20 * 1024)));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: { code: 'MessageSizeTooBig' } });
    const card = { type: 'AdaptiveCard', version: '1.4', body: [], actions: [{ type: 'Action.Execute', title: 'Go' }] };
    const noVerb = await send('a:fake-self', {
      type: 'message',
      attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: card }],
    });
    expect(noVerb.status).toBe(400);
    expect((await send('a:fake-self', text('fine'))).status).toBe(201);
  });

  it('answers the eighth message within two seconds into one conversation with 429 and Retry-After', async () => {
    fake.addSilentConversation('a:fake-burst');
    const responses = await Promise.all(Array.from({ length: 9 }, (_, i) => send('a:fake-burst', text(`m${i}`))));
    const statuses = responses.map((r) => r.status).sort();
    const retryAfter = responses.find((r) => r.status === 429)?.headers.get('retry-after') ?? null;
    // 7 per second: the eighth of a burst is refused, and so is every call before its Retry-After.
    expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 201, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(fake.earlyRetries).toBe(1);
  });
});
