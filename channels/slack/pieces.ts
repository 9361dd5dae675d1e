import { LogLevel, webApi } from '@slack/bolt';
import type { Logger } from '../../src/observability/logger.js';
import type { SlackPacingOptions } from './pacing.js';
import { ChannelError } from '../contract.js';
import { tellClosed } from '../replies.js';
import { plain } from './blocks.js';
import { RenderLimitError, VIEW_BUTTON_MAX, VIEW_TITLE_MAX } from './limits.js';

/**
 * The Slack plugin's small pieces: how a delivered message is referenced, how Slack's refusals become ChannelErrors,
 * who an event's person is, and the modal shown for a closed question. Pure, no client.
 */

export interface SlackChannelOptions {
  botToken: string;
  signingSecret: string;
  /** Web API root, ending in `/`. Default `https://slack.com/api/` (config: SLACK_API_URL). */
  apiUrl: string;
  /** Outbound pacing; defaults follow Slack's published limits (channels/slack/limits.ts). */
  pacing?: SlackPacingOptions;
  /** Now in Unix seconds, for the signature window. Default the clock. */
  nowSeconds?: () => number;
  logger?: Logger;
}

/**
 * The Web API client's options. 429s surface to the pacer (which honours Retry-After), and a failed call fails at
 * once: the WebClient's own default would retry for half an hour while an asker waits for its 502. A question's send
 * that failed on the way is repeated by the core instead, within 5 s (src/core/delivery-retry.ts).
 */
export function webClientOptions(apiUrl: string) {
  return { slackApiUrl: apiUrl, rejectRateLimitedCalls: true, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR };
}

/** The reference under which a delivered message is indexed: a ts is unique within its channel. */
export const messageRef = (channel: string, ts: string): string => `${channel}:${ts}`;

export type Json = Record<string, unknown>;
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Slack's refusal or the network's failure, as a ChannelError that never carries the bot token. */
export function toChannelError(method: string, err: unknown): ChannelError {
  if (err instanceof RenderLimitError) return new ChannelError('slack', 'invalid', err.message, null, { cause: err });
  if (err instanceof webApi.WebAPIRateLimitedError)
    return new ChannelError(
      'slack',
      'refused',
      `Slack refused ${method}: rate limited, retry after ${err.retryAfter}s`,
      err.retryAfter,
      { cause: err },
    );
  if (err instanceof webApi.WebAPIPlatformError)
    return new ChannelError('slack', 'refused', `Slack refused ${method}: ${String(err.data.error)}`, null, {
      cause: err,
    });
  if (err instanceof webApi.WebAPIHTTPError)
    return new ChannelError('slack', 'network', `Slack answered ${method} with HTTP ${err.statusCode}`, null, {
      cause: err,
    });
  if (err instanceof webApi.WebAPIRequestError)
    return new ChannelError(
      'slack',
      'network',
      `could not reach the Slack Web API (${method}): ${err.original.message}`,
      null,
      { cause: err },
    );
  return new ChannelError('slack', 'network', err instanceof Error ? err.message : String(err), null, { cause: err });
}

/** Who tapped, submitted or replied, and where. */
export function personParams(user: Json | null, channel: string | null, ts: string | null): Record<string, string> {
  const params: Record<string, string> = {};
  const id = str(user?.['id']);
  if (id !== null) params['user_id'] = id;
  const name = str(user?.['username']) ?? str(user?.['name']);
  if (name !== null) params['user_name'] = name;
  const team = str(user?.['team_id']);
  if (team !== null) params['team_id'] = team;
  if (channel !== null) params['channel_id'] = channel;
  if (ts !== null) params['message_ts'] = ts;
  return params;
}

export const whoIs = (userId: string | null): string => `slack:${userId ?? 'unknown'}`;

/** Told (to the tapper alone) when the form modal could not open: nothing else on screen says why. */
export const FORM_DID_NOT_OPEN = 'The form did not open in time. Tap "Open form" again.';

/** A modal that only says the question is closed (opened from a stale button, or submitted too late). */
export function closedView(status: string, detail?: string): Json {
  return {
    type: 'modal',
    title: plain('Question closed', VIEW_TITLE_MAX),
    close: plain('Close', VIEW_BUTTON_MAX),
    blocks: [{ type: 'section', text: { type: 'plain_text', text: detail ?? tellClosed(status) } }],
  };
}
