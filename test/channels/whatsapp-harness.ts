import { expect } from 'vitest';
import { GRAPH_TOKEN, startFakeGraph, type FakeGraph, type SentMessage } from '../fakes/whatsapp-graph.js';
import { APP_SECRET, PHONE_NUMBER_ID, VERIFY_TOKEN, WABA_ID, postWebhook } from '../fakes/whatsapp-webhooks.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';

export interface WhatsAppWorld {
  fake: FakeGraph;
  gw: TestGateway;
  http: Api;
  /** Asks on WhatsApp; returns the interaction id and the message the fake received. */
  ask(body: Record<string, unknown>): Promise<{ id: string; message: SentMessage; to: string; callbackUrl: string }>;
  send(body: unknown, signature?: string | null): Promise<number>;
  record(id: string): Promise<Record<string, unknown>>;
  /** Waits for a message to `to` quoting `contextId` (an outcome note or a hint). */
  replyTo(to: string, contextId: string): Promise<SentMessage>;
  close(): Promise<void>;
}

let numberSeq = 15_550_100_000;
/** A fresh number per test: questions to one number would otherwise meet in the latest-pending rule. */
export const freshNumber = (): string => String(++numberSeq);

export async function startWhatsAppWorld(env: Record<string, string> = {}): Promise<WhatsAppWorld> {
  const fake = await startFakeGraph();
  const gw = await startTestGateway({
    WHATSAPP_TOKEN: GRAPH_TOKEN,
    WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
    WHATSAPP_BUSINESS_ACCOUNT_ID: WABA_ID,
    WHATSAPP_APP_SECRET: APP_SECRET,
    WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN,
    WHATSAPP_API_URL: fake.apiUrl,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    ...env,
  });
  const http = api(gw.url, gw.token);
  return {
    fake,
    gw,
    http,
    async ask(body) {
      const to = typeof body['recipient'] === 'string' ? (body['recipient'] as string).replace(/\D/g, '') : freshNumber();
      const res = await http.post('/api/interactions', { channel: 'whatsapp', recipient: `+${to}`, ...body });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      const id = res.json['id'] as string;
      const messageId = (await gw.gateway.store.get(id))?.delivery?.['message_id'];
      const message = fake.sent.find((m) => m.id === messageId);
      if (message === undefined) throw new Error(`interaction ${id} has no delivered message`);
      return { id, message, to, callbackUrl: res.json['callback_url'] as string };
    },
    send: (body, signature) => postWebhook(gw.url, body, signature),
    async record(id) {
      return (await http.get(`/api/interactions/${id}`)).json;
    },
    async replyTo(to, contextId) {
      // Polls the fake for a message the gateway sends after answering the webhook (outcome notes are not awaited).
      for (let i = 0; i < 250; i++) {
        const found = fake.sentTo(to).find((m) => (m.payload['context'] as { message_id?: string } | undefined)?.message_id === contextId);
        if (found !== undefined) return found;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no message to ${to} quotes ${contextId}`);
    },
    async close() {
      await gw.close();
      await fake.close();
    },
  };
}

/** The words a sent message shows. */
export function bodyOf(m: SentMessage): string {
  const p = m.payload;
  if (p['type'] === 'text') return String((p['text'] as Record<string, unknown>)['body']);
  if (p['type'] === 'interactive') return String(((p['interactive'] as Record<string, unknown>)['body'] as Record<string, unknown>)['text']);
  return JSON.stringify(p['template']);
}

/** How many ways to answer the message carries: buttons, list rows, or the numbered choices a reply may name. */
export function controlsOf(m: SentMessage): number {
  const p = m.payload;
  if (p['type'] === 'interactive') {
    const i = p['interactive'] as Record<string, unknown>;
    const action = i['action'] as Record<string, unknown>;
    if (i['type'] === 'button') return (action['buttons'] as unknown[]).length;
    if (i['type'] === 'list') return (action['sections'] as Array<{ rows: unknown[] }>).flatMap((s) => s.rows).length;
    return 1;
  }
  return (bodyOf(m).match(/^\d+\. /gm) ?? []).length;
}
