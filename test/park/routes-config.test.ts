import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { mapReply, matchRoute } from '../../src/runs/routes.js';

/** ASKGATE_ROUTES: parsing, its one-line errors, the most-specific match, and reply mappings. */

const TOKENS = JSON.stringify({
  'route-token-signing-0123456789': {
    identity: 'concierge',
    scopes: ['write'],
    webhook_secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=',
  },
  'route-token-plain-0123456789ab': { identity: 'plain', scopes: ['write'] },
});
const base = { ASKGATE_TOKENS: TOKENS, REDIS_URL: 'redis://127.0.0.1:6379' };
const load = (routes: unknown, env: Record<string, string> = base) =>
  loadConfig({ ...env, ASKGATE_ROUTES: typeof routes === 'string' ? routes : JSON.stringify(routes) });

function refusal(routes: unknown, env?: Record<string, string>): string {
  try {
    load(routes, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe('ASKGATE_ROUTES');
    const message = (err as Error).message;
    expect(message.startsWith('ASKGATE_ROUTES: ')).toBe(true);
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a ConfigError');
}

const hook = { webhook: 'https://agent.example/turn' };

describe('ASKGATE_ROUTES', () => {
  it('parses routes with defaults: a name from channel and chat, the reply mapping {"path": "text"}', () => {
    const { routes } = load([
      { channel: 'telegram', identity: 'concierge', target: hook },
      {
        channel: 'telegram',
        chat: '42',
        identity: 'plain',
        target: { handler: 'desk' },
        reply: { template: '> {{output.answer}}' },
      },
    ]);
    expect(routes).toEqual([
      {
        name: 'telegram',
        channel: 'telegram',
        chat: null,
        identity: 'concierge',
        target: hook,
        reply: { path: 'text' },
      },
      {
        name: 'telegram:42',
        channel: 'telegram',
        chat: '42',
        identity: 'plain',
        target: { handler: 'desk' },
        reply: { template: '> {{output.answer}}' },
      },
    ]);
    expect(loadConfig(base).routes).toEqual([]);
  });

  it('refuses bad routes with one line naming the variable and the route', () => {
    expect(refusal('[oops')).toMatch(/not valid JSON/);
    expect(refusal({ channel: 'telegram' })).toMatch(/JSON list/);
    expect(refusal([{ channel: 'telegram', identity: 'nobody', target: hook }])).toMatch(
      /route 1: "identity" must name an identity of ASKGATE_TOKENS/,
    );
    expect(refusal([{ channel: 'telegram', identity: 'plain', target: hook }])).toMatch(
      /route 1: a webhook target needs identity "plain" to have a "webhook_secret"/,
    );
    expect(refusal([{ channel: 'telegram', identity: 'plain', target: { handler: 'a:b' } }])).toMatch(
      /"target.handler"/,
    );
    expect(refusal([{ channel: 'telegram', identity: 'plain', target: { queue: 'x' } }])).toMatch(/"target" must be/);
    expect(refusal([{ channel: 'telegram', identity: 'plain', target: { handler: 'x' }, reply: { jq: '.' } }])).toMatch(
      /"reply" must be/,
    );
    expect(refusal([{ channel: 'telegram', identity: 'plain', target: { handler: 'x' }, chats: ['1'] }])).toMatch(
      /"chats" is not a route field/,
    );
    expect(
      refusal([
        { channel: 'telegram', chat: '1', identity: 'plain', target: { handler: 'x' } },
        { channel: 'telegram', chat: '1', identity: 'plain', target: { handler: 'y' }, name: 'other' },
      ]),
    ).toMatch(/route 2: another route already takes chat "1" of "telegram"/);
    expect(
      refusal([{ channel: 'telegram', identity: 'plain', target: { handler: 'x' } }], { ASKGATE_TOKENS: TOKENS }),
    ).toMatch(/needs REDIS_URL/);
  });

  it('picks the route naming the chat over the channel-wide one', () => {
    const { routes } = load([
      { channel: 'telegram', identity: 'concierge', target: hook },
      { channel: 'telegram', chat: '42', identity: 'plain', target: { handler: 'desk' } },
    ]);
    expect(matchRoute(routes, 'telegram', '42')?.name).toBe('telegram:42');
    expect(matchRoute(routes, 'telegram', '7')?.name).toBe('telegram');
    expect(matchRoute(routes, 'slack', '42')).toBeNull();
  });

  it('maps a target output to the reply text', () => {
    expect(mapReply({ path: 'text' }, { text: 'hello' })).toBe('hello');
    expect(mapReply({ path: 'text' }, 'plain words')).toBe('plain words');
    expect(mapReply({ path: 'result.items' }, { result: { items: [1, 2] } })).toBe('[1,2]');
    expect(mapReply({ path: 'text' }, null)).toBe('');
    expect(mapReply({ path: 'text' }, { other: 1 })).toBe('');
    expect(mapReply({ template: 'Done: {{output.summary}} ({{ output.n }})' }, { summary: 'shipped', n: 3 })).toBe(
      'Done: shipped (3)',
    );
    expect(mapReply({ template: '{{output}}' }, 'raw')).toBe('raw');
    expect(mapReply({ template: 'bot: {{output.text}}' }, null)).toBe('');
  });
});
