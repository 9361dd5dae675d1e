import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';
import { ADMIN, AGENT, runCli, TOKENS } from './helpers.js';

/** `askgate presets put|get|ask` and `askgate confirmations failed` against a running gateway (in-memory store). */

let gw: TestGateway;
let file: string;
beforeAll(async () => {
  gw = await startTestGateway({ ASKGATE_TOKENS: TOKENS });
  file = join(mkdtempSync(join(tmpdir(), 'askgate-preset-')), 'ship.json');
  writeFileSync(file, JSON.stringify({ ask: { answer_format: 'confirm', group_id: 'deploys' } }));
});
afterAll(() => gw?.close());

describe('askgate presets', () => {
  it('put needs admin, get shows the versions, ask passes the open fields and refuses a fixed one', async () => {
    const denied = await runCli(gw.url, AGENT, ['presets', 'put', 'ship', file]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('lacks the "admin" scope');
    const put = await runCli(gw.url, ADMIN, ['presets', 'put', 'ship', file]);
    expect(put.code, put.stderr).toBe(0);
    expect(JSON.parse(put.stdout)).toEqual({ name: 'ship', version: 1 });
    const got = await runCli(gw.url, AGENT, ['presets', 'get', 'ship']);
    expect(JSON.parse(got.stdout)).toMatchObject({ name: 'ship', version: 1, written_by: 'ops' });

    const asked = await runCli(gw.url, AGENT, ['presets', 'ask', 'ship', '--question', 'Ship 1.4?', '--timeout', '30']);
    expect(asked.code, asked.stderr).toBe(0);
    const record = (await api(gw.url, AGENT).get(`/api/interactions/${asked.stdout.trim()}`)).json;
    expect(record).toMatchObject({ question: 'Ship 1.4?', answer_format: 'confirm', group_id: 'deploys' });

    const fixed = await runCli(gw.url, AGENT, [
      'presets',
      'ask',
      'ship',
      '--fields',
      '{"question": "x", "group_id": "y"}',
    ]);
    expect(fixed.code).toBe(1);
    expect(fixed.stderr).toBe(
      'askgate: group_id is fixed by preset ship; drop it from the request. (field: group_id) [400 fixed_by_preset]\n',
    );
  });
});

describe('askgate confirmations failed', () => {
  it('says why it cannot list on the in-memory store, and exits 1', async () => {
    const res = await runCli(gw.url, ADMIN, ['confirmations', 'failed']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('set REDIS_URL');
    expect(res.stderr).toContain('[503 not_configured]');
  });
});
