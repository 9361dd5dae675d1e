import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import { ACK_FALLBACK_MS } from './limits.js';
import { verify } from './verify.js';
import {
  interactionDedupeKey,
  parseEventsBody,
  parseInteractionBody,
  retryNum,
  retryReason,
  type EventsEnvelope,
} from './webhook.js';
import { json, type WebhookHeaders, type WebhookResponse, type WebhookRoute } from '../http.js';
import { webhookRoutes, type SeenSet } from '../pipeline.js';
import type { Logger } from '../../src/observability/logger.js';

export const SLACK_EVENTS_PATH = '/channels/slack/events';
export const SLACK_INTERACTIONS_PATH = '/channels/slack/interactions';

export interface SlackReceiverOptions {
  signingSecret: string;
  /** Now in Unix seconds (the signature's staleness rule). Default the clock. */
  nowSeconds?: (() => number) | undefined;
  logger?: Logger | undefined;
}

type Json = Record<string, unknown>;

/** Slack wants its 200 and nothing else for an event askgate does not act on, or one it has seen. */
const EMPTY_OK: WebhookResponse = { status: 200 };

/**
 * Bolt's receiver, fed by askgate's own webhook pipeline (channels/pipeline.ts): each request is verified (pure
 * function, before a byte is parsed), de-duplicated, then handed to Bolt's `processEvent`, whose listeners call
 * `ack`. The HTTP answer is Bolt's first `ack`, so acknowledging Slack is separate from the work that follows it;
 * the pipeline's quick-ack option answers for a listener that has not acknowledged after ACK_FALLBACK_MS, so
 * Slack's 3-second deadline is always met.
 */
export class SlackReceiver implements Receiver {
  private app: App | null = null;

  constructor(private readonly options: SlackReceiverOptions) {}

  init(app: App): void {
    this.app = app;
  }

  // The doors are mounted on askgate's own server; there is no server of the receiver's own to start or stop.
  start(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  /** The events and interactivity doors. */
  webhooks(seen: SeenSet): WebhookRoute[] {
    const common = {
      channel: 'slack',
      secret: this.options.signingSecret,
      verify,
      now: () => (this.options.nowSeconds?.() ?? Date.now() / 1000) * 1000,
      ok: EMPTY_OK,
      ack: {
        withinMs: ACK_FALLBACK_MS,
        response: EMPTY_OK,
        onLate: () =>
          this.options.logger?.warn(
            { channel: 'slack' },
            'slack handler did not acknowledge in time; acknowledged for it',
          ),
        onError: (err: unknown) =>
          this.options.logger?.warn(
            { channel: 'slack', err: err instanceof Error ? err.message : String(err) },
            'slack request failed after it was acknowledged',
          ),
      },
    };
    return [
      ...webhookRoutes<EventsEnvelope>(
        {
          ...common,
          path: SLACK_EVENTS_PATH,
          parse: (rawBody) => [parseEventsBody(rawBody)],
          // Slack retries (X-Slack-Retry-Num) an event it thinks was not acknowledged; event_id is the same each time.
          dedupeKey: (envelope) => (envelope.kind === 'event' ? `slack:event:${envelope.eventId}` : null),
          dispatch: async (envelope, request) => {
            // The URL verification handshake: Slack checks the Request URL by asking it to echo the challenge.
            if (envelope.kind === 'challenge') return json(200, { challenge: envelope.challenge });
            if (envelope.kind === 'ignored') return EMPTY_OK;
            return this.dispatch(envelope.body, request.headers);
          },
        },
        seen,
      ),
      ...webhookRoutes<Json>(
        {
          ...common,
          path: SLACK_INTERACTIONS_PATH,
          parse: (rawBody) => [parseInteractionBody(rawBody)],
          // A tap or a submission delivered twice is acted on once: the second copy gets the empty 200.
          dedupeKey: interactionDedupeKey,
          dispatch: (payload, request) => this.dispatch(payload, request.headers),
        },
        seen,
      ),
    ];
  }

  /** Hands a verified body to Bolt; resolves with the HTTP answer at the first `ack`, or when Bolt is done. */
  private dispatch(body: Json, headers: WebhookHeaders): Promise<WebhookResponse> {
    const app = this.app;
    if (app === null) throw new Error('the Slack receiver was mounted before Bolt initialised it');
    return new Promise((resolve) => {
      let acked = false;
      const respond = (response: unknown): void => {
        if (acked) return;
        acked = true;
        if (response === undefined || response === '') resolve(EMPTY_OK);
        else if (typeof response === 'string')
          resolve({ status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: response });
        else resolve({ status: 200, body: response as Json });
      };
      const event: ReceiverEvent = {
        body,
        retryNum: retryNum(headers),
        retryReason: retryReason(headers),
        ack: async (response?: unknown) => respond(response),
      };
      app
        .processEvent(event)
        .catch((err: unknown) =>
          this.options.logger?.warn(
            { channel: 'slack', err: err instanceof Error ? err.message : String(err) },
            'slack handler failed',
          ),
        )
        // Nothing listened (an event askgate does not act on): Slack still wants its 200.
        .finally(() => respond(undefined));
    });
  }
}
