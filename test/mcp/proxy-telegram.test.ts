import { createServer } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshChat, startTelegramWorld, type TelegramWorld } from '../channels/telegram-harness.js';
import type { FakeMessage } from '../fakes/telegram-server.js';
import { PERSON, tapUpdate } from '../fakes/telegram-updates.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestGateway } from '../helpers/gateway.js';
import { eventually } from './harness.js';
import { startProxySession } from './proxy-harness.js';

/**
 * `askgate mcp-proxy` in front of a server of the tests' own that calls elicitInput, the person on the Telegram
 * fake: the form answered on the webview page is `accept` with typed content and `_meta["askgate/reply_to"]`;
 * the Decline button is `decline`; nobody answering is `cancel`; every other message passes as the same bytes.
 */

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const FORM = {
  message: 'Book the table?',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Full name', minLength: 1 },
      seats: { type: 'integer', title: 'Seats', minimum: 1, maximum: 4 },
    },
    required: ['name', 'seats'],
  },
};

let w: TelegramWorld;
let browser: Browser;
beforeAll(async () => {
  const port = await freePort();
  // The webview page is opened in Chromium from this gateway itself, so its form button is a loopback http URL.
  w = await startTelegramWorld(
    { PORT: String(port), INTERACTIONS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
    { allowLoopbackWebApp: true },
  );
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await w?.close();
});

/** The form message and the Decline message the elicitation sent to `chat`. */
async function questionsIn(chat: string): Promise<{ form: FakeMessage; decline: FakeMessage }> {
  await eventually(() => w.fake.messagesIn(chat).length >= 2, 'the form and the Decline question');
  const [form, decline] = w.fake.messagesIn(chat) as [FakeMessage, FakeMessage];
  return { form, decline };
}

/** The id of the pending Decline question (the select whose one choice is Decline) first delivered to `chat`. */
async function pendingDeclineId(chat: string): Promise<string | undefined> {
  const items = (await w.http.get('/api/interactions?status=pending')).json['items'] as Array<Record<string, unknown>>;
  const decline = items.find(
    (r) => r['answer_format'] === 'select' && r['recipient'] === chat && String(r['question']).startsWith('Or decline'),
  );
  return decline?.['id'] as string | undefined;
}

describe('mcp-proxy with the person on Telegram', () => {
  it('accepts with the typed content after the form is answered on the webview, relaying everything else unchanged', async () => {
    const chat = freshChat();
    const session = await startProxySession(w.gw, ['--channel', 'telegram', '--recipient', chat]);
    try {
      const echoed = await session.client.callTool({ name: 'echo', arguments: { text: 'héllo ✓' } });
      expect(echoed.content).toEqual([{ type: 'text', text: 'héllo ✓' }]);
      const result = session.elicit(FORM);
      const { form, decline } = await questionsIn(chat);
      expect(decline.text).toContain('Book the table?');
      const button = (form.reply_markup?.['inline_keyboard'] as Array<Array<{ web_app?: { url: string } }>>)[0]?.[0];
      const page = await browser.newPage();
      try {
        await page.goto(button?.web_app?.url as string);
        await page.getByLabel('Full name').fill('Ada');
        await page.getByLabel('Seats').fill('2');
        await page.getByRole('button', { name: 'Send' }).click();
        await page.locator('.cb-outcome').waitFor();
      } finally {
        await page.close();
      }
      const { isError, value } = await result;
      expect(isError).toBe(false);
      expect(value).toEqual({
        action: 'accept',
        content: { name: 'Ada', seats: 2 },
        _meta: { 'askgate/reply_to': null },
      });
      // The Decline question is withdrawn once the form decided.
      await w.edited(decline);
      expect(decline.reply_markup).toBeNull();

      const pipes = session.pipes();
      const elicitations = pipes.serverOut.filter((l) => l.includes('"elicitation/create"'));
      expect(elicitations).toHaveLength(1);
      const elicitationId = (JSON.parse(elicitations[0] as string) as { id: unknown }).id;
      const isInitialize = (l: string): boolean => (JSON.parse(l) as { method?: string }).method === 'initialize';
      const answersToElicitation = (l: string): boolean => {
        const m = JSON.parse(l) as { id?: unknown; method?: string };
        return m.method === undefined && m.id === elicitationId && l.includes('"action"');
      };
      // Client → server: the same bytes, but for the initialize, which gained the elicitation capability.
      expect(pipes.serverIn.filter((l) => !isInitialize(l) && !answersToElicitation(l))).toEqual(
        pipes.clientSent.filter((l) => !isInitialize(l)),
      );
      const init = JSON.parse(pipes.serverIn.find(isInitialize) as string) as {
        params: { capabilities: Record<string, unknown> };
      };
      expect(init.params.capabilities['elicitation']).toEqual({ form: {}, url: {} });
      // Server → client: the same bytes, but for the elicitation, which askgate answered.
      expect(pipes.clientReceived).toEqual(pipes.serverOut.filter((l) => !l.includes('"elicitation/create"')));
      // The initialize result and the two tool results, at least.
      expect(pipes.clientReceived.length).toBeGreaterThanOrEqual(3);
    } finally {
      await session.close();
    }
  });

  it('declines after the person taps Decline', async () => {
    const chat = freshChat();
    const session = await startProxySession(w.gw, ['--channel', 'telegram', '--recipient', chat]);
    try {
      const result = session.elicit(FORM);
      const { form, decline } = await questionsIn(chat);
      expect(await w.send(tapUpdate(decline, { label: 'Decline' }))).toBe(200);
      expect((await result).value).toEqual({ action: 'decline' });
      // The form is withdrawn: its message no longer offers the form.
      await w.edited(form);
      expect(form.reply_markup).toBeNull();
    } finally {
      await session.close();
    }
  });

  it("with --deliver and --approver, asks on every surface and takes only an approver's Decline", async () => {
    const [first, second] = [freshChat(), freshChat()];
    const deliver = JSON.stringify([
      { channel: 'telegram', recipient: first },
      { channel: 'telegram', recipient: second },
    ]);
    const session = await startProxySession(w.gw, ['--deliver', deliver, '--approver', `telegram:${PERSON.id}`]);
    try {
      const result = session.elicit(FORM);
      // Both surfaces got the form and the Decline question.
      await questionsIn(first);
      const { decline } = await questionsIn(second);
      const declineId = await pendingDeclineId(first);
      expect(declineId).toBeDefined();
      // Someone else's tap is refused, recorded with the verified id, and settles nothing; the approver's does.
      const stranger = { id: 777_001, is_bot: false, first_name: 'Eve', username: 'eve' };
      expect(await w.send(tapUpdate(decline, { label: 'Decline' }, stranger))).toBe(200);
      const trail = async (): Promise<Array<[string, string | undefined]>> => {
        const events = await w.http.get(`/api/interactions/${declineId as string}/events`);
        return (events.json['items'] as Array<{ type: string; by?: string }>).map((e) => [e.type, e.by]);
      };
      await eventually(async () => (await trail()).some(([type]) => type === 'answer_refused'), 'the refusal');
      expect(await trail()).toContainEqual(['answer_refused', 'telegram:777001']);
      expect(await w.send(tapUpdate(decline, { label: 'Decline' }))).toBe(200);
      expect((await result).value).toEqual({ action: 'decline' });
    } finally {
      await session.close();
    }
  });

  it('cancels when nobody answers in time', async () => {
    const chat = freshChat();
    const session = await startProxySession(w.gw, ['--channel', 'telegram', '--recipient', chat, '--timeout', '1']);
    try {
      expect((await session.elicit(FORM)).value).toEqual({ action: 'cancel' });
    } finally {
      await session.close();
    }
  });

  it('refuses a requested schema outside the mapping as an MCP error naming the property, asking nothing', async () => {
    const chat = freshChat();
    const session = await startProxySession(w.gw, ['--channel', 'telegram', '--recipient', chat]);
    try {
      const { isError, value } = await session.elicit({
        message: 'Where to?',
        requestedSchema: { type: 'object', properties: { when: { type: 'string', format: 'time' } } },
      });
      expect(isError).toBe(true);
      expect(value['code']).toBe(-32602);
      expect(value['message']).toMatch(/"when"/);
      expect(w.fake.messagesIn(chat)).toEqual([]);
    } finally {
      await session.close();
    }
  });

  it('leaves an elicitation the client can show to the client, untouched', async () => {
    const chat = freshChat();
    const session = await startProxySession(w.gw, ['--channel', 'telegram', '--recipient', chat], {
      elicitation: { form: {} },
    });
    try {
      const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
      session.client.setRequestHandler(ElicitRequestSchema, async () => ({
        action: 'accept',
        content: { name: 'Grace', seats: 3 },
      }));
      const { value } = await session.elicit(FORM);
      expect(value).toEqual({ action: 'accept', content: { name: 'Grace', seats: 3 } });
      expect(w.fake.messagesIn(chat)).toEqual([]);
    } finally {
      await session.close();
    }
  });
});

describe('a client that goes away while the person is answering', () => {
  it('cancels both questions, and the late answer is told 410', async () => {
    const chat = freshChat();
    const session = await startProxySession(w.gw, ['--channel', 'telegram', '--recipient', chat]);
    void session.elicit(FORM).catch(() => undefined);
    await questionsIn(chat);
    const pending = (await w.http.get('/api/interactions?status=pending')).json['items'] as Array<{ id: string }>;
    const ids = pending.map((q) => q.id);
    expect(ids).toHaveLength(2);
    await session.close();
    for (const id of ids) {
      await eventually(async () => (await w.record(id))['status'] === 'cancelled', `question ${id} to be cancelled`);
    }
    const late = await w.http.post(`/api/interactions/${ids[0]}/answer`, { answer: { name: 'Ada', seats: 2 } });
    expect(late.status).toBe(410);
  });
});

describe('a server that cancels its elicitation', () => {
  it('withdraws both questions (notifications/cancelled), and the late answer is told 410', async () => {
    const chat = freshChat();
    const session = await startProxySession(w.gw, ['--channel', 'telegram', '--recipient', chat]);
    try {
      const elicited = session.elicit(FORM);
      await questionsIn(chat);
      const items = (await w.http.get('/api/interactions?status=pending')).json['items'] as Array<{
        id: string;
        recipient: string;
      }>;
      const ids = items.filter((q) => q.recipient === chat).map((q) => q.id);
      expect(ids).toHaveLength(2);
      // The server aborts its elicitInput: its SDK sends notifications/cancelled through the proxy.
      const cancelled = await session.client.callTool({ name: 'cancel-elicitations', arguments: {} });
      expect(cancelled.content).toEqual([{ type: 'text', text: '1' }]);
      for (const id of ids) {
        await eventually(async () => (await w.record(id))['status'] === 'cancelled', `question ${id} to be cancelled`);
      }
      const late = await w.http.post(`/api/interactions/${ids[0]}/answer`, { answer: { name: 'Ada', seats: 2 } });
      expect(late.status).toBe(410);
      // The server's own call ended with its abort, not with an answer.
      expect((await elicited).isError).toBe(true);
      // The cancellation reached the proxy as the server sent it.
      expect(session.pipes().serverOut.some((l) => l.includes('"notifications/cancelled"'))).toBe(true);
    } finally {
      await session.close();
    }
  });
});

describe('mcp-proxy against a gateway with no channel configured', () => {
  it('answers the elicitation with a clear MCP error naming the channel that is not configured', async () => {
    const gw = await startTestGateway();
    const session = await startProxySession(gw, ['--channel', 'telegram', '--recipient', '42']);
    try {
      const { isError, value } = await session.elicit(FORM);
      expect(isError).toBe(true);
      expect(value['message']).toMatch(/channel "telegram" is not registered/);
    } finally {
      await session.close();
      await gw.close();
    }
  });
});
