import { expect } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';

/** What every platform channel's test world holds: the platform's fake, a gateway pointed at it, and its API. */
export interface PlatformWorld<Fake> {
  fake: Fake;
  gw: TestGateway;
  http: Api;
  /** The interaction as the API shows it now. */
  record(id: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface PlatformWorldBase<Fake> extends PlatformWorld<Fake> {
  /**
   * Asks through the API (which must create it) and finds the message the fake received, by the delivery entries
   * the channel stored; a question with no delivered message fails the test here rather than later.
   */
  askDelivered<Message>(
    body: Record<string, unknown>,
    find: (delivery: Record<string, string>) => Message | undefined,
  ): Promise<{ id: string; message: Message; callbackUrl: string }>;
}

/** Starts a gateway with `env` beside an already started `fake`; closing the world closes both. */
export async function startPlatformWorld<Fake extends { close(): Promise<void> }>(
  fake: Fake,
  env: Record<string, string>,
): Promise<PlatformWorldBase<Fake>> {
  const gw = await startTestGateway(env);
  const http = api(gw.url, gw.token);
  return {
    fake,
    gw,
    http,
    async askDelivered(body, find) {
      const res = await http.post('/api/interactions', body);
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      const id = res.json['id'] as string;
      const message = find((await gw.gateway.store.get(id))?.delivery ?? {});
      if (message === undefined) throw new Error(`interaction ${id} has no delivered message`);
      return { id, message, callbackUrl: res.json['callback_url'] as string };
    },
    async record(id) {
      return (await http.get(`/api/interactions/${id}`)).json;
    },
    async close() {
      await gw.close();
      await fake.close();
    },
  };
}
