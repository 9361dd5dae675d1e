import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import { startTestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';
import { probeChannel, type LifecycleLog } from '../channels/probe-channel.js';

/**
 * The action-link door through the real gateway: a channel (the test probe, as an email channel would) puts signed
 * links in the questions it delivers, made through the core port; GET shows what the click will do and never answers;
 * only a POST from the link's own page answers, through the one answer path, as `<channel>:<recipient>`. Bad,
 * expired and cross-site requests are pages that change nothing, and the gateway's debug log never holds a token.
 */

const SECRET = 'door-test-link-secret-0123456789abcdef';
const TOKEN = 'action-link-door-token-0123456789';
const log: LifecycleLog = [];
const probe = probeChannel({ name: 'probe', log, links: true });
const lines: string[] = [];
let gateway: Gateway;
let base: string;
let http: Api;

beforeAll(async () => {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    ASKGATE_TOKENS: JSON.stringify({ [TOKEN]: { identity: 'ops', scopes: ['read', 'write', 'answer'] } }),
    INTERACTIONS_PUBLIC_BASE_URL: 'https://askgate.example.com',
    ASKGATE_LINK_SECRET: SECRET,
    ASKGATE_WEBHOOK_ALLOW_PRIVATE: '1',
  });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  gateway = await createGateway(config, { logger: pino({ level: 'debug' }, sink), plugins: [probe] });
  base = await gateway.listen();
  http = api(base, TOKEN);
});
afterAll(async () => gateway?.close());

/** Asks on the probe; resolves with the question's id and its links, rebased onto this gateway's address. */
async function ask(body: Record<string, unknown> = {}): Promise<{ id: string; links: Record<string, string> }> {
  const res = await http.post('/api/interactions', {
    question: 'Deploy v2 to production?',
    answer_format: 'confirm',
    channel: 'probe',
    recipient: 'ann@example.com',
    ...body,
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  const id = res.json['id'] as string;
  const made = probe.links.get(id) ?? {};
  const rebased = Object.fromEntries(
    Object.entries(made).map(([k, url]) => [k, url.replace('https://askgate.example.com', base)]),
  );
  return { id, links: rebased };
}
const recordOf = async (id: string) => (await http.get(`/api/interactions/${id}`)).json;
const tokenOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);
/** The POST the link's page makes: form-encoded, the token repeated, from its own origin. */
const press = (
  url: string,
  headers: Record<string, string> = { 'sec-fetch-site': 'same-origin' },
  token = tokenOf(url),
) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ token }).toString(),
  });
const buttons = (html: string): number => html.match(/<button/g)?.length ?? 0;

describe('GET /a/{token}', () => {
  it('shows the question, the one answer the click gives and who it is for, with one button; it answers nothing', async () => {
    const { id, links } = await ask();
    expect(links['yes']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/a\/v1\.[\w-]+\.[\w-]{43}$/);
    const res = await fetch(links['yes'] as string);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).toContain('<h1 class="cb-question">Deploy v2 to production?</h1>');
    expect(html).toContain('This link answers for <strong>ann@example.com</strong>:');
    expect(html).toContain('<p class="al-choice">Yes</p>');
    expect(html).toContain('<button type="submit" class="ag-submit">Answer “Yes”</button>');
    expect(buttons(html)).toBe(1);
    expect(html).not.toContain('<script');
    // A scanner's HEAD and a second GET change nothing either.
    expect((await fetch(links['yes'] as string, { method: 'HEAD' })).status).toBe(200);
    await fetch(links['no'] as string);
    expect(await recordOf(id)).toMatchObject({ status: 'pending', result: null });
  });

  it('refuses a changed token with a 400 page, an expired one with a 410 page; neither changes anything', async () => {
    const { id, links } = await ask();
    const yes = links['yes'] as string;
    const tampered = `${yes.slice(0, -5)}${yes.endsWith('AAAAA') ? 'BBBBB' : 'AAAAA'}`;
    const bad = await fetch(tampered);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('This link is not valid.');
    expect((await press(tampered)).status).toBe(400);
    const expired = await fetch(links['expired'] as string);
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain('This link has expired.');
    expect((await press(links['expired'] as string)).status).toBe(410);
    expect((await fetch(`${base}/a/not-a-token`)).status).toBe(400);
    expect(await recordOf(id)).toMatchObject({ status: 'pending', result: null });
    // Once the question is answered, even the expired link shows how it ended.
    await press(links['no'] as string);
    const after = await fetch(links['expired'] as string);
    expect(after.status).toBe(200);
    expect(await after.text()).toContain('The answer was <strong>No</strong>, from probe:ann@example.com.');
  });
});

describe('POST /a/{token}', () => {
  it('answers through the one answer path as <channel>:<recipient>; later, every link shows the outcome', async () => {
    const { id, links } = await ask();
    const res = await press(links['yes'] as string);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Thank you — your answer was sent.');
    expect(html).toContain('You answered <strong>Yes</strong>.');
    expect(await recordOf(id)).toMatchObject({
      status: 'answered',
      result: { answer: true, answered_by: 'probe:ann@example.com', surface: 'probe', reply_to: null, params: null },
    });
    for (const link of [links['yes'], links['no']] as string[]) {
      const page = await fetch(link);
      expect(page.status).toBe(200);
      const text = await page.text();
      expect(text).toContain('This question was answered.');
      expect(text).toContain('The answer was <strong>Yes</strong>, from probe:ann@example.com.');
      expect(buttons(text)).toBe(0);
    }
    // The other link's button, pressed late, changes nothing.
    const late = await press(links['no'] as string);
    expect(await late.text()).toContain('This question was answered.');
    expect(await recordOf(id)).toMatchObject({ result: { answer: true } });
  });

  it('answers a select question with the link’s choice', async () => {
    const { id, links } = await ask({ answer_format: 'select', choices: ['canary', 'everyone'] });
    expect(await (await fetch(links['everyone'] as string)).text()).toContain('<p class="al-choice">everyone</p>');
    expect((await press(links['everyone'] as string)).status).toBe(200);
    expect(await recordOf(id)).toMatchObject({ result: { answer: 'everyone', answered_by: 'probe:ann@example.com' } });
  });

  it('refuses a post from another site or without the token in its form: 403, nothing changed', async () => {
    const { id, links } = await ask();
    const yes = links['yes'] as string;
    const foreign: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example' },
    ];
    for (const headers of foreign) {
      const res = await press(yes, headers);
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('This answer was not sent.');
    }
    expect((await press(yes, { 'sec-fetch-site': 'same-origin' }, 'another-token')).status).toBe(403);
    expect((await fetch(yes, { method: 'POST', headers: { 'sec-fetch-site': 'same-origin' }, body: '' })).status).toBe(
      403,
    );
    expect(await recordOf(id)).toMatchObject({ status: 'pending', result: null });
    // The gateway's own origin, as a browser without Sec-Fetch-Site names it, is taken.
    expect((await press(yes, { origin: 'https://askgate.example.com' })).status).toBe(200);
  });

  it('refuses a recipient who is not among the approvers with a 403 page; the question stays open', async () => {
    const { id, links } = await ask({ approvers: ['probe:bob@example.com'] });
    const res = await press(links['yes'] as string);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain(
      'Only the question’s approvers may answer it, and ann@example.com is not one of them. Nothing was changed.',
    );
    expect(await recordOf(id)).toMatchObject({ status: 'pending', result: null });
  });

  it('shows a withdrawn question as closed (410), on GET and POST alike', async () => {
    const { id, links } = await ask();
    expect((await http.delete(`/api/interactions/${id}`)).status).toBe(200);
    for (const res of [await fetch(links['yes'] as string), await press(links['yes'] as string)]) {
      expect(res.status).toBe(410);
      expect(await res.text()).toContain('The asker withdrew this question.');
    }
    expect(await recordOf(id)).toMatchObject({ status: 'cancelled' });
  });
});

describe('links and the log', () => {
  it('never writes a token into the debug log', async () => {
    const { links } = await ask();
    await fetch(links['yes'] as string);
    await press(links['yes'] as string);
    const logged = lines.join('');
    expect(logged).toContain('"path":"/a/[token]"');
    for (const link of Object.values(links)) expect(logged).not.toContain(tokenOf(link).split('.')[2]);
  });
});

describe('a gateway without ASKGATE_LINK_SECRET', () => {
  it('gives channels no link maker (a channel that needs one refuses to start) and shows every link as not available', async () => {
    const env = { INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9' };
    await expect(
      startTestGateway(env, { plugins: [probeChannel({ name: 'probe', log: [], links: true })] }),
    ).rejects.toThrow('probe needs action links: set ASKGATE_LINK_SECRET');
    const g = await startTestGateway(env);
    try {
      const res = await fetch(`${g.url}/a/v1.e30.${'A'.repeat(43)}`);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain('This link does not open a question.');
    } finally {
      await g.close();
    }
  });
});
