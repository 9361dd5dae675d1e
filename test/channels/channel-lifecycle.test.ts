import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createGateway } from '../../src/gateway.js';
import { createLogger } from '../../src/observability/logger.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { type KeyServer, type LifecycleLog, probeChannel, signProbe, startKeyServer } from './probe-channel.js';

/**
 * The channel contract's I/O and lifecycle parts, through the real gateway with a channel it has never heard of:
 * an asynchronous webhook verify (keys fetched from a key server, cached, fetched again for an unknown key id) runs
 * before the body is parsed, and its refusal or failure changes nothing; start hooks run in registration order at
 * start, each awaited, told whether the process runs workers; stop hooks run in reverse at close, each awaited.
 */

const BASE = { INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9' };

describe('an asynchronous webhook verify, through the gateway', () => {
  let keys: KeyServer;
  let g: TestGateway;
  const log: LifecycleLog = [];
  beforeAll(async () => {
    keys = await startKeyServer();
    keys.keys.set('k1', 'first-key');
    g = await startTestGateway(BASE, { plugins: [probeChannel({ name: 'probe', log, keysUrl: keys.url })] });
  });
  afterAll(async () => {
    await g?.close();
    await keys?.close();
  });

  const ask = async (): Promise<string> => {
    const res = await api(g.url, g.token).post('/api/interactions', {
      question: 'Ship it?',
      answer_format: 'confirm',
      channel: 'probe',
      recipient: 'room-1',
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return res.json['id'] as string;
  };
  const statusOf = async (id: string) => (await api(g.url, g.token).get(`/api/interactions/${id}`)).json;
  const post = (body: string, kid: string, key: string) =>
    fetch(`${g.url}/channels/probe/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-probe-kid': kid, 'x-probe-signature': signProbe(body, key) },
      body,
    });

  it('refuses a body signed with the wrong key: 401 before parsing (a body that is not JSON), nothing changed', async () => {
    const id = await ask();
    const bad = await post('not json at all', 'k1', 'not-the-key');
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({
      error: 'unauthorized',
      message: 'the probe request was refused: X-Probe-Signature does not match the body.',
    });
    const body = JSON.stringify({ id: 'e1', interaction: id, answer: true, from: 'mallory' });
    expect((await post(body, 'k1', 'not-the-key')).status).toBe(401);
    expect(await statusOf(id)).toMatchObject({ status: 'pending', result: null });
    // The key was fetched once, for the first request; the second found it cached.
    expect(keys.fetches).toBe(1);
  });

  it('accepts a body signed with a key it fetched; a key id it has not seen fetches the keys again', async () => {
    const id = await ask();
    keys.keys.set('k2', 'second-key');
    const body = JSON.stringify({ id: 'e2', interaction: id, answer: true, from: 'ann' });
    const res = await post(body, 'k2', 'second-key');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ outcome: 'answered' });
    expect(keys.fetches).toBe(2);
    expect(await statusOf(id)).toMatchObject({
      status: 'answered',
      result: { answer: true, answered_by: 'probe:ann', surface: 'probe' },
    });
  });

  it('answers 500 when the keys cannot be fetched, and changes nothing', async () => {
    const id = await ask();
    keys.down = true;
    const body = JSON.stringify({ id: 'e3', interaction: id, answer: false, from: 'ann' });
    const res = await post(body, 'k3', 'third-key');
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: 'verifier_unavailable',
      message: 'the probe request could not be verified right now; nothing was changed, retry later.',
    });
    expect(await statusOf(id)).toMatchObject({ status: 'pending', result: null });
    keys.down = false;
    keys.keys.set('k3', 'third-key');
    // The platform's retry of the same event, once the keys are back, is handled (it was never claimed).
    expect(await (await post(body, 'k3', 'third-key')).json()).toEqual({ outcome: 'answered' });
    expect(await statusOf(id)).toMatchObject({ status: 'answered', result: { answer: false } });
  });
});

describe('channel start and stop hooks', () => {
  it('starts in registration order, each awaited and told it runs workers; close stops them in reverse', async () => {
    const log: LifecycleLog = [];
    const g = await startTestGateway(BASE, {
      plugins: [probeChannel({ name: 'first', log }), probeChannel({ name: 'second', log })],
    });
    log.push('gateway ready');
    await g.close();
    log.push('closed');
    expect(log).toEqual([
      'start first workers=true',
      'started first',
      'start second workers=true',
      'started second',
      'gateway ready',
      'stop second',
      'stopped second',
      'stop first',
      'stopped first',
      'closed',
    ]);
  });

  it('tells a channel of a serve-only process that it runs no workers', async () => {
    const log: LifecycleLog = [];
    const g = await startTestGateway(BASE, { workers: false, plugins: [probeChannel({ name: 'poller', log })] });
    await g.close();
    expect(log).toEqual(['start poller workers=false', 'started poller', 'stop poller', 'stopped poller']);
  });

  it('a start that throws refuses the gateway: the started channels are stopped, and the rest released', async () => {
    const log: LifecycleLog = [];
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...BASE });
    const plugins = [
      probeChannel({ name: 'first', log }),
      probeChannel({ name: 'broken', log, failStart: true }),
      probeChannel({ name: 'never', log }),
    ];
    await expect(createGateway(config, { logger: createLogger('silent'), plugins })).rejects.toThrow(
      'broken could not reach its platform',
    );
    expect(log).toEqual([
      'start first workers=true',
      'started first',
      'start broken workers=true',
      'stop first',
      'stopped first',
      'stop broken',
      'stopped broken',
      'stop never',
      'stopped never',
    ]);
  });
});
