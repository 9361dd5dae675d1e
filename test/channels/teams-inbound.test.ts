import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTeamsWorld, type TeamsWorld } from './teams-harness.js';
import { teamsConfig } from '../../channels/teams/config.js';
import { TeamsKeys, verify } from '../../channels/teams/verify.js';
import { ConfigError } from '../../src/config-env.js';
import { startFakeTeams, type FakeTeams, type SignOptions } from '../fakes/teams-server.js';

type Json = Record<string, unknown>;

/**
 * The Bot Framework's JWT, checked before a byte is read: through the real door (401, nothing changed) and through
 * `verify` with a fake clock (the 5 minutes of skew), the keys from the fake's metadata → jwks_uri.
 */
describe('teams: inbound tokens at the door', () => {
  let w: TeamsWorld;
  beforeAll(async () => {
    w = await startTeamsWorld();
  });
  afterAll(async () => w.close());

  const refusals: Array<[string, SignOptions]> = [
    ['no Authorization header', { key: 'none' }],
    ['a key the JWKS never published', { key: 'stranger' }],
    ['another issuer', { issuer: 'https://sts.windows.net/evil/' }],
    ['another audience', { audience: '00000000-0000-0000-0000-000000000bad' }],
    ['expired more than 5 minutes ago', { expiresIn: -301 }],
    ['a serviceurl claim that is not the activity’s', { serviceUrl: 'https://smba.evil.example/teams/' }],
  ];
  for (const [what, sign] of refusals) {
    it(`a tap signed with ${what} is 401 and changes nothing`, async () => {
      const { id, message } = await w.ask({ question: `Refused (${what})?`, answer_format: 'confirm' });
      const tap = await w.fake.press(message, 'Yes', { sign });
      expect(tap.status).toBe(401);
      expect(tap.body).toMatchObject({ error: 'unauthorized' });
      expect((await w.record(id))['status']).toBe('pending');
      expect(message.history).toHaveLength(1);
    });
  }
});

describe('teams: key rotation', () => {
  it('a key rotated since the keys were fetched: the unknown kid makes askgate fetch them again, once', async () => {
    // Its own world: a refused unknown kid above may have spent this minute's refetch (see verify.ts).
    const w = await startTeamsWorld();
    onTestFinished(() => w.close());
    const { id, message } = await w.ask({ question: 'After rotation?', answer_format: 'confirm' });
    // The keys are held by now (every ask above installed a conversation with a signed activity).
    const before = { ...w.fake.counts };
    await w.fake.rotateKey();
    const tap = await w.fake.press(message, 'Yes');
    expect(tap.status).toBe(200);
    expect((await w.record(id))['status']).toBe('answered');
    expect(w.fake.counts.metadata - before.metadata).toBe(1);
    expect(w.fake.counts.jwks - before.jwks).toBe(1);
    // The new key is held now: the next activity fetches nothing.
    await w.conversation();
    expect(w.fake.counts.metadata - before.metadata).toBe(1);
  });
});

describe('teams: verify with a fake clock', () => {
  let fake: FakeTeams;
  beforeAll(async () => {
    fake = await startFakeTeams();
  });
  afterAll(async () => fake.close());

  const activity: Json = { type: 'message', id: '1', serviceUrl: 'https://smba.trafficmanager.net/emea/' };
  const input = async (sign: SignOptions, now: number) => ({
    secret: fake.appId,
    rawBody: Buffer.from(JSON.stringify(activity)),
    headers: { authorization: `Bearer ${await fake.token(activity, sign)}` },
    now,
  });

  it('accepts a token up to 5 minutes past its exp, and refuses it after', async () => {
    const keys = new TeamsKeys({ metadataUrl: fake.metadataUrl });
    const signedAt = Date.now();
    // exp is 60 s after signing.
    expect(await verify(await input({ expiresIn: 60 }, signedAt + 60_000 + 299_000), keys)).toEqual({ ok: true });
    expect(await verify(await input({ expiresIn: 60 }, signedAt + 60_000 + 302_000), keys)).toEqual({
      ok: false,
      reason: 'the token has expired',
    });
  });

  it('fetches the keys again for an unknown kid at most once a cooldown, and again when they are old', async () => {
    const keys = new TeamsKeys({ metadataUrl: fake.metadataUrl, refetchCooldownMs: 60_000, maxAgeMs: 86_400_000 });
    const t0 = Date.now();
    expect(await verify(await input({}, t0), keys)).toEqual({ ok: true });
    expect(keys.fetches).toBe(1);
    // A kid the keys lack: one fetch; another within the minute: none (refused with the keys held).
    expect((await verify(await input({ key: 'stranger' }, t0 + 1000), keys)).ok).toBe(false);
    expect((await verify(await input({ key: 'stranger' }, t0 + 2000), keys)).ok).toBe(false);
    expect(keys.fetches).toBe(2);
    expect((await verify(await input({ key: 'stranger' }, t0 + 62_000), keys)).ok).toBe(false);
    expect(keys.fetches).toBe(3);
    // A day later the held keys are fetched again even for a known kid.
    expect(await verify(await input({ expiresIn: 90_000 }, t0 + 86_500_000), keys)).toEqual({ ok: true });
    expect(keys.fetches).toBe(4);
  });

  it('a metadata document that cannot be fetched rejects (the door answers 500 and the platform retries)', async () => {
    const keys = new TeamsKeys({ metadataUrl: `${fake.loginUrl}/no-such-metadata` });
    await expect(verify(await input({}, Date.now()), keys)).rejects.toThrow(/OpenID metadata answered 404/);
  });
});

describe('teams: configuration', () => {
  const all = { TEAMS_APP_ID: 'app', TEAMS_APP_PASSWORD: 'secret', TEAMS_TENANT_ID: 'tenant' };

  it('is off without its variables and reads the defaults of the optional ones', () => {
    expect(teamsConfig({})).toBeNull();
    expect(teamsConfig(all)).toEqual({
      appId: 'app',
      appPassword: 'secret',
      tenantId: 'tenant',
      loginUrl: 'https://login.microsoftonline.com',
      openIdMetadataUrl: 'https://login.botframework.com/v1/.well-known/openidconfiguration',
    });
  });

  it('stops a half-configured channel, naming the missing variable', () => {
    expect(() => teamsConfig({ TEAMS_APP_ID: 'app', TEAMS_APP_PASSWORD: 'secret' })).toThrow(
      /^TEAMS_TENANT_ID: is required with TEAMS_APP_ID, TEAMS_APP_PASSWORD; set it/,
    );
    expect(() => teamsConfig({ TEAMS_LOGIN_URL: 'https://login.example' })).toThrow(ConfigError);
    expect(() => teamsConfig({ TEAMS_LOGIN_URL: 'https://login.example' })).toThrow(
      /^TEAMS_APP_ID: is required with TEAMS_LOGIN_URL/,
    );
    expect(() => teamsConfig({ ...all, TEAMS_OPENID_METADATA_URL: 'not a url' })).toThrow(
      /^TEAMS_OPENID_METADATA_URL: is not a URL/,
    );
  });
});
