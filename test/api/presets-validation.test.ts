import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';

// A preset is checked by the ask rules when it is written: one that could never ask is a 400 at PUT, naming the
// field under `ask.` with the words an ask gets — not a 200 that fails at its first ask. Fields a preset leaves open
// are the caller's, so a preset missing them is fine.
let gw: TestGateway;
let http: Api;
beforeAll(async () => {
  gw = await startTestGateway({ INTERACTIONS_PUBLIC_BASE_URL: 'https://askgate.example.com' });
  http = api(gw.url, gw.token);
});
afterAll(async () => {
  await gw?.close();
});

describe('PUT /api/presets/{name}', () => {
  it.each([
    [
      { answer_format: 'nonsense', timeout: -4 },
      'ask.answer_format',
      'answer_format must be one of "text", "select", "confirm", "form", "external", "review".',
    ],
    [{ timeout: -4 }, 'ask.timeout', 'timeout must be a number of seconds greater than 0.'],
    [{ extensions: [] }, 'ask.extensions', 'extensions is not accepted; omit the field.'],
    [
      { answerFormat: 'confirm' },
      'ask.answerFormat',
      'answerFormat is not an ask field; check its spelling (fields are snake_case, e.g. answer_format).',
    ],
    [
      { choices: ['a'], answer_format: 'text' },
      'ask.choices',
      'choices apply to a select only; drop it or use answer_format "select".',
    ],
  ])('refuses %j at write, as an ask would', async (ask, field, message) => {
    const before = await http.get('/api/presets/checked');
    const res = await http.put('/api/presets/checked', { ask });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'invalid_request', field, message });
    // Nothing was written.
    expect((await http.get('/api/presets/checked')).status).toBe(before.status);
  });

  it('refuses the same fields in an ask with the same words, without the ask. prefix', async () => {
    const res = await http.post('/api/interactions', { question: 'Q?', answer_format: 'nonsense' });
    expect(res.json).toEqual({
      error: 'invalid_request',
      field: 'answer_format',
      message: 'answer_format must be one of "text", "select", "confirm", "form", "external", "review".',
    });
  });

  it('takes a preset that leaves required fields to its callers, and asks through it once they send them', async () => {
    const put = await http.put('/api/presets/pick-region', { ask: { answer_format: 'select', timeout: 60 } });
    expect(put.status).toBe(200);
    const asked = await http.post('/api/presets/pick-region/ask', { question: 'Region?', choices: ['eu', 'us'] });
    expect(asked.status).toBe(201);
    expect(asked.json).toMatchObject({ answer_format: 'select', choices: ['eu', 'us'], question: 'Region?' });
  });
});
