import { DiscordAPIError, HTTPError, REST, RateLimitError } from '@discordjs/rest';
import { MAX_RATE_LIMIT_WAIT_MS, REQUEST_TIMEOUT_MS, RenderLimitError } from './limits.js';
import type { MessageBody } from './render.js';
import { ChannelError } from '../contract.js';

/**
 * The REST calls askgate makes to Discord, through @discordjs/rest: create a message (optionally as a reply), edit
 * it. The library queues per route bucket and waits out a 429 by itself (`retry_after`, `X-RateLimit-*`); a wait
 * longer than MAX_RATE_LIMIT_WAIT_MS is refused instead, so a delivery fails with `retryAfter` rather than holding
 * an asker. Failures become ChannelErrors that never carry the bot token.
 */

export interface DiscordClientOptions {
  botToken: string;
  /** API root without the version, e.g. `https://discord.com/api` (config: DISCORD_API_URL). */
  apiUrl: string;
}

/** A sent message as Discord returns it (the fields askgate keeps). */
export interface SentMessage {
  id: string;
  channelId: string;
}

type Json = Record<string, unknown>;

/** Discord's refusal, the rate limit or the network's failure, as a ChannelError. */
export function toChannelError(what: string, err: unknown): ChannelError {
  if (err instanceof ChannelError) return err;
  if (err instanceof RenderLimitError) return new ChannelError('discord', 'invalid', err.message, null, { cause: err });
  if (err instanceof RateLimitError)
    return new ChannelError(
      'discord',
      'refused',
      `Discord refused ${what}: rate limited, retry after ${(err.retryAfter / 1000).toFixed(1)}s`,
      Math.ceil(err.retryAfter / 1000),
      { cause: err },
    );
  if (err instanceof DiscordAPIError)
    return new ChannelError(
      'discord',
      'refused',
      `Discord refused ${what}: HTTP ${err.status}, code ${String(err.code)} (${err.message})`,
      null,
      { cause: err },
    );
  if (err instanceof HTTPError)
    return new ChannelError('discord', 'network', `Discord answered ${what} with HTTP ${err.status}`, null, {
      cause: err,
    });
  const message = err instanceof Error ? err.message : String(err);
  return new ChannelError('discord', 'network', `could not reach the Discord API (${what}): ${message}`, null, {
    cause: err,
  });
}

export class DiscordClient {
  readonly rest: REST;

  constructor(options: DiscordClientOptions) {
    this.rest = new REST({
      api: options.apiUrl.replace(/\/+$/, ''),
      version: '10',
      timeout: REQUEST_TIMEOUT_MS,
      // No retry here: a question's send that failed on the way is repeated by the core, within a bound and for
      // every channel alike (src/core/delivery-retry.ts); a retry here too would multiply the sends.
      retries: 0,
      rejectOnRateLimit: (limit) => limit.timeToReset > MAX_RATE_LIMIT_WAIT_MS,
    }).setToken(options.botToken);
  }

  private async call(what: string, fn: () => Promise<unknown>): Promise<Json> {
    try {
      const res = await fn();
      return typeof res === 'object' && res !== null ? (res as Json) : {};
    } catch (err) {
      throw toChannelError(what, err);
    }
  }

  /** POST /channels/{channel}/messages, as a reply to `replyTo` when given. */
  async createMessage(
    channelId: string,
    body: MessageBody | { content: string },
    replyTo?: string,
  ): Promise<SentMessage> {
    const payload: Json = { ...body, allowed_mentions: { parse: [] } };
    if (replyTo !== undefined) payload['message_reference'] = { message_id: replyTo, fail_if_not_exists: false };
    const sent = await this.call('create message', () =>
      this.rest.post(`/channels/${encodeURIComponent(channelId)}/messages`, { body: payload }),
    );
    const id = sent['id'];
    if (typeof id !== 'string')
      throw new ChannelError('discord', 'network', 'Discord answered create message without an id');
    return { id, channelId: typeof sent['channel_id'] === 'string' ? sent['channel_id'] : channelId };
  }

  /** POST /users/@me/channels: the bot's DM channel with a user (created once, the same id after). */
  async openDm(userId: string): Promise<string> {
    const dm = await this.call('open DM', () =>
      this.rest.post('/users/@me/channels', { body: { recipient_id: userId } }),
    );
    const id = dm['id'];
    if (typeof id !== 'string') throw new ChannelError('discord', 'network', 'Discord answered open DM without an id');
    return id;
  }

  /** PATCH /channels/{channel}/messages/{message}. */
  async editMessage(channelId: string, messageId: string, body: MessageBody): Promise<void> {
    await this.call('edit message', () =>
      this.rest.patch(`/channels/${encodeURIComponent(channelId)}/messages/${encodeURIComponent(messageId)}`, {
        body: { ...body, allowed_mentions: { parse: [] } },
      }),
    );
  }
}
