import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';

/**
 * An answer that arrives past the deadline expires the question on the spot — unless another answer won the claim
 * between the read and the expiry. `expire` reports the status the question really has, so that late answer is told
 * `already_answered`, not `410`.
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => gw.close());

describe('expiring a question someone else just answered', () => {
  it('leaves the answer standing and reports the real status', async () => {
    const http = api(gw.url, gw.token);
    const created = await http.post('/api/interactions', { question: 'Race?', answer_format: 'confirm', timeout: 60 });
    const id = created.json['id'] as string;
    const stale = await gw.gateway.store.get(id);
    expect(stale?.status).toBe('pending');
    expect((await http.post(`/api/interactions/${id}/answer`, { answer: true })).json['status']).toBe('answered');
    // The expiry works from the stale read, as a late answer's path does.
    expect(await gw.gateway.service.expire(stale!)).toBe('answered');
    const record = (await http.get(`/api/interactions/${id}`)).json;
    expect(record['status']).toBe('answered');
    expect((record['result'] as Record<string, unknown>)['answer']).toBe(true);
  });

  it('reports expired when the expiry itself wins', async () => {
    const http = api(gw.url, gw.token);
    const created = await http.post('/api/interactions', { question: 'Alone?', answer_format: 'confirm', timeout: 60 });
    const stale = await gw.gateway.store.get(created.json['id'] as string);
    expect(await gw.gateway.service.expire(stale!)).toBe('expired');
  });
});
