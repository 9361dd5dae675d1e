import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

// A JSON body sent without its Content-Type (curl -d sends application/x-www-form-urlencoded) is told so, not
// "the body must be a JSON object", on every JSON door — the ask door's fast path and its express route alike.
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

const BODY = JSON.stringify({ question: 'Ship it?', answer_format: 'confirm', timeout: 30 });

async function send(
  path: string,
  method: string,
  contentType: string | null,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const headers: Record<string, string> = { authorization: `Bearer ${gw.token}` };
  if (contentType !== null) headers['content-type'] = contentType;
  // fetch adds text/plain to a string body without one; a Blob with no type sends no Content-Type at all.
  const body = contentType === null ? new Blob([BODY]) : BODY;
  const res = await fetch(`${gw.url}${path}`, { method, headers, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('JSON doors and the Content-Type', () => {
  it.each([
    ['POST', '/api/interactions', 'application/x-www-form-urlencoded', '"application/x-www-form-urlencoded"'],
    ['POST', '/api/interactions', null, 'missing'],
    ['POST', '/api/interactions', 'text/plain', '"text/plain"'],
    ['PUT', '/api/presets/deploy', 'text/plain', '"text/plain"'],
    ['POST', '/api/runs', 'text/plain', '"text/plain"'],
  ])('%s %s with Content-Type %s is a 400 that says to send application/json', async (method, path, type, named) => {
    const res = await send(path, method, type);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: 'invalid_request',
      message: `the body must be JSON, sent with Content-Type: application/json (this request's is ${named}).`,
      field: 'body',
    });
  });

  it('takes the same body with application/json (and a charset)', async () => {
    expect((await send('/api/interactions', 'POST', 'application/json')).status).toBe(201);
    expect((await send('/api/interactions', 'POST', 'application/json; charset=utf-8')).status).toBe(201);
  });
});
