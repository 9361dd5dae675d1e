import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { askFor, postJson, recordOf, startCallbackGateway } from './helpers.js';

/**
 * The JSON body of an external question at the callback door: an object whose only key is `answer` is the envelope
 * (what askgate's bridge sends) and is unwrapped; any other body is the payload as is.
 */

let gw: TestGateway;
beforeAll(async () => {
  gw = await startCallbackGateway();
});
afterAll(() => gw?.close());

describe('an external question at the callback door', () => {
  it('unwraps {"answer": <payload>}', async () => {
    const { id, path } = await askFor(gw, { question: 'Signed?', answer_format: 'external' });
    const res = await postJson(gw, path, { answer: { decision: 'confirmed', reference: 'r-1' } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status: 'answered' });
    expect((await recordOf(gw, id))['result']).toMatchObject({
      answer: { decision: 'confirmed', reference: 'r-1' },
    });
  });

  it('takes any other body verbatim, an "answer" key beside others included', async () => {
    const { id, path } = await askFor(gw, { question: 'Signed?', answer_format: 'external' });
    const payload = { answer: 'yes', event: 'evt_1' };
    expect((await postJson(gw, path, payload)).json()).toEqual({ status: 'answered' });
    expect((await recordOf(gw, id))['result']).toMatchObject({ answer: payload });
  });

  it('checks the unwrapped payload against the pin: a mismatch is 400 and the ticket stays live', async () => {
    const pin = {
      type: 'object',
      properties: { decision: { const: 'confirmed' }, reference: { const: 'r-2' } },
      required: ['decision', 'reference'],
    };
    const { id, path } = await askFor(gw, { question: 'Pay', answer_format: 'external', schema: pin });
    const refused = await postJson(gw, path, { answer: { decision: 'declined', reference: 'r-2' } });
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'invalid_answer', field: 'decision' });
    expect((await recordOf(gw, id))['status']).toBe('pending');
    const accepted = await postJson(gw, path, { answer: { decision: 'confirmed', reference: 'r-2' } });
    expect(accepted.json()).toEqual({ status: 'answered' });
  });
});
