import { GRAPH_TOKEN, startFakeGraph, type FakeGraph, type SentMessage } from '../fakes/whatsapp-graph.js';
import { APP_SECRET, PHONE_NUMBER_ID, VERIFY_TOKEN, WABA_ID, postWebhook } from '../fakes/whatsapp-webhooks.js';
import { startPlatformWorld, type PlatformWorld } from './platform-world.js';

export interface WhatsAppWorld extends PlatformWorld<FakeGraph> {
  /** Asks on WhatsApp; returns the interaction id and the message the fake received. */
  ask(body: Record<string, unknown>): Promise<{ id: string; message: SentMessage; to: string; callbackUrl: string }>;
  send(body: unknown, signature?: string | null): Promise<number>;
  /** Waits for a message to `to` quoting `contextId` (an outcome note or a hint). */
  replyTo(to: string, contextId: string): Promise<SentMessage>;
}

let numberSeq = 15_550_100_000;
/** A fresh number per test: questions to one number would otherwise meet in the latest-pending rule. */
export const freshNumber = (): string => String(++numberSeq);

export async function startWhatsAppWorld(env: Record<string, string> = {}): Promise<WhatsAppWorld> {
  const fake = await startFakeGraph();
  const world = await startPlatformWorld(fake, {
    WHATSAPP_TOKEN: GRAPH_TOKEN,
    WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
    WHATSAPP_BUSINESS_ACCOUNT_ID: WABA_ID,
    WHATSAPP_APP_SECRET: APP_SECRET,
    WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN,
    WHATSAPP_API_URL: fake.apiUrl,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    ...env,
  });
  return {
    ...world,
    async ask(body) {
      const to =
        typeof body['recipient'] === 'string' ? (body['recipient'] as string).replace(/\D/g, '') : freshNumber();
      const asked = await world.askDelivered({ channel: 'whatsapp', recipient: `+${to}`, ...body }, (delivery) =>
        fake.sent.find((m) => m.id === delivery['message_id']),
      );
      return { ...asked, to };
    },
    send: (body, signature) => postWebhook(world.gw.url, body, signature),
    async replyTo(to, contextId) {
      // Polls the fake for a message the gateway sends after answering the webhook (outcome notes are not awaited).
      for (let i = 0; i < 250; i++) {
        const found = fake
          .sentTo(to)
          .find((m) => (m.payload['context'] as { message_id?: string } | undefined)?.message_id === contextId);
        if (found !== undefined) return found;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no message to ${to} quotes ${contextId}`);
    },
  };
}

/** The words a sent message shows. */
export function bodyOf(m: SentMessage): string {
  const p = m.payload;
  if (p['type'] === 'text') return String((p['text'] as Record<string, unknown>)['body']);
  if (p['type'] === 'interactive')
    return String(((p['interactive'] as Record<string, unknown>)['body'] as Record<string, unknown>)['text']);
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
