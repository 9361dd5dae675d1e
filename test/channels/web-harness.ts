import type { WebChatChannel } from '../../channels/web/plugin.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';

/** A gateway with the web chat, and a chat client signed in with a link token. */
export interface WebWorld {
  gw: TestGateway;
  http: Api;
  channel: WebChatChannel;
  /** The chat's own API as `recipient` (a link token as its bearer). */
  chatAs(recipient: string, token?: string): Api;
  close(): Promise<void>;
}

let recipientSeq = 0;
export const freshRecipient = (): string => `person-${process.pid}-${++recipientSeq}`;

export async function startWebWorld(env: Record<string, string> = {}): Promise<WebWorld> {
  const gw = await startTestGateway({ INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1', ...env });
  const channel = gw.gateway.channels.get('web') as WebChatChannel;
  return {
    gw,
    http: api(gw.url, gw.token),
    channel,
    chatAs: (recipient, token) => api(gw.url, token ?? channel.link(recipient).token),
    close: () => gw.close(),
  };
}
