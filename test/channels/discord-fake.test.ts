import { DiscordAPIError, REST } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APPLICATION_ID,
  DISCORD_BOT_TOKEN,
  FIRST_RESPONSE_MS,
  TOKEN_LIFETIME_MS,
  startFakeDiscord,
  type FakeDiscord,
} from '../fakes/discord-server.js';

/**
 * The fake Discord keeps Discord's interaction deadlines
 * (https://discord.com/developers/docs/interactions/receiving-and-responding#responding-to-an-interaction): a first
 * response within 3 seconds of the event, or the token is invalidated (10062 "Unknown interaction"); follow-ups on
 * the token for 15 minutes. Checked through @discordjs/rest, the client askgate uses, on the fake's own clock.
 */

let clock = 1_800_000_000_000;
let fake: FakeDiscord;
let rest: REST;
beforeAll(async () => {
  fake = await startFakeDiscord({ now: () => clock });
  rest = new REST({ api: fake.apiUrl, retries: 0 }).setToken(DISCORD_BOT_TOKEN);
});
afterAll(async () => {
  rest?.clearHashSweeper();
  rest?.clearHandlerSweeper();
  await fake?.close();
});

const refusal = async (p: Promise<unknown>): Promise<DiscordAPIError> => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof DiscordAPIError)) throw new Error(`expected a DiscordAPIError, got ${String(err)}`);
  return err;
};

const ACK = { type: 5 as const };

describe('the fake Discord: interaction deadlines', () => {
  it('takes a first response 3 s after the event, and refuses one later with 10062 Unknown interaction', async () => {
    const onTime = fake.mintInteraction();
    clock += FIRST_RESPONSE_MS;
    await rest.post(Routes.interactionCallback(onTime.id, onTime.token), { body: ACK, auth: false });

    const late = fake.mintInteraction();
    clock += 3500;
    const err = await refusal(rest.post(Routes.interactionCallback(late.id, late.token), { body: ACK, auth: false }));
    expect(err.status).toBe(404);
    expect(err.code).toBe(10062);
    // The token is gone for good: a follow-up cannot stand in for the missed response.
    const followUp = rest.post(Routes.webhook(APPLICATION_ID, late.token), { body: { content: 'late' }, auth: false });
    expect((await refusal(followUp)).code).toBe(50027);
  });

  it('takes follow-ups on an acknowledged token for 15 minutes, then refuses them with 50027', async () => {
    const it = fake.mintInteraction();
    // Not yet acknowledged: no follow-up.
    const early = rest.post(Routes.webhook(APPLICATION_ID, it.token), { body: { content: 'x' }, auth: false });
    expect((await refusal(early)).code).toBe(50027);
    await rest.post(Routes.interactionCallback(it.id, it.token), { body: ACK, auth: false });
    clock += TOKEN_LIFETIME_MS - 1000;
    await rest.post(Routes.webhook(APPLICATION_ID, it.token), { body: { content: 'in time' }, auth: false });
    await rest.patch(Routes.webhookMessage(APPLICATION_ID, it.token), { body: { content: 'edited' }, auth: false });
    expect(fake.followUps.filter((f) => f.token === it.token).map((f) => f.content)).toEqual(['in time']);
    clock += 2000;
    const expired = rest.post(Routes.webhook(APPLICATION_ID, it.token), { body: { content: 'late' }, auth: false });
    const err = await refusal(expired);
    expect(err.status).toBe(401);
    expect(err.code).toBe(50027);
  });

  it('answers an interaction once: a second first response is 40060', async () => {
    const it = fake.mintInteraction();
    await rest.post(Routes.interactionCallback(it.id, it.token), { body: ACK, auth: false });
    const again = rest.post(Routes.interactionCallback(it.id, it.token), { body: ACK, auth: false });
    expect((await refusal(again)).code).toBe(40060);
  });
});
